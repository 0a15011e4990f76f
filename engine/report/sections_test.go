package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// section returns the lines of one section as "Key: Value".
func section(t *testing.T, r engine.Report, title string) []string {
	t.Helper()
	for _, s := range Sections(r) {
		if s.Title == title {
			var lines []string
			for _, row := range s.Rows {
				lines = append(lines, row.Key+": "+row.Value)
			}
			return lines
		}
	}
	t.Fatalf("no %s section", title)
	return nil
}

func TestHardwareSection(t *testing.T) {
	h200 := engine.GPUInfo{Name: "NVIDIA H200", VRAMBytes: 141 << 30}
	cases := []struct {
		name  string
		hw    engine.HardwareInfo
		want  []string
		title string // the GPU part of the line under the title
	}{
		{"one GPU, reference report 003", engine.HardwareInfo{Type: "Discrete GPU", CPU: "AMD Ryzen 9 7900X", CPUCores: 12,
			RAMBytes: 32 << 30, OS: "Ubuntu 24.04.5", GPUs: []engine.GPUInfo{{Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}}},
			[]string{"Type: Discrete GPU", "GPU: RTX 3090", "VRAM: 24 GB", "CPU: AMD Ryzen 9 7900X (12C)", "RAM: 32 GB", "OS: Ubuntu 24.04.5"},
			"RTX 3090 24GB"},
		{"one GPU, reference report 000", engine.HardwareInfo{Type: "Discrete GPU", OS: "linux",
			GPUs: []engine.GPUInfo{{Name: "NVIDIA RTX PRO 6000 Blackwell Server Edition", VRAMBytes: 97887 << 20}}},
			[]string{"Type: Discrete GPU", "GPU: RTX PRO 6000 Blackwell Server Edition", "VRAM: 96 GB", "OS: linux"},
			"RTX PRO 6000 Blackwell Server Edition 96GB"},
		{"identical GPUs are counted, VRAM summed", engine.HardwareInfo{GPUs: []engine.GPUInfo{h200, h200}},
			[]string{"GPU: 2× H200", "VRAM: 282 GB"}, "2× H200 282GB"},
		{"different GPUs are listed", engine.HardwareInfo{GPUs: []engine.GPUInfo{
			{Name: "NVIDIA GeForce RTX 4090", VRAMBytes: 24 << 30}, {Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}}},
			[]string{"GPU: RTX 4090 + RTX 3090", "VRAM: 48 GB"}, "RTX 4090 + RTX 3090 48GB"},
		{"no GPU", engine.HardwareInfo{CPU: "Apple M3", Note: "NVIDIA driver not found"},
			[]string{"CPU: Apple M3", "Note: NVIDIA driver not found"}, ""},
		{"served on the CPU", cpuServed(engine.HardwareInfo{CPU: "AMD EPYC 7B13", CPUCores: 2, RAMBytes: 8 << 30, OS: "Debian 12",
			Note: "no NVIDIA GPU found (libnvidia-ml.so.1 not found)"}),
			[]string{"Type: CPU", "CPU: AMD EPYC 7B13, 2 cores (vLLM CPU build 0.32.0)", "RAM: 8 GB", "OS: Debian 12",
				"Note: The server ran on the CPU: no GPU served the model."}, ""},
		{"served on the CPU of a GPU box", cpuServed(engine.HardwareInfo{Type: "Discrete GPU", CPU: "Intel Xeon Platinum 8480+", CPUCores: 56,
			GPUs: []engine.GPUInfo{h200}}),
			[]string{"Type: CPU", "CPU: Intel Xeon Platinum 8480+, 56 cores (vLLM CPU build 0.32.0)", "Note: The server ran on the CPU: no GPU served the model."}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := engine.Report{Hardware: c.hw}
			if got := section(t, r, "Hardware"); !slices.Equal(got, c.want) {
				t.Errorf("Hardware\n got %q\nwant %q", got, c.want)
			}
			if got := gpuTitle(c.hw); got != c.title {
				t.Errorf("GPUTitle %q, want %q", got, c.title)
			}
		})
	}
}

// cpuServed is h as a server that ran on its CPU describes it.
func cpuServed(h engine.HardwareInfo) engine.HardwareInfo {
	h.ServeOnCPU("vLLM CPU build 0.32.0")
	return h
}

// TestCPUTitles: a run on the CPU is titled and listed by its CPU.
func TestCPUTitles(t *testing.T) {
	r := engine.Report{Hardware: cpuServed(engine.HardwareInfo{CPU: "AMD EPYC 7B13", CPUCores: 2}), Run: engine.RunInfo{Model: "Qwen/Qwen3-0.6B"}}
	if got := ModelOnGPU(r); got != "Qwen3-0.6B on CPU AMD EPYC 7B13" {
		t.Errorf("ModelOnGPU = %q", got)
	}
	if got := summarize(r).GPU; got != "CPU AMD EPYC 7B13" {
		t.Errorf("Summarize GPU = %q", got)
	}
}

// TestSectionsSeedLinesFirst: with every field set, each section starts
// with the reference report page's lines in the reference report's order, and the lines the reference reports
// lack follow.
func TestSectionsSeedLinesFirst(t *testing.T) {
	r := seedReport()
	r.Hardware.CPU, r.Hardware.CPUCores, r.Hardware.RAMBytes, r.Hardware.Note = "AMD Ryzen 9 7900X", 12, 32<<30, "note"
	r.Server.Simulated, r.Server.SimProfile = true, "rtx3090"
	r.Server.MaxModelLen, r.Server.KVCacheTokens, r.Server.MaxNumSeqs = 131072, 600000, 128
	want := map[string][]string{
		"Hardware": {"Type", "GPU", "VRAM", "CPU", "RAM", "OS", "Note"},
		"Engine": {"Engine", "Version", "Quantization", "Backend", "Repository", "Build", "Commit",
			"Simulated", "Max model length", "KV cache", "Max sequences"},
		"Run": {"Served model", "Revision", "Benchmark tool", "Decode test", "Prefill mode", "Time per measurement",
			"Max output", "Model", "API", "Endpoint", "Started", "Finished", "Complete"},
	}
	var titles []string
	for _, s := range Sections(r) {
		titles = append(titles, s.Title)
		var keys []string
		for _, row := range s.Rows {
			keys = append(keys, row.Key)
		}
		if !slices.Equal(keys, want[s.Title]) {
			t.Errorf("%s keys\n got %q\nwant %q", s.Title, keys, want[s.Title])
		}
	}
	if !slices.Equal(titles, []string{"Hardware", "Engine", "Run"}) {
		t.Errorf("sections %q", titles)
	}
	eng := section(t, r, "Engine")
	if !slices.Contains(eng, "Simulated: simulated (profile rtx3090)") || !slices.Contains(eng, "KV cache: 600,000 tokens") {
		t.Errorf("Engine %q", eng)
	}
}

func TestRunSection(t *testing.T) {
	run := engine.RunInfo{ServedModel: "bench", Model: "bench", DurationS: 30, MaxOutputTokens: 8192,
		StartedAt: time.Date(2026, 5, 1, 14, 0, 0, 0, time.FixedZone("CEST", 2*3600))}
	got := section(t, engine.Report{Run: run}, "Run")
	want := []string{"Served model: bench", "Time per measurement: 30 s", "Max output: 8,192 tokens",
		"Started: 2026-05-01 12:00:00 UTC", "Complete: no (partial run: resume it to measure the rest)"}
	if !slices.Equal(got, want) {
		t.Errorf("Run\n got %q\nwant %q", got, want)
	}
}

func TestModelOnGPU(t *testing.T) {
	r := engine.Report{Run: engine.RunInfo{Model: "RedHatAI/gemma-4-26B-A4B-it-NVFP4"},
		Hardware: engine.HardwareInfo{CPU: "AMD Ryzen 9 7900X",
			GPUs: []engine.GPUInfo{{Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}}}}
	if got := ModelOnGPU(r); got != "gemma-4-26B-A4B-it-NVFP4 on RTX 3090 24GB" {
		t.Errorf("ModelOnGPU %q", got)
	}
	r.Hardware.GPUs = nil
	if got := ModelOnGPU(r); got != "gemma-4-26B-A4B-it-NVFP4 on AMD Ryzen 9 7900X" {
		t.Errorf("ModelOnGPU without a GPU %q", got)
	}
	if md := Markdown(r); !strings.Contains(md, "| CPU | AMD Ryzen 9 7900X |\n") {
		t.Errorf("report.md lacks the CPU line:\n%s", md)
	}
}

// TestServedOnNamesTheServersHardware: the title names what served the
// model as far as the report knows, never the measuring machine's CPU for
// a server it did not serve; the Hardware section says whose hardware it
// describes; a report from before Whose reads as it did.
func TestServedOnNamesTheServersHardware(t *testing.T) {
	run := engine.RunInfo{Model: "speedmatrix/tiny-sim"}
	rig := []engine.GPUInfo{{Name: "Simulated GPU", VRAMBytes: 8 << 30}}
	for _, tc := range []struct {
		name  string
		h     engine.HardwareInfo
		title string
		whose string
	}{
		{"remote, no exporters", engine.HardwareInfo{Whose: engine.HardwareOfRemote}, "tiny-sim · remote server, hardware unknown",
			"a remote server's: not known here (the measuring machine's is not the server's)"},
		{"remote with exporters", engine.HardwareInfo{Whose: engine.HardwareOfRemote, GPUs: []engine.GPUInfo{{Name: "NVIDIA H100", VRAMBytes: 80 << 30, Host: "node1"}}},
			"tiny-sim on H100 80GB", "a remote server's: its GPUs as its DCGM exporters report them; the rest is not known here"},
		{"the simulator's rig", engine.HardwareInfo{Whose: engine.HardwareOfSimulator, GPUs: rig}, "tiny-sim on Simulated GPU 8GB",
			"the simulator's model of a rig: no GPU was used"},
		{"the simulator, rig unknown", engine.HardwareInfo{Whose: engine.HardwareOfSimulator}, "tiny-sim on the simulator (profile tiny)",
			"the simulator's model of a rig: no GPU was used"},
		{"this machine without a GPU", engine.HardwareInfo{Whose: engine.HardwareOfServer, CPU: "AMD EPYC 7B13"}, "tiny-sim on this machine (AMD EPYC 7B13, no GPU)",
			"the server's: it ran on the machine that measured it"},
		{"written before Whose", engine.HardwareInfo{CPU: "AMD EPYC 7B13"}, "tiny-sim on AMD EPYC 7B13", ""},
	} {
		r := engine.Report{Run: run, Hardware: tc.h, Server: engine.ServerInfo{Simulated: true, SimProfile: "tiny"}}
		if got := ModelOnGPU(r); got != tc.title {
			t.Errorf("%s: title %q, want %q", tc.name, got, tc.title)
		}
		want := strings.TrimPrefix(strings.TrimPrefix(tc.title, "tiny-sim on "), "tiny-sim · ")
		if tc.h.Whose == "" {
			want = "" // History named no GPU, and names none
		}
		if got := summarize(r).GPU; got != want {
			t.Errorf("%s: History names %q", tc.name, got)
		}
		rows := section(t, r, "Hardware")
		if has := slices.Contains(rows, "Whose: "+tc.whose); has != (tc.whose != "") {
			t.Errorf("%s: Hardware section %q, want Whose %q", tc.name, rows, tc.whose)
		}
	}
}
