package capture

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// helperEnv makes the test binary a stand-in server (see TestMain).
const helperEnv = "CAPTURE_TEST_SERVER"

// TestMain lets the test binary stand in for a server started by hand: with
// helperEnv set it listens on 127.0.0.1, prints its port and holds the
// port until its stdin closes.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(ln.Addr().(*net.TCPAddr).Port)
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startServer starts the stand-in server as a separate process with argv
// after the program and env added to ours, and returns its pid and port.
func startServer(t testing.TB, argv []string, env ...string) (pid, port int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, argv...)
	cmd.Env = append(append(os.Environ(), helperEnv+"=1"), env...)
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
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the stand-in server did not say its port: %v", err)
	}
	if port, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, port
}

// TestReadRealProcess reads a server started as a separate process, with
// secrets on its command line and in its environment.
func TestReadRealProcess(t *testing.T) {
	pid, port := startServer(t, []string{"serve", "fake/model", "--api-key", "sm-argv-key-0123", "--hf-token=hf_argvToken0123"},
		"VLLM_API_KEY=sm-env-key-0123", "HF_TOKEN=hf_envToken0123", "CUDA_VISIBLE_DEVICES=3", "VLLM_LOGGING_LEVEL=DEBUG")
	p := Read(t.Context(), fmt.Sprintf("http://127.0.0.1:%d", port))
	if p.NotCaptured != "" || p.PID != pid || p.UID != os.Getuid() || p.StartedAt.IsZero() {
		t.Fatalf("got %+v, want pid %d", p, pid)
	}
	if got := strings.Join(p.Command[1:], " "); got != "serve fake/model --api-key <redacted> --hf-token=<redacted>" {
		t.Errorf("command %q", p.Command)
	}
	for k, v := range map[string]string{"VLLM_API_KEY": "<redacted>", "HF_TOKEN": "<redacted>", "CUDA_VISIBLE_DEVICES": "3", "VLLM_LOGGING_LEVEL": "DEBUG"} {
		if p.Env[k] != v {
			t.Errorf("env %s = %q, want %q (env %v)", k, p.Env[k], v, p.Env)
		}
	}
	if _, ok := p.Env[helperEnv]; ok {
		t.Errorf("env holds %s, which has none of the prefixes", helperEnv)
	}
	cmd := launchCommand(p, "")
	if !strings.Contains(cmd, fmt.Sprintf("(pid %d), read from /proc/%d\n", pid, pid)) ||
		!strings.Contains(cmd, "CUDA_VISIBLE_DEVICES=3 HF_TOKEN=<redacted> VLLM_API_KEY=<redacted> VLLM_LOGGING_LEVEL=DEBUG ") {
		t.Errorf("launch command:\n%s", cmd)
	}
	noSecrets(t, p)
}

// BenchmarkRead reads a server started as a separate process: what the
// Server screen does on the UI goroutine when a run starts. Its cost grows
// with the number of open file descriptors on the machine (BENCHMARKS.md).
func BenchmarkRead(b *testing.B) {
	_, port := startServer(b, []string{"serve", "fake/model"}, "VLLM_USE_V1=1")
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for b.Loop() {
		if p := Read(b.Context(), url); p.NotCaptured != "" {
			b.Fatal(p.NotCaptured)
		}
	}
}
