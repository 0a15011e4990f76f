package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	fakeOnce sync.Once
	fakeDir  string
	fakeExe  string
	fakeErr  error
)

func TestMain(m *testing.M) {
	RunGuardIfAsked() // the launch tests re-execute this binary as a guard
	if os.Getenv(helperEnv) != "" {
		os.Exit(launchHelper())
	}
	readyPoll = 20 * time.Millisecond
	code := m.Run()
	if fakeDir != "" {
		os.RemoveAll(fakeDir)
	}
	os.Exit(code)
}

// fakeVLLM builds testdata/fakevllm once per test binary, as venv/bin/vllm.
func fakeVLLM(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		if fakeDir, fakeErr = os.MkdirTemp("", "fakevllm"); fakeErr != nil {
			return
		}
		fakeExe = filepath.Join(fakeDir, "venv", "bin", "vllm")
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		}
		out, err := exec.Command(goBin, "build", "-o", fakeExe, "./testdata/fakevllm").CombinedOutput()
		if err != nil {
			fakeErr = fmt.Errorf("build fake vllm: %v\n%s", err, out)
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeExe
}

// helperEnv holds the JSON ServerConfig that launchHelper launches.
const helperEnv = "VLLM_TEST_LAUNCH_HELPER"

// launchHelper stands in for speedmatrix in a process of its own: it
// launches the server of helperEnv, prints its log lines and "ready", and
// waits to be killed.
func launchHelper() int {
	var cfg ServerConfig
	if err := json.Unmarshal([]byte(os.Getenv(helperEnv)), &cfg); err != nil {
		fmt.Println("error:", err)
		return 2
	}
	s, err := Start(context.Background(), cfg)
	if err != nil {
		fmt.Println("error:", strings.ReplaceAll(err.Error(), "\n", " | "))
		return 1
	}
	for _, l := range s.Logs() {
		fmt.Println("log:", l)
	}
	fmt.Println("ready")
	select {}
}

// fakeDockerOnPath puts a `docker` that is the fake vllm (see its docker.go)
// first on the PATH for the rest of t; it returns the file the fake logs
// its commands to.
func fakeDockerOnPath(t *testing.T, mode string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(fakeVLLM(t), filepath.Join(dir, "docker")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	log := filepath.Join(dir, "docker.log")
	t.Setenv("FAKEDOCKER_LOG", log)
	t.Setenv("FAKEDOCKER_MODE", mode)
	return log
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// fakeConfig runs the fake vllm in mode, with FAKEVLLM_* variables in env.
func fakeConfig(t *testing.T, mode string, env ...string) ServerConfig {
	cfg := ServerConfig{Executable: fakeVLLM(t), Model: "fake/model", ServedModelName: "bench", Port: freePort(t),
		StopGrace: 5 * time.Second, StartupTimeout: time.Minute, LogDir: t.TempDir(),
		Env: map[string]string{"FAKEVLLM_MODE": mode}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		cfg.Env[k] = v
	}
	return cfg
}

// launch starts cfg's server and waits for it; after the test it stops the
// server and checks that no process of its group is left.
func launch(t *testing.T, ctx context.Context, cfg ServerConfig) (*Server, error) {
	t.Helper()
	s, err := Launch(ctx, cfg)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if groupAlive(s.pgid) {
			t.Errorf("process group %d is still alive after Stop", s.pgid)
		}
	})
	return s, s.WaitReady(ctx)
}

// checkKeyRequired: the server answers /v1/models to key, and not to another.
func checkKeyRequired(t *testing.T, s *Server, key string) {
	t.Helper()
	for auth, want := range map[string]int{"Bearer " + key: 200, "Bearer wrong": 401} {
		req, _ := http.NewRequest("GET", s.baseURL()+"/v1/models", nil)
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("/v1/models with %q: %d, want %d", auth, resp.StatusCode, want)
		}
	}
}

func waitExit(t *testing.T, s *Server) {
	t.Helper()
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("server did not exit")
	}
}

func TestStartReady(t *testing.T) {
	cfg := fakeConfig(t, "", "FAKEVLLM_CHILD=1")
	s, err := Launch(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	s.Subscribe(func(l string) { mu.Lock(); seen = append(seen, l); mu.Unlock() })
	t.Cleanup(func() { _ = s.Stop() })
	if err := s.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	key := s.config().APIKey
	if !strings.HasPrefix(key, "sm-") {
		t.Fatalf("no API key generated: %q", key)
	}
	checkKeyRequired(t, s, key)
	checkEngineInfo(t, s)
	checkLogs(t, s, key)
	mu.Lock()
	if !strings.Contains(strings.Join(seen, "\n"), "Application startup complete") {
		t.Errorf("subscriber saw %d lines, not the start-up line", len(seen))
	}
	mu.Unlock()

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if groupAlive(s.pgid) {
		t.Errorf("group %d (server and engine core child) alive after Stop", s.pgid)
	}
	if err := s.alive(); !errors.Is(err, ErrStopped) {
		t.Errorf("Alive after Stop = %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop = %v", err)
	}
}

func checkEngineInfo(t *testing.T, s *Server) {
	t.Helper()
	tg := s.Subject()
	e := tg.Header.Server
	if e.Name != "vllm" || e.Version != "0.30.1rc1.dev452+g73a583112" || e.Commit != "73a583112" || e.Backend != "cuda" ||
		e.Quantization != "BF16" || e.Repository != "github.com/vllm-project/vllm" || e.Build != filepath.Join(fakeDir, "venv") ||
		e.KVCacheTokens <= 0 || e.KVCacheTokens != s.Facts().KVCacheTokens || e.MaxModelLen != s.Facts().ConcurrencyTokens || e.MaxModelLen <= 0 {
		t.Errorf("ServerInfo = %+v", e)
	}
	if tg.BaseURL != s.baseURL() || tg.APIKey != s.config().APIKey || tg.Model != "bench" || tg.Alive() != nil ||
		tg.Header.Run.Model != "fake/model" || !strings.Contains(tg.Header.LaunchCommand, "--api-key <redacted>") {
		t.Errorf("Target = %+v", tg)
	}
}

func checkLogs(t *testing.T, s *Server, key string) {
	t.Helper()
	logs := strings.Join(s.Logs(), "\n")
	b, err := os.ReadFile(s.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{logs, string(b)} {
		if !strings.Contains(text, "GPU KV cache size:") || !strings.Contains(text, "Application startup complete") {
			t.Errorf("log lacks start-up lines:\n%s", text)
		}
		if strings.Contains(text, key) {
			t.Error("log shows the API key")
		}
	}
	if filepath.Dir(s.LogPath()) != s.config().LogDir {
		t.Errorf("log file %s not in %s", s.LogPath(), s.config().LogDir)
	}
}

func TestStartFailures(t *testing.T) {
	tests := []struct {
		name, mode string
		timeout    time.Duration
		kind       FatalKind // "" when none is recognised
		want       []string  // in the error
	}{
		{"out of memory", "oom", time.Minute, FatalOutOfMemory,
			[]string{"exited (exit status 1) before it was ready", "lower --gpu-memory-utilization", "EngineCore failed to start"}},
		{"exits at once", "exit", time.Minute, "", []string{"exited (exit status 3)", "fakevllm: exiting at once"}},
		{"never ready", "hang", 500 * time.Millisecond, "",
			[]string{"was not ready after 500ms", "raise startup_timeout", "Capturing CUDA graphs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeConfig(t, tt.mode, "FAKEVLLM_CHILD=1")
			cfg.StartupTimeout = tt.timeout
			_, err := launch(t, context.Background(), cfg)
			var se *ServerError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *ServerError", err)
			}
			if (se.Fatal == nil) != (tt.kind == "") || (se.Fatal != nil && se.Fatal.Kind != tt.kind) {
				t.Errorf("Fatal = %+v, want kind %q", se.Fatal, tt.kind)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if len(se.LastLines) == 0 || len(se.LastLines) > errLines {
				t.Errorf("%d last lines", len(se.LastLines))
			}
		})
	}
}

func TestDiesMidRun(t *testing.T) {
	s, err := launch(t, context.Background(), fakeConfig(t, "die", "FAKEVLLM_CHILD=1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.alive(); err != nil {
		t.Fatalf("Alive = %v", err)
	}
	if resp, err := http.Get(s.baseURL() + "/fake/die"); err == nil {
		resp.Body.Close()
	}
	waitExit(t, s)
	err = s.alive()
	var se *ServerError
	if !errors.As(err, &se) || se.Fatal == nil || se.Fatal.Kind != FatalOutOfMemory || !strings.Contains(err.Error(), "exited (exit status 1) while running") {
		t.Errorf("Alive = %v", err)
	}
	if groupAlive(s.pgid) {
		t.Error("the dead server's engine core child is still running")
	}
	if again := s.alive(); again != err {
		t.Errorf("second Alive = %v, want the same error", again)
	}
}

func TestStopEscalatesToKill(t *testing.T) {
	cfg := fakeConfig(t, "stubborn", "FAKEVLLM_CHILD=1")
	cfg.StopGrace = 200 * time.Millisecond
	s, err := launch(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	// Ignoring SIGINT and SIGTERM, it can only have died of SIGKILL after both graces.
	if d := time.Since(start); d < 2*cfg.StopGrace {
		t.Errorf("Stop took %v, less than two grace periods", d)
	}
	if groupAlive(s.pgid) {
		t.Error("group alive after Stop")
	}
	if !strings.Contains(s.cmd.ProcessState.String(), "killed") {
		t.Errorf("process ended with %v, want killed", s.cmd.ProcessState)
	}
}

func TestContextEndStopsServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, err := launch(t, ctx, fakeConfig(t, "", "FAKEVLLM_CHILD=1"))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	waitExit(t, s)
	if err := s.Stop(); err != nil || groupAlive(s.pgid) {
		t.Errorf("Stop = %v, group alive %v", err, groupAlive(s.pgid))
	}
	if err := s.alive(); !errors.Is(err, ErrStopped) {
		t.Errorf("Alive = %v", err)
	}
}

func TestCancelDuringStartup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := fakeConfig(t, "hang", "FAKEVLLM_CHILD=1")
	s, err := Launch(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Subscribe(func(l string) {
		if strings.Contains(l, "Capturing CUDA graphs") {
			cancel()
		}
	})
	err = s.WaitReady(ctx)
	if !errors.Is(err, context.Canceled) && !errors.Is(err, ErrStopped) {
		t.Errorf("WaitReady = %v, want cancelled", err)
	}
	if err := s.Stop(); err != nil || groupAlive(s.pgid) {
		t.Errorf("Stop = %v, group alive %v", err, groupAlive(s.pgid))
	}
}

func TestPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := fakeConfig(t, "")
	cfg.Port = ln.Addr().(*net.TCPAddr).Port
	s, err := Launch(context.Background(), cfg)
	var se *SetupError
	if s != nil || !errors.As(err, &se) || se.Kind != SetupPortInUse || !strings.Contains(err.Error(), "already in use") ||
		!strings.Contains(err.Error(), "choose another port") {
		t.Errorf("Launch = %v, %v", s, err)
	}
	if entries, _ := os.ReadDir(cfg.LogDir); len(entries) != 0 {
		t.Error("a server was launched: its log file exists")
	}
}

func TestMissingExecutable(t *testing.T) {
	cfg := ServerConfig{Executable: filepath.Join(t.TempDir(), "no-vllm"), Model: "m", Port: freePort(t)}
	var se *SetupError
	if _, err := Launch(context.Background(), cfg); !errors.As(err, &se) || se.Kind != SetupNoExecutable || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Launch = %v", err)
	}
	cfg.Model = ""
	if _, err := Start(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "model is empty") {
		t.Errorf("Start = %v", err)
	}
}
