package shell

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/hw"
)

var fourGPUs = fakeHardware{info: engine.HardwareInfo{Type: hw.TypeDiscreteGPU, CPU: "Test CPU", GPUs: []engine.GPUInfo{
	{Index: 0, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}, {Index: 1, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30},
	{Index: 2, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}, {Index: 3, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}}}}

// TestLaunchFormParallel: the Launch form lists the detected GPUs to pick
// from, takes data and expert parallelism and a Ray cluster, shows them on
// the command, and suggests over the picked GPUs only.
func TestLaunchFormParallel(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Hardware = fourGPUs
	u := newTestUI(t, d, app.Options{})
	f, l := u.server.form, u.server.launch
	if want := []string{"0: RTX 3090 24 GB", "1: RTX 3090 24 GB", "2: RTX 3090 24 GB", "3: RTX 3090 24 GB"}; !slices.Equal(f.parallel.gpus.Options, want) {
		t.Fatalf("GPU options %q, want %q", f.parallel.gpus.Options, want)
	}
	test.Type(f.model, "deepseek-ai/DeepSeek-V2-Lite")
	f.parallel.gpus.SetSelected([]string{"3: RTX 3090 24 GB", "2: RTX 3090 24 GB"})
	l.onSuggest(true)
	if f.tp.Text != "2" {
		t.Errorf("suggested TP %q over 2 picked GPUs, want 2 (the fake suggests one per GPU)", f.tp.Text)
	}
	f.parallel.dp.SetText("1")
	test.Tap(f.parallel.ep)
	cfg := f.config(false)
	if !slices.Equal(cfg.GPUs, []int{2, 3}) || cfg.DataParallelSize != 1 || !cfg.EnableExpertParallel {
		t.Errorf("config GPUs %v, DP %d, EP %v", cfg.GPUs, cfg.DataParallelSize, cfg.EnableExpertParallel)
	}
	if cmd := l.command.Text; !strings.Contains(cmd, "CUDA_VISIBLE_DEVICES=2,3") || !strings.Contains(cmd, "--tensor-parallel-size 2 --data-parallel-size 1 --enable-expert-parallel") {
		t.Errorf("command = %q", cmd)
	}

	f.fill(launch.ServerConfig{Model: "m", TensorParallelSize: 4, DistributedExecutorBackend: "ray", RayAddress: "10.0.0.1:6379", GPUs: []int{0, 7}})
	if f.parallel.executor.Selected != executorRay || f.parallel.rayAddress.Text != "10.0.0.1:6379" ||
		!slices.Contains(f.parallel.gpus.Options, "7 (not detected)") {
		t.Errorf("filled executor %q, Ray address %q, options %q", f.parallel.executor.Selected, f.parallel.rayAddress.Text, f.parallel.gpus.Options)
	}
	if cfg := f.config(false); !slices.Equal(cfg.GPUs, []int{0, 7}) || cfg.DistributedExecutorBackend != "ray" || cfg.RayAddress != "10.0.0.1:6379" {
		t.Errorf("round trip: GPUs %v, backend %q, address %q", cfg.GPUs, cfg.DistributedExecutorBackend, cfg.RayAddress)
	}
}

// TestLaunchFormGPUPickFitsEightGPUs: eight GPUs to pick from stack up
// instead of widening the form.
func TestLaunchFormGPUPickFitsEightGPUs(t *testing.T) {
	var gpus []engine.GPUInfo
	for i := range 8 {
		gpus = append(gpus, engine.GPUInfo{Index: i, Name: "NVIDIA H200", VRAMBytes: 141 << 30})
	}
	d := testDeps(t, &fakeEngine{})
	d.Hardware = fakeHardware{info: engine.HardwareInfo{Type: hw.TypeDiscreteGPU, GPUs: gpus}}
	u := newTestUI(t, d, app.Options{})
	p := u.server.form.parallel
	if len(p.gpus.Options) != 8 || !p.gpus.Visible() || p.noGPU.Visible() {
		t.Fatalf("options %q, check boxes shown %v, 'none detected' shown %v", p.gpus.Options, p.gpus.Visible(), p.noGPU.Visible())
	}
	if w := p.gpus.MinSize().Width; w > 300 {
		t.Errorf("the GPU pick is %.0f wide: want the eight stacked, not side by side", w)
	}
}

// TestLaunchFormWarnsOfMixedGPUs: tensor parallel over different GPUs is
// warned of in the form's notes, in the screen's words.
func TestLaunchFormWarnsOfMixedGPUs(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Hardware = fakeHardware{info: engine.HardwareInfo{Type: hw.TypeDiscreteGPU, GPUs: []engine.GPUInfo{
		{Index: 0, Name: "NVIDIA GeForce RTX 4090", VRAMBytes: 24 << 30}, {Index: 1, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}}}}
	u := newTestUI(t, d, app.Options{})
	f, l := u.server.form, u.server.launch
	test.Type(f.model, "m")
	f.tp.SetText("2")
	if n := l.notes.Text; !strings.HasPrefix(n, "Warning: GPU 0 (NVIDIA GeForce RTX 4090, 24 GiB) and GPU 1") || !strings.Contains(n, "Tick identical GPUs") {
		t.Errorf("notes %q: want the mixed-GPU warning", n)
	}
}

// TestLaunchFormWarnsOfEveryInterface: a Host on which the server listens
// on every interface is warned of under the form, with the fix in the
// screen's words, for as long as it is typed there.
func TestLaunchFormWarnsOfEveryInterface(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	f, l := u.server.form, u.server.launch
	test.Type(f.model, "m")
	if l.everywhere.Visible() {
		t.Errorf("127.0.0.1 is warned of: %q", l.everywhere.Text)
	}
	f.host.SetText("0.0.0.0")
	want := "⚠ The server will listen on every network interface (0.0.0.0): whoever reaches this machine on port 8000 can use it, its API key the only guard. Type 127.0.0.1 in Host to keep it to this machine."
	if !l.everywhere.Visible() || l.everywhere.Text != want {
		t.Errorf("warning %q (shown %v), want %q", l.everywhere.Text, l.everywhere.Visible(), want)
	}
	f.host.SetText("127.0.0.1")
	if l.everywhere.Visible() {
		t.Errorf("the warning stays for 127.0.0.1: %q", l.everywhere.Text)
	}
}
