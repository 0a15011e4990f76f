package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// helperServerEnv makes TestHelperSimServer serve the simulator.
const helperServerEnv = "SPEEDMATRIX_TEST_HELPER_SERVER"

// The secrets the server by hand is started with: none may appear in any
// output of a run against it.
const (
	argvKey  = "sm-argv-key-0123"
	argvHF   = "hf_argvToken0123"
	envKey   = "sm-env-key-0123"
	envToken = "hf_envToken0123"
)

// TestHelperSimServer is not a test: run with helperServerEnv set (by
// startByHand), the test binary is a server a user started by hand. It
// serves `speedmatrix sim` (20× real time), whose clients must send
// $VLLM_API_KEY, until its stdin closes.
func TestHelperSimServer(t *testing.T) {
	t.Parallel()
	if os.Getenv(helperServerEnv) != "1" {
		t.Skip("the server process of TestRunEndpointCaptured")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	err := New("0.0.0-test").sim(ctx, []string{"--profile", "tiny", "--addr", "127.0.0.1:0", "--time-scale", "20", "--api-key-env", "VLLM_API_KEY"}, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}

// startByHand starts the simulator as a separate process, as a user
// would start vLLM: with secrets on its command line and in its
// environment. It returns the process's pid and its URL.
func startByHand(t *testing.T) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHelperSimServer$", "--",
		"serve", "fake/model", "--api-key", argvKey, "--hf-token", argvHF)
	cmd.Env = append(os.Environ(), helperServerEnv+"=1", "VLLM_API_KEY="+envKey, "HF_TOKEN="+envToken,
		"CUDA_VISIBLE_DEVICES=3", "NCCL_DEBUG=WARN", "UNRELATED_SETTING=x")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), "URL:"); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return cmd.Process.Pid, strings.TrimSpace(url)
		}
	}
	t.Fatalf("the server started by hand did not print its URL: %v", sc.Err())
	return 0, ""
}

// TestRunEndpointCaptured: an endpoint run against a server started by
// hand records its command line, environment and start time, with every
// secret redacted, in the run's header, report.json and report.md.
func TestRunEndpointCaptured(t *testing.T) {
	noCharts(t)
	h := hwCanned3090
	h.NVIDIA = engine.NVIDIAInfo{DriverVersion: "570.86.15", CUDAVersion: "12.8"}
	hwCanned(t, h, nil)
	pid, url := startByHand(t)
	t.Setenv("SPEEDMATRIX_TEST_KEY", envKey)
	dir := t.TempDir()
	out, err := runCLI(t, t.Context(), append([]string{"--endpoint", url, "--api-key-env", "SPEEDMATRIX_TEST_KEY", "--out", dir}, smallMatrix...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Process
	if p == nil || p.PID != pid || p.NotCaptured != "" || p.StartedAt.IsZero() {
		t.Fatalf("server process %+v, want pid %d read", p, pid)
	}
	wantCmd := "-- serve fake/model --api-key <redacted> --hf-token <redacted>"
	if !strings.HasSuffix(strings.Join(p.Command, " "), wantCmd) {
		t.Errorf("command %q, want it to end %q", p.Command, wantCmd)
	}
	wantEnv := "CUDA_VISIBLE_DEVICES=3 HF_TOKEN=<redacted> NCCL_DEBUG=WARN VLLM_API_KEY=<redacted> "
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	for _, text := range []string{rep.LaunchCommand, string(md), out} {
		if !strings.Contains(text, fmt.Sprintf("(pid %d), read from /proc/%d\n", pid, pid)) || !strings.Contains(text, "env "+wantEnv) ||
			!strings.Contains(text, wantCmd) || strings.Contains(text, "UNRELATED_SETTING") {
			t.Errorf("the launch command is not shown with its start and environment:\n%s", text)
		}
	}
	if d := rep.Diagnostics; !rep.Server.Simulated || d == nil || d.NVIDIA.DriverVersion != "570.86.15" || d.Env["VLLM_API_KEY"] != "" {
		t.Errorf("simulated %v, diagnostics %+v (speedmatrix's own environment, not the server's)", rep.Server.Simulated, d)
	}
	noSecretIn(t, dir, out)
}

// noSecretIn greps every file of a run's folder and its output for the
// secrets the server was started with.
func noSecretIn(t *testing.T, dir, out string) {
	t.Helper()
	files, _ := os.ReadDir(dir)
	texts := map[string]string{"output": out}
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(dir, f.Name()))
		texts[f.Name()] = string(b)
	}
	for name, text := range texts {
		for _, s := range []string{argvKey, argvHF, envKey, envToken} {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %q", name, s)
			}
		}
	}
}

// TestRunEndpointNotCaptured: when the server's process can't be read,
// the run's header and report.md say why.
func TestRunEndpointNotCaptured(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	tg, stop, err := simTarget("tiny", "", "", 20)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	const why = "the server runs as another user (uid 1001)"
	cliFor(t).Capture = func(context.Context, string) engine.ServerProcess {
		return engine.ServerProcess{UID: 1001, NotCaptured: why}
	}
	dir := t.TempDir()
	out, err := runCLI(t, t.Context(), append([]string{"--endpoint", tg.BaseURL, "--out", dir}, smallMatrix...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	rep, _ := report.Load(dir)
	if !strings.Contains(out, "  launch command: not captured: "+why+"\n") || !strings.Contains(string(md), "# launch command: not captured: "+why) ||
		rep.Process == nil || rep.Process.NotCaptured != why {
		t.Errorf("the reason is not shown:\n%s\n%s", out, md)
	}
}
