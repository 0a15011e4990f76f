package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine/sim"
)

func TestSimList(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := cliFor(t).sim(context.Background(), []string{"--list"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tiny", "tiny-spec", "gemma-4-e2b-rtxpro6000", "gemma-4-26b-a4b-nvfp4-rtx3090", "simulated"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSimFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string // in the error
	}{
		{[]string{"--profile", "nope"}, "nope"},
		{[]string{"--time-scale", "0"}, "--time-scale"},
		{[]string{"--error-rate", "2"}, "--error-rate"},
		{[]string{"extra"}, "extra"},
		{[]string{"--api-key-env", "SPEEDMATRIX_SIM_TEST_UNSET_VAR"}, "SPEEDMATRIX_SIM_TEST_UNSET_VAR"},
		{[]string{"--linger", "-2s"}, "--linger"},
		{[]string{"--linger", "soon"}, "linger"},
		{[]string{"--other-load", "-1"}, "--other-load"},
		{[]string{"--other-load", "many"}, "other-load"},
		{[]string{"--disconnect-after", "-5"}, "--disconnect-after"},
		{[]string{"--stall-after", "-5"}, "--stall-after"},
		{[]string{"--startup-delay", "-1s"}, "--startup-delay"},
		{[]string{"--engine", "tgi"}, "--engine \"tgi\""},
		{[]string{"--noise", "loud"}, "--noise \"loud\": use on, or off"},
	} {
		err := cliFor(t).sim(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Sim %v: error %v, want one naming %q", tc.args, err, tc.want)
		}
	}
	if err := cliFor(t).sim(context.Background(), []string{"-h"}, io.Discard, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("Sim -h = %v, want flag.ErrHelp", err)
	}
}

func TestSimFaultFlags(t *testing.T) {
	t.Parallel()
	f, err := parseSimFlags([]string{"--gen-counter-at-finish", "--linger", "1500ms", "--other-load", "3"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Faults{GenTokensAtFinish: true, LingerAfterDisconnect: 1500 * time.Millisecond, OtherLoad: 3}
	if f.faults != want {
		t.Errorf("faults %+v, want %+v", f.faults, want)
	}
	if notes := strings.Join(faultNotes(f.faults), "; "); notes != "generation_tokens_total moves only when a request ends; generates 1.5s on after a client disconnects; 3 requests of another client always in flight" {
		t.Errorf("banner notes %q", notes)
	}
	if notes := faultNotes(sim.Faults{}); len(notes) != 0 {
		t.Errorf("banner notes %q without faults, want none", notes)
	}
	var help bytes.Buffer
	if _, err := parseSimFlags([]string{"-h"}, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h = %v", err)
	}
	for _, doc := range []string{"-gen-counter-at-finish", "-linger duration", "keep generating this long after a client disconnects",
		"-other-load N", "serve N requests of another client all the time"} {
		if !strings.Contains(help.String(), doc) {
			t.Errorf("-h lacks %q:\n%s", doc, help.String())
		}
	}
}

func TestSimNoiseNote(t *testing.T) {
	t.Parallel()
	p, _ := sim.LookupProfile("gemma-4-e2b-rtxpro6000")
	for _, tc := range []struct {
		n    sim.Noise
		want string
	}{
		{sim.Noise{}, "off (every step takes its modelled time)"},
		{p.Noise, "step jitter 1.5 %, clock drift 0.5 % over 1s, 0.05 hiccups/s of 20ms (seed 4)"},
	} {
		if got := noiseNote(tc.n, 4); got != tc.want {
			t.Errorf("noiseNote(%+v) = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{{nil, "on"}, {[]string{"--noise", "off"}, "off"}} {
		if f, err := parseSimFlags(tc.args, io.Discard); err != nil || f.noise != tc.want {
			t.Errorf("%v: noise %q (%v), want %q", tc.args, f.noise, err, tc.want)
		}
	}
}

// TestSimServes starts the simulator on a free port, reads the URL it
// prints, checks it answers, and stops it by cancelling the context.
func TestSimServes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	t.Setenv("SPEEDMATRIX_SIM_TEST_KEY", "sekrit")
	done := make(chan error, 1)
	go func() {
		done <- cliFor(t).sim(ctx, []string{"--addr", "127.0.0.1:0", "--api-key-env", "SPEEDMATRIX_SIM_TEST_KEY"}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var url, all string
	for url == "" && sc.Scan() {
		line := sc.Text()
		all += line + "\n"
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "URL:"); ok {
			url = strings.TrimSpace(u)
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if url == "" {
		t.Fatalf("no URL printed:\n%s", all)
	}
	if !strings.Contains(all, "imulated") {
		t.Errorf("banner doesn't say simulated:\n%s", all)
	}
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/v1/models without the key: %d, want 401", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", url+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer sekrit")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"id":"tiny"`) {
		t.Errorf("/v1/models = %s, want the tiny model", b)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Sim returned %v after cancel, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Sim did not return after its context was cancelled")
	}
}
