package cli

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sim"
)

// simAt serves the tiny simulator (20× real time) on addr ("127.0.0.1:0"
// for any port) and returns its address and a func that kills it.
func simAt(t *testing.T, addr string, faults sim.Faults) (string, func()) {
	t.Helper()
	s := tinySim(t, faults)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s}
	go func() { _ = hs.Serve(ln) }()
	kill := func() { _ = hs.Close(); s.Close() }
	t.Cleanup(kill)
	return "http://" + ln.Addr().String(), kill
}

// tinySim is the tiny simulator at 20× real time, closed when the test
// ends.
func tinySim(t *testing.T, faults sim.Faults) *sim.Server {
	t.Helper()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sim.Options{Profile: p, TimeScale: 20, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	return ExitCode(err)
}

// TestRunStallFails is the stall: streams that stop after 20
// tokens inside the window fail the cell, with the streams counted.
func TestRunStallFails(t *testing.T) {
	t.Parallel()
	noCharts(t)
	url, _ := simAt(t, "127.0.0.1:0", sim.Faults{StallAfterTokens: 20})
	dir := t.TempDir()
	out, err := runCLI(t, t.Context(), "--endpoint", url, "--out", dir, "--prefill-contexts", "none", "--contexts", "1K",
		"--concurrency", "1,2", "--duration", "2s", "--max-output", "256", "--stall-timeout", "500ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep, _ := report.Load(dir)
	for _, r := range rep.Results {
		if r.Status != engine.StatusFailed || !strings.Contains(r.Error, "stalled (no token for 500 ms)") || r.TotalTokPerSec != 0 {
			t.Errorf("%s: %s %q %.1f tok/s, want Failed: N of C streams stalled, no figures", r.Key(), r.Status, r.Error, r.TotalTokPerSec)
		}
	}
	if !strings.Contains(out, "Failed") || strings.Contains(out, "Valid") {
		t.Errorf("output:\n%s", out)
	}
}

// TestRunServerDiesThenResume: a server killed mid-run ends the run with
// exit code 3 and a line saying how to resume; once the server is back,
// --resume measures the rest and exits 0.
func TestRunServerDiesThenResume(t *testing.T) {
	t.Parallel()
	noCharts(t)
	url, kill := simAt(t, "127.0.0.1:0", sim.Faults{})
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := &killAfter{kill: kill}
	err := cliFor(t).Run(ctx, []string{"--endpoint", url, "--out", dir, "--prefill-contexts", "1K", "--contexts", "1K",
		"--concurrency", "1,2,4", "--duration", "1s", "--max-output", "4000"}, w, w)
	if exitCode(t, err) != exitIncomplete || !strings.Contains(err.Error(), "stopped answering") ||
		!strings.Contains(err.Error(), "when the server is back, finish with: speedmatrix run --resume "+dir) {
		t.Fatalf("exit %d, %v: want 3 and how to resume", exitCode(t, err), err)
	}
	rep, lerr := report.Load(dir)
	if lerr != nil || rep.Run.Complete || rep.Run.Incomplete == "" || rep.Results[0].Status != engine.StatusValid {
		t.Fatalf("saved %v, complete %v (%q): %+v", lerr, rep.Run.Complete, rep.Run.Incomplete, rep.Results)
	}

	simAt(t, strings.TrimPrefix(url, "http://"), sim.Faults{})
	out, err := runCLI(t, t.Context(), "--resume", dir)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	rep, _ = report.Load(dir)
	if !rep.Run.Complete || len(rep.Results) != 4 {
		t.Fatalf("after resume: complete %v, %+v", rep.Run.Complete, rep.Results)
	}
	for _, r := range rep.Results {
		if r.Status != engine.StatusValid {
			t.Errorf("%s after resume: %s %q", r.Key(), r.Status, r.Error)
		}
	}
}

// killAfter kills the server once the first cell's line is printed.
type killAfter struct {
	kill   func()
	killed bool
}

func (k *killAfter) Write(p []byte) (int, error) {
	if !k.killed && strings.Contains(string(p), "] Prefill") {
		k.killed = true
		k.kill()
	}
	return len(p), nil
}

// TestRunBusyRefused: a server busy with another client is refused with
// exit code 1 and the advice; --allow-busy measures and flags.
func TestRunBusyRefused(t *testing.T) {
	t.Parallel()
	noCharts(t)
	cliFor(t).IdleWait = time.Second
	url, _ := simAt(t, "127.0.0.1:0", sim.Faults{OtherLoad: 2})
	args := []string{"--endpoint", url, "--prefill-contexts", "none", "--contexts", "1K", "--concurrency", "1", "--duration", "300ms", "--max-output", "64"}
	out, err := runCLI(t, t.Context(), append(args, "--out", t.TempDir())...)
	if exitCode(t, err) != exitCantStart || !strings.Contains(err.Error(), "busy with 2 requests from another client") || !strings.HasSuffix(err.Error(), "Stop them or pass --allow-busy") {
		t.Fatalf("exit %d, %v: want 1 and the advice", exitCode(t, err), err)
	}
	if !strings.Contains(out, "waiting up to 1 s for it to be idle") {
		t.Errorf("refused without waiting for the other client:\n%s", out)
	}
	dir := t.TempDir()
	if out, err := runCLI(t, t.Context(), append(args, "--out", dir, "--allow-busy")...); err != nil || !strings.Contains(out, "other clients") {
		t.Fatalf("--allow-busy: %v\n%s", err, out)
	}
}

// TestRunOutUnusable: an --out that can't hold the report is refused before
// anything is measured, and a file that can't be written at the end gives
// exit code 4 naming it.
func TestRunOutUnusable(t *testing.T) {
	t.Parallel()
	fastSim(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{file, filepath.Join(file, "sub")} {
		start := time.Now()
		_, err := runCLI(t, t.Context(), append([]string{"--sim", "tiny", "--out", out}, smallMatrix...)...)
		if exitCode(t, err) != exitCantStart || !strings.Contains(err.Error(), "--out "+out+" is not usable") || time.Since(start) > 5*time.Second {
			t.Errorf("--out %s: exit %d, %v after %v; want 1 at once", out, exitCode(t, err), err, time.Since(start))
		}
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "report.png"), 0o755); err != nil { // a chart can't be renamed onto a folder
		t.Fatal(err)
	}
	out, err := runCLI(t, t.Context(), append([]string{"--sim", "tiny", "--out", dir}, smallMatrix...)...)
	if exitCode(t, err) != exitExport || !strings.Contains(err.Error(), filepath.Join(dir, "report.png")) || strings.Contains(out, "and charts") {
		t.Errorf("exit %d, %v: want 4 naming report.png, and no claim the charts were saved\n%s", exitCode(t, err), err, out)
	}
	if rep, lerr := report.Load(dir); lerr != nil || !rep.Run.Complete {
		t.Errorf("the report must still be saved: %v", lerr)
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want int
	}{{nil, 0}, {errors.New("x"), 1}, {exitWith(exitIncomplete, errors.New("x")), 3}, {exitWith(exitExport, errors.New("x")), 4}} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
