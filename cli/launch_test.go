package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine/vllm"
	"speedmatrix/hw"
)

// buildFakeVLLM builds engine/vllm's fake `vllm` (it serves engine/sim).
func buildFakeVLLM(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "bin", "vllm")
	out, err := exec.Command("go", "build", "-o", exe, "speedmatrix/engine/vllm/testdata/fakevllm").CombinedOutput()
	if err != nil {
		t.Fatalf("build fake vllm: %v\n%s", err, out)
	}
	return exe
}

func serverTOML(t *testing.T, exe, mode string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	path := filepath.Join(t.TempDir(), "server.toml")
	text := fmt.Sprintf("executable = %q\nmodel = \"fake/model\"\nserved_model_name = \"bench\"\nport = %d\nlog_dir = %q\nstartup_timeout = \"1m\"\n[env]\nFAKEVLLM_MODE = %q\n",
		exe, port, t.TempDir(), mode)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLaunchTarget(t *testing.T) {
	hwCanned(t, hwCanned3090, nil)
	exe := buildFakeVLLM(t)
	var stderr strings.Builder
	tg, stop, err := cliFor(t).launchTarget(context.Background(), serverTOML(t, exe, ""), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	e := tg.Header.Engine
	if tg.Model != "bench" || tg.APIKey == "" || e.Engine != "vllm" || e.Commit != "73a583112" || e.KVCacheTokens <= 0 ||
		!strings.Contains(tg.Header.LaunchCommand, "--api-key <redacted>") || strings.Contains(tg.Header.LaunchCommand, tg.APIKey) ||
		len(tg.Header.Hardware.GPUs) != 1 || tg.Telemetry == nil {
		t.Errorf("target = %+v", tg)
	}
	if err := tg.Alive(); err != nil {
		t.Errorf("Alive = %v", err)
	}
	log := stderr.String()
	if !strings.Contains(log, "vllm| ") || !strings.Contains(log, "GPU KV cache size") || !strings.Contains(log, "is ready at") || strings.Contains(log, tg.APIKey) {
		t.Errorf("stderr:\n%s", log)
	}
	stop()
	stopped = true
	if err := tg.Alive(); !errors.Is(err, vllm.ErrStopped) {
		t.Errorf("Alive after stop = %v", err)
	}
}

func TestLaunchTargetErrors(t *testing.T) {
	hwCanned(t, hw.Hardware{}, hw.ErrNoNVML)
	exe := buildFakeVLLM(t)
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("model = \"m\"\nmax_model_length = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, want string }{
		{"unknown key", bad, `unknown key "max_model_length"`},
		{"out of memory", serverTOML(t, exe, "oom"), "the GPU ran out of memory"},
	}
	c := cliFor(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stop, err := c.launchTarget(context.Background(), tt.path, &strings.Builder{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || stop != nil {
				t.Errorf("launchTarget = %v (stop %v), want %q", err, stop != nil, tt.want)
			}
		})
	}
}
