package launch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/servers"
)

// TestStandIn: Speed Matrix's stand-in for vllm serve is known by its own
// flag or by a wrapper script that execs speedmatrix's sim (the repository's
// examples/sweep/vllm among them); vLLM, its other wrappers, a program
// that is no script, Docker and SGLang are not.
func TestStandIn(t *testing.T) {
	dir := t.TempDir()
	script := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrapper := script("vllm-wrapper", "#!/bin/sh\n# runs speedmatrix's simulator\nexec speedmatrix sim \"$@\"\n")
	venv := script("vllm", "#!/opt/venv/bin/python3\n# -*- coding: utf-8 -*-\nimport sys\nfrom vllm.entrypoints.cli.main import main\nsys.exit(main())\n")
	notSim := script("other", "#!/bin/sh\n# speedmatrix run, then serve\nexec vllm serve \"$@\"\n")
	binary := script("binary", "\x7fELF exec speedmatrix sim")
	example, err := filepath.Abs("../../examples/sweep/vllm")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  ServerConfig
		want bool
	}{
		{"the repository's examples/sweep/vllm", ServerConfig{Executable: example}, true},
		{"a wrapper that execs speedmatrix sim", ServerConfig{Executable: wrapper}, true},
		{"its own flag", ServerConfig{Executable: venv, ExtraArgs: []string{"--sim-profile", "tiny"}}, true},
		{"its own flag with =", ServerConfig{ExtraArgs: []string{"--sim-profile=tiny"}}, true},
		{"a venv's vllm", ServerConfig{Executable: venv}, false},
		{"a wrapper of vllm that names speedmatrix", ServerConfig{Executable: notSim}, false},
		{"a program, not a script", ServerConfig{Executable: binary}, false},
		{"no such program", ServerConfig{Executable: filepath.Join(dir, "missing")}, false},
		{"Docker", ServerConfig{Runner: RunnerDocker, Executable: wrapper}, false},
		{"SGLang", ServerConfig{Server: servers.SGLang, Executable: wrapper}, false},
	} {
		if got := StandIn(c.cfg); got != c.want {
			t.Errorf("%s: StandIn = %v, want %v", c.name, got, c.want)
		}
	}

	// It runs on no device of this machine, whatever device says.
	for _, device := range []string{"", DeviceCPU, DeviceGPU} {
		r, _, isCPU := ResolveDevice(ServerConfig{Executable: wrapper, Device: device})
		if r.Device != "" || isCPU || r.OnCPU() {
			t.Errorf("device %q: the stand-in resolves to %q (CPU build %v, on the CPU %v), want no device", device, r.Device, isCPU, r.OnCPU())
		}
	}
}

// TestLaunchedStandInIsSimulated: a launched stand-in is simulated from its
// start, and not on the CPU even with Device CPU (which the app once made
// its users set): no CPU in its Hardware, no backend.
func TestLaunchedStandInIsSimulated(t *testing.T) {
	cfg := fakeConfig(t, "")
	cfg.Device, cfg.ExtraArgs = DeviceCPU, []string{"--sim-profile", "tiny"}
	s, err := launch(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := s.Subject().Header.Server
	h := s.Hardware(engine.HardwareInfo{CPU: "AMD EPYC 7B13"})
	if !s.StandIn() || s.OnCPU() || !e.Simulated || e.Backend != "" || h.OnCPU() || strings.Contains(h.Note, "CPU") {
		t.Errorf("stand-in %v, on the CPU %v, engine %+v, hardware %+v: want simulated, on no CPU, no backend", s.StandIn(), s.OnCPU(), e, h)
	}
}
