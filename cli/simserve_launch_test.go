package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/report"
	"speedmatrix/hw"
)

var (
	speedmatrixOnce sync.Once
	speedmatrixDir  string
	speedmatrixExe  string
	speedmatrixErr  error
)

// removeSpeedmatrix removes what buildSpeedmatrix built (TestMain).
func removeSpeedmatrix() {
	if speedmatrixDir != "" {
		os.RemoveAll(speedmatrixDir)
	}
}

// buildSpeedmatrix builds this module's speedmatrix command once per test
// binary (with -tags ci: the stand-in needs no GL), for the tests that
// launch it as a server.
func buildSpeedmatrix(t *testing.T) string {
	t.Helper()
	speedmatrixOnce.Do(func() {
		if speedmatrixDir, speedmatrixErr = os.MkdirTemp("", "speedmatrix-standin"); speedmatrixErr != nil {
			return
		}
		speedmatrixExe = filepath.Join(speedmatrixDir, "speedmatrix")
		if out, err := exec.Command("go", "build", "-tags", "ci", "-o", speedmatrixExe, "speedmatrix").CombinedOutput(); err != nil {
			speedmatrixErr = fmt.Errorf("build speedmatrix: %v\n%s", err, out)
		}
	})
	if speedmatrixErr != nil {
		t.Fatal(speedmatrixErr)
	}
	return speedmatrixExe
}

// exampleSweepTOML is examples/sweep/server.toml for a test: its wrapper
// script by absolute path, running exe 20 times faster than real time on
// a free port, with its log kept in logDir, and extra lines.
func exampleSweepTOML(t *testing.T, exe, logDir string, extra ...string) string {
	t.Helper()
	text, err := os.ReadFile("../examples/sweep/server.toml")
	if err != nil {
		t.Fatal(err)
	}
	wrapper, err := filepath.Abs("../examples/sweep/vllm")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := strings.Replace(string(text), `executable = "examples/sweep/vllm"`, fmt.Sprintf("executable = %q", wrapper), 1)
	s = strings.Replace(s, "port = 8123", fmt.Sprintf("port = %d", port), 1)
	s += fmt.Sprintf("log_dir = %q\n%s\n[env]\nSPEEDMATRIX = %q\n%s = \"20\"\n", logDir, strings.Join(extra, "\n"), exe, timeScaleEnv)
	path := filepath.Join(t.TempDir(), "server.toml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStandInLaunch launches examples/sweep/server.toml with max_num_seqs
// = 2 through the launcher and measures it: the Engine section gets the
// stand-in's KV cache and max_num_seqs, everything is labelled simulated,
// concurrency 4 is over its capacity, and SIGINT stops it by itself.
func TestStandInLaunch(t *testing.T) {
	t.Parallel()
	hwCanned(t, hw.Hardware{}, hw.ErrNoNVML)
	noCharts(t)
	logDir := t.TempDir()
	toml := exampleSweepTOML(t, buildSpeedmatrix(t), logDir, "max_num_seqs = 2", "enforce_eager = true")
	dir := filepath.Join(t.TempDir(), "out")
	out, err := runCLI(t, t.Context(), "--launch", toml, "--out", dir, "--prefill-contexts", "none", "--contexts", "1K",
		"--concurrency", "1,4", "--duration", "300ms", "--precision", "off", "--max-output", "128")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep engine.Report
	data, _ := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	e := rep.Server
	if !e.Simulated || e.SimProfile != "tiny" || e.KVCacheTokens != 98304 || e.MaxNumSeqs != 2 || e.Version != "0.32.0" ||
		rep.Hardware.Whose != engine.HardwareOfSimulator || !strings.Contains(rep.LaunchCommand, "--max-num-seqs 2 --enforce-eager") {
		t.Errorf("engine %+v, hardware %q, launch command %q", e, rep.Hardware.Whose, rep.LaunchCommand)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, report.CSVFile))
	for _, want := range []string{"decode,1024,1,Valid,", "decode,1024,4,Over capacity,"} {
		if !strings.Contains(string(csv), want) {
			t.Errorf("results.csv lacks %q:\n%s", want, csv)
		}
	}
	if rows := strings.Count(string(csv), ",true,sim:tiny,"); rows != 2 {
		t.Errorf("%d rows of results.csv say simulated, want 2:\n%s", rows, csv)
	}
	logs, _ := filepath.Glob(filepath.Join(logDir, "vllm-*.log"))
	var serverLog []byte
	if len(logs) == 1 {
		serverLog, _ = os.ReadFile(logs[0])
	}
	for _, want := range []string{"'max_num_seqs': 2, 'enforce_eager': True", "Application startup complete.", "Shutting down FastAPI HTTP server."} {
		if !strings.Contains(string(serverLog), want) {
			t.Errorf("the server's log (%v) lacks %q:\n%s", logs, want, serverLog)
		}
	}
}

// TestStandInLaunchFailures: a configuration the stand-in cannot start
// fails through the launcher as vLLM's would, with the launcher's
// diagnosis of its lines and its exit status.
func TestStandInLaunchFailures(t *testing.T) {
	t.Parallel()
	exe := buildSpeedmatrix(t)
	for _, tc := range []struct {
		extra  []string // server.toml lines
		args   []string // more extra_args
		status string
		fatal  string
	}{
		{[]string{"gpu_memory_utilization = 0.99"}, nil, "exit status 1", "the GPU ran out of memory"},
		{[]string{"max_model_len = 131072"}, nil, "exit status 1", "the KV cache cannot hold one request of --max-model-len tokens"},
		{nil, []string{"--max-num-seqs", "abc"}, "exit status 2", "vLLM refused its command line"},
	} {
		cfg, err := launch.LoadConfig(exampleSweepTOML(t, exe, t.TempDir(), tc.extra...))
		if err != nil {
			t.Fatal(err)
		}
		cfg.ExtraArgs = append(cfg.ExtraArgs, tc.args...)
		s, err := launch.Launch(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = s.WaitReady(t.Context())
		_ = s.Stop()
		var se *launch.ServerError
		if !errors.As(err, &se) || se.Fatal == nil || se.Fatal.Summary != tc.fatal || !strings.Contains(se.Reason, tc.status) {
			t.Errorf("%v %v: %v, want %s and %q", tc.extra, tc.args, err, tc.status, tc.fatal)
		}
	}
}
