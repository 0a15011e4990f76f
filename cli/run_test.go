package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
)

// testCLIs holds each test's own CLI, so that tests set its dependencies
// without touching another's.
var testCLIs sync.Map // *testing.T → *CLI

// cliFor is t's CLI: the real dependencies until the test replaces them.
func cliFor(t *testing.T) *CLI {
	c, loaded := testCLIs.LoadOrStore(t, New("0.0.0-test"))
	if !loaded {
		t.Cleanup(func() { testCLIs.Delete(t) })
	}
	return c.(*CLI)
}

// fastSim makes --sim run 20× faster than real time for the test.
func fastSim(t *testing.T) { cliFor(t).SimTimeScale = 20 }

// noCharts leaves the charts out (TestRunSim covers them; they take a
// while to draw).
func noCharts(t *testing.T) {
	cliFor(t).WriteCharts = func(context.Context, string, engine.Report) error { return nil }
}

var smallMatrix = []string{"--prefill-contexts", "1K", "--contexts", "1K", "--concurrency", "1,2",
	"--duration", "300ms", "--max-output", "128"}

func runCLI(t *testing.T, ctx context.Context, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := cliFor(t).Run(ctx, args, &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestRunSim(t *testing.T) {
	t.Parallel()
	fastSim(t)
	dir := filepath.Join(t.TempDir(), "out")
	out, err := runCLI(t, t.Context(), append([]string{"--sim", "tiny", "--out", dir}, smallMatrix...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"[1/3] Prefill 1K × 1: Valid", "prompt tok/s (median of 3, spread ", "[3/3] Sustained decode 1K × 2: Valid", "Valid", "done: 3 cells (3 valid)", "the simulator (profile tiny)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	csv, _ := os.ReadFile(filepath.Join(dir, report.CSVFile))
	if !strings.Contains(string(md), "simulated (profile tiny)") || !strings.Contains(string(md), "## Sustained decode") {
		t.Errorf("report.md is not labelled simulated or lacks the decode table:\n%s", md)
	}
	if !strings.HasPrefix(string(csv), strings.Join(report.CSVHeader, ",")+"\n") || strings.Count(string(csv), "\n") != 4 ||
		!regexp.MustCompile(`(?m)^prefill,1024,1,Valid,.*,3,[0-9.]+,[0-9.]*,,,,[0-9.]*,,[0-9.]*,$`).Match(csv) || !strings.Contains(string(md), "median of 3, spread") {
		t.Errorf("results.csv:\n%s", csv)
	}
	for _, name := range []string{"report.png", "decode-heatmap.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("chart %s not written: %v", name, err)
		}
	}
	rep, err := report.Load(dir)
	if err != nil || !rep.Run.Complete || !rep.Server.Simulated || rep.Hardware.Note == "" {
		t.Errorf("report.json: %v, complete %v, simulated %v, note %q", err, rep.Run.Complete, rep.Server.Simulated, rep.Hardware.Note)
	}
}

func TestRunResume(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	dir := t.TempDir()
	if out, err := runCLI(t, t.Context(), append([]string{"--sim", "tiny", "--out", dir}, smallMatrix...)...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	kept := rep.Results[0]
	rep.Results, rep.Run.Complete = rep.Results[:2], false
	if err := report.Save(dir, rep); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, t.Context(), "--out", dir, "--sim", "tiny"); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("a second run into the same folder: %v, want an error suggesting --resume", err)
	}
	for _, flag := range []string{"--contexts", "--prefill-repeats"} {
		if _, err := runCLI(t, t.Context(), "--resume", dir, flag, "2"); err == nil || !strings.Contains(err.Error(), flag+" can't change on resume") {
			t.Errorf("--resume with %s: %v, want an error naming %s", flag, err, flag)
		}
	}
	out, err := runCLI(t, t.Context(), "--resume", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep, err = report.Load(dir)
	if err != nil || len(rep.Results) != 3 || !rep.Run.Complete || !rep.Results[0].StartedAt.Equal(kept.StartedAt) {
		t.Errorf("after resume: %v, %d results, complete %v; want 3, complete, first cell kept", err, len(rep.Results), rep.Run.Complete)
	}
}

func TestRunLaunch(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	stopped := false
	cliFor(t).Launch = func(ctx context.Context, path string, stderr io.Writer) (measure.Subject, func(), error) {
		if path != "server.toml" {
			return measure.Subject{Target: measure.Target{}}, nil, errors.New("unexpected path " + path)
		}
		tg, stop, err := simTarget("tiny", "", "", 20)
		tg.Header.LaunchCommand = "vllm serve tiny --api-key <redacted>"
		return tg, func() { stopped = true; stop() }, err
	}
	dir := t.TempDir()
	out, err := runCLI(t, t.Context(), append([]string{"--launch", "server.toml", "--out", dir}, smallMatrix...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if !stopped || !strings.Contains(string(md), "vllm serve tiny --api-key <redacted>") {
		t.Errorf("stopped %v; report.md must carry the launch command:\n%s", stopped, md)
	}
}

// TestResumeOfALaunchedRun: a run whose server speedmatrix launched is
// resumed by launching it again; without --launch, the error says so
// rather than knock at the stopped server's address.
func TestResumeOfALaunchedRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rep := engine.Report{Plan: engine.DefaultPlan(), LaunchCommand: "vllm serve tiny --api-key <redacted>",
		Server: engine.ServerInfo{Name: "vllm"}, Run: engine.RunInfo{Endpoint: "http://127.0.0.1:8000"},
		Results: []engine.Result{{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 8192, Concurrency: 1}, Status: engine.StatusValid},
			{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 1}, Status: engine.StatusNotRun}}}
	if err := report.Save(dir, rep); err != nil {
		t.Fatal(err)
	}
	_, err := runCLI(t, t.Context(), "--resume", dir)
	if want := "run --resume: the run you resume launched its vllm server, which stopped with it: give --launch server.toml to launch it again"; err == nil || err.Error() != want {
		t.Errorf("resume without --launch: %v, want %q", err, want)
	}
}

func TestRunCancel(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	w := &cancelAfter{n: 1, cancel: cancel}
	err := cliFor(t).Run(ctx, []string{"--sim", "tiny", "--out", dir, "--prefill-contexts", "1K", "--contexts", "1K",
		"--concurrency", "1", "--duration", "1m", "--max-output", "128"}, w, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--resume "+dir) {
		t.Fatalf("error %v, want one saying how to resume", err)
	}
	// The cancel lands while the decode cell runs or, on a busy machine,
	// just before it starts: Cancelled or Not run, never measured.
	rep, lerr := report.Load(dir)
	if lerr != nil || len(rep.Results) != 2 || rep.Results[0].Status != engine.StatusValid || rep.Run.Complete ||
		(rep.Results[1].Status != engine.StatusCancelled && rep.Results[1].Status != engine.StatusNotRun) {
		t.Errorf("saved %v: %+v; want a Valid prefill and a Cancelled or Not run decode cell, incomplete", lerr, rep.Results)
	}
}

// cancelAfter cancels once n result lines were printed.
type cancelAfter struct {
	n      int
	cancel func()
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("] Prefill")) {
		c.n--
		if c.n == 0 {
			c.cancel()
		}
	}
	return len(p), nil
}

// TestRunSimSGLang: the simulator in SGLang mode is measured as SGLang:
// the Engine section names it, its 6K × 16 cell is Over capacity from its
// server info, and the requests open at each window's end were aborted.
func TestRunSimSGLang(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	dir := filepath.Join(t.TempDir(), "out")
	out, err := runCLI(t, t.Context(), "--sim", "tiny", "--sim-engine", "sglang", "--out", dir, "--prefill-contexts", "none",
		"--contexts", "6K", "--concurrency", "2,16", "--duration", "300ms", "--max-output", "1024")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "Sustained decode 6K × 16: Over capacity") {
		t.Errorf("output lacks the Over capacity cell:\n%s", out)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	for _, want := range []string{"| Engine | sglang |", "aborted by id"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

func TestRunBadInput(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(nil)
	deadURL := dead.URL
	dead.Close()
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no target", []string{"--out", dir}, "--endpoint URL, --sim PROFILE or --launch"},
		{"two targets", []string{"--sim", "tiny", "--endpoint", "http://x", "--out", dir}, "only one of"},
		{"no out", []string{"--sim", "tiny"}, "--out DIR"},
		{"bad api", []string{"--sim", "tiny", "--api", "grpc", "--out", dir}, "chat or completions"},
		{"bad context", []string{"--sim", "tiny", "--contexts", "8Q", "--out", dir}, "--contexts"},
		{"bad concurrency", []string{"--sim", "tiny", "--concurrency", "0", "--out", dir}, "--concurrency"},
		{"context 0", []string{"--sim", "tiny", "--contexts", "0,1K", "--out", dir}, "run: --contexts: a context of 0 tokens has no prompt to measure: use 1 token or more"},
		{"prefill context 0", []string{"--sim", "tiny", "--prefill-contexts", "0", "--out", dir}, "run: --prefill-contexts: a context of 0 tokens"},
		{"huge context", []string{"--sim", "tiny", "--prefill-contexts", "20000K", "--out", dir}, "run: --prefill-contexts: 20000K is longer than any model's context: use at most 10240K"},
		{"huge max output", []string{"--sim", "tiny", "--max-output", "99999999999", "--out", dir}, "run: --max-output: 99999999999 tokens are more than any model's context: use at most 10485760"},
		{"huge duration", []string{"--sim", "tiny", "--duration", "1000000000s", "--out", dir}, "run: --duration: 277777h46m40s is longer than a cell needs: use at most 1 hour"},
		{"huge concurrency", []string{"--sim", "tiny", "--concurrency", "1,100000", "--out", dir}, "run: --concurrency: 100000 requests at once are more than any server runs: use at most 4096"},
		{"negative kv budget", []string{"--sim", "tiny", "--kv-budget", "-1", "--out", dir}, "run: --kv-budget: must be 0"},
		{"precision not a percentage", []string{"--sim", "tiny", "--precision", "1", "--out", dir}, `run: --precision: "1" is not a precision: give a percentage such as 1% or 0.5%, or off for fixed windows`},
		{"precision too coarse", []string{"--sim", "tiny", "--precision", "80%", "--out", dir}, "run: --precision: 80% is outside 0.1%–50%"},
		{"no prefill repeat", []string{"--sim", "tiny", "--prefill-repeats", "0", "--out", dir}, "run: --prefill-repeats: 0 is not a number of requests per prefill context: use 1 to 20"},
		{"too many prefill repeats", []string{"--sim", "tiny", "--prefill-repeats", "21", "--out", dir}, "run: --prefill-repeats: 21 is not a number"},
		{"two bad settings", []string{"--sim", "tiny", "--max-output", "0", "--duration", "-1s", "--out", dir}, "run: --duration: must be positive; --max-output: must be at least 1 token"},
		{"unknown profile", []string{"--sim", "huge", "--out", dir}, "tiny"},
		{"unset password variable", []string{"--endpoint", "http://ann@127.0.0.1:1", "--password-env", "SPEEDMATRIX_NO_SUCH_VAR", "--out", dir}, "environment variable SPEEDMATRIX_NO_SUCH_VAR is not set or empty: export it or drop --password-env"},
		{"password without a user", []string{"--endpoint", "http://127.0.0.1:1", "--password-env", "SPEEDMATRIX_NO_SUCH_VAR", "--out", dir}, "write the user in it, e.g. http://user@127.0.0.1:1"},
		{"two passwords", []string{"--endpoint", "http://ann:pw@127.0.0.1:1", "--password-env", "SPEEDMATRIX_NO_SUCH_VAR", "--out", dir}, "--endpoint has a password and --password-env gives one too"},
		{"password without an endpoint", []string{"--sim", "tiny", "--password-env", "SPEEDMATRIX_NO_SUCH_VAR", "--out", dir}, "--password-env goes with --endpoint URL"},
		{"unset key variable", []string{"--endpoint", "http://127.0.0.1:1", "--api-key-env", "SPEEDMATRIX_NO_SUCH_VAR", "--out", dir}, "SPEEDMATRIX_NO_SUCH_VAR"},
		{"not a URL", []string{"--endpoint", "localhost:8000", "--out", dir}, "http(s) URL"},
		{"unreachable", []string{"--endpoint", deadURL, "--out", dir}, "--endpoint"},
		{"stray argument", []string{"--sim", "tiny", "extra"}, "unexpected argument"},
		{"resume nothing", []string{"--resume", filepath.Join(dir, "none")}, "not found"},
		{"bad sim engine", []string{"--sim", "tiny", "--sim-engine", "tgi", "--out", dir}, "--sim-engine \"tgi\""},
		{"sim engine alone", []string{"--endpoint", "http://x", "--sim-engine", "sglang", "--out", dir}, "--sim-engine goes with --sim"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runCLI(t, t.Context(), c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line containing %q\n%s", err, c.want, out)
			}
		})
	}
	if _, err := runCLI(t, t.Context(), "-h"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
}

// TestRunWarns: a plan that runs but misleads is warned of, in flags.
func TestRunWarns(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	out, err := runCLI(t, t.Context(), "--sim", "tiny", "--out", t.TempDir(), "--prefill-contexts", "none",
		"--contexts", "128", "--concurrency", "1,128", "--duration", "1s", "--max-output", "32")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"warning: --contexts: contexts under 256 tokens (128)", "warning: --concurrency: the server runs at most 64 sequences", "warning: --duration: a 1s window"} {
		if !strings.Contains(out, want) {
			t.Errorf("output misses %q:\n%s", want, out)
		}
	}
}

// TestRunPrefillRepeatsFlag: without --prefill-repeats the plan is the
// Standard plan's (3 below 64K, 1 from 64K); with it, N at every context.
func TestRunPrefillRepeatsFlag(t *testing.T) {
	for _, tc := range []struct {
		name         string
		args         []string
		at32K, at64K int
	}{
		{"standard", nil, 3, 1},
		{"5 everywhere", []string{"--prefill-repeats", "5"}, 5, 5},
		{"one", []string{"--prefill-repeats", "1"}, 1, 1},
	} {
		f, err := parseRunFlags(append([]string{"--sim", "tiny", "--out", t.TempDir()}, tc.args...), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := f.plan()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got32, got64 := p.PrefillRepeatsAt(32*engine.K), p.PrefillRepeatsAt(64*engine.K); got32 != tc.at32K || got64 != tc.at64K {
			t.Errorf("%s: %d repeats at 32K, %d at 64K; want %d and %d", tc.name, got32, got64, tc.at32K, tc.at64K)
		}
	}
}
