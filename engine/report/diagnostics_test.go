package report

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// capturedReport is seedReport measured against a server started by hand
// on a two-GPU PCIe machine, with the diagnostics of that machine.
func capturedReport() engine.Report {
	r := seedReport()
	r.Process = &engine.ServerProcess{PID: 4242, UID: 1000, User: "alice", From: "/proc/4242",
		Command:   []string{"/home/alice/venv/bin/vllm", "serve", "RedHatAI/gemma-4-E2B-it", "--api-key", "<redacted>"},
		Env:       map[string]string{"VLLM_API_KEY": "<redacted>", "CUDA_VISIBLE_DEVICES": "0,1"},
		StartedAt: time.Date(2026, 5, 1, 11, 58, 3, 0, time.UTC), ServerVersion: "0.30.1rc1.dev452+g73a583112"}
	r.LaunchCommand = "# started 2026-05-01 11:58:03 UTC by alice (pid 4242), read from /proc/4242\n" +
		`env CUDA_VISIBLE_DEVICES=0,1 VLLM_API_KEY=<redacted> "$HOME/venv/bin/vllm" serve RedHatAI/gemma-4-E2B-it --api-key <redacted>`
	r.Diagnostics = &engine.Diagnostics{Hostname: "gpu-box", OS: "Ubuntu 24.04.5 LTS",
		Uname:  "Linux gpu-box 6.8.0-49-generic #49-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024 x86_64",
		NVIDIA: engine.NVIDIAInfo{DriverVersion: "595.99.02", CUDAVersion: "13.2"},
		Topology: &engine.Topology{
			GPUs: []engine.TopologyGPU{{Index: 0, Name: "NVIDIA GeForce RTX 3090", PCIBusID: "00000000:01:00.0"},
				{Index: 1, Name: "NVIDIA GeForce RTX 3090", PCIBusID: "00000000:02:00.0"}},
			Links: []engine.GPULink{{GPUs: [2]int{0, 1}, Path: "PHB", P2P: "not supported by the chipset"}},
		},
		Env: map[string]string{"HF_TOKEN": "<redacted>", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}}
	return r
}

func TestGoldenCaptured(t *testing.T) {
	r := capturedReport()
	js, err := JSON(r)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "captured.report.json", js)
	golden(t, "captured.report.md", []byte(Markdown(r)))
	dir := filepath.Join(t.TempDir(), "run")
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	if got, err := Load(dir); err != nil || !reflect.DeepEqual(got, r) {
		t.Errorf("the server process and diagnostics do not load back as saved: %v", err)
	}
}

func TestDiagnosticsRows(t *testing.T) {
	tests := []struct {
		name string
		d    engine.Diagnostics
		want []string
	}{
		{"no NVIDIA driver", engine.Diagnostics{OS: "Debian GNU/Linux 12", NVIDIA: engine.NVIDIAInfo{Note: "NVIDIA driver not found: libnvidia-ml.so.1"}},
			[]string{"OS: Debian GNU/Linux 12", "NVIDIA driver: none (NVIDIA driver not found: libnvidia-ml.so.1)", "Environment: none of VLLM_*, CUDA_*, NCCL_*, TORCH_*, HF_* set"}},
		{"driver without CUDA", engine.Diagnostics{NVIDIA: engine.NVIDIAInfo{DriverVersion: "550.54.15"},
			Topology: &engine.Topology{GPUs: []engine.TopologyGPU{{Index: 0, Name: "NVIDIA H200"}}}, Env: map[string]string{"VLLM_USE_V1": "1", "HF_HOME": "/data/hf"}},
			[]string{"NVIDIA driver: 550.54.15", "GPUs: GPU0 NVIDIA H200", "Environment: HF_HOME=/data/hf VLLM_USE_V1=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range diagnosticsRows(tt.d) {
				got = append(got, r.Key+": "+r.Value)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	var b strings.Builder
	writeDiagnostics(&b, &tests[1].d)
	if strings.Contains(b.String(), "GPU connections") {
		t.Errorf("one GPU has no connections to show:\n%s", b.String())
	}
}
