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
)

func TestSimList(t *testing.T) {
	var out bytes.Buffer
	if err := Sim(context.Background(), []string{"--list"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tiny", "gemma-4-e2b-rtxpro6000", "gemma-4-26b-a4b-nvfp4-rtx3090", "simulated"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSimFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--profile", "nope"},
		{"--time-scale", "0"},
		{"--error-rate", "2"},
		{"extra"},
		{"--api-key-env", "SPEEDMATRIX_SIM_TEST_UNSET_VAR"},
	} {
		err := Sim(context.Background(), args, io.Discard, io.Discard)
		if err == nil {
			t.Errorf("Sim %v: no error", args)
		}
	}
	if err := Sim(context.Background(), []string{"-h"}, io.Discard, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("Sim -h = %v, want flag.ErrHelp", err)
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
		done <- Sim(ctx, []string{"--addr", "127.0.0.1:0", "--api-key-env", "SPEEDMATRIX_SIM_TEST_KEY"}, pw, io.Discard)
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
