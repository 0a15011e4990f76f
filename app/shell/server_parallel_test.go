package shell

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/server"
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
	uiOnly(t)
	d := testDeps(t, &fakeEngine{})
	d.Hardware = fourGPUs
	u := newTestUI(t, d, app.Options{})
	f, l := u.server.Form, u.server.Launch
	if want := []string{"0: RTX 3090 24 GB", "1: RTX 3090 24 GB", "2: RTX 3090 24 GB", "3: RTX 3090 24 GB"}; !slices.Equal(f.Parallel.Gpus.Options, want) {
		t.Fatalf("GPU options %q, want %q", f.Parallel.Gpus.Options, want)
	}
	test.Type(f.Model, "deepseek-ai/DeepSeek-V2-Lite")
	f.Parallel.Gpus.SetSelected([]string{"3: RTX 3090 24 GB", "2: RTX 3090 24 GB"})
	l.OnSuggest(true)
	if f.Tp.Text != "2" {
		t.Errorf("suggested TP %q over 2 picked GPUs, want 2 (the fake suggests one per GPU)", f.Tp.Text)
	}
	f.Parallel.Dp.SetText("1")
	test.Tap(f.Parallel.Ep)
	cfg := f.Config(false)
	if !slices.Equal(cfg.GPUs, []int{2, 3}) || cfg.DataParallelSize != 1 || !cfg.EnableExpertParallel {
		t.Errorf("config GPUs %v, DP %d, EP %v", cfg.GPUs, cfg.DataParallelSize, cfg.EnableExpertParallel)
	}
	if cmd := l.Command.Text; !strings.Contains(cmd, "CUDA_VISIBLE_DEVICES=2,3") || !strings.Contains(cmd, "--tensor-parallel-size 2 --data-parallel-size 1 --enable-expert-parallel") {
		t.Errorf("command = %q", cmd)
	}

	f.Fill(launch.ServerConfig{Model: "m", TensorParallelSize: 4, DistributedExecutorBackend: "ray", RayAddress: "10.0.0.1:6379", GPUs: []int{0, 7}})
	if f.Parallel.Executor.Selected != server.ExecutorRay || f.Parallel.RayAddress.Text != "10.0.0.1:6379" ||
		!slices.Contains(f.Parallel.Gpus.Options, "7 (not detected)") {
		t.Errorf("filled executor %q, Ray address %q, options %q", f.Parallel.Executor.Selected, f.Parallel.RayAddress.Text, f.Parallel.Gpus.Options)
	}
	if cfg := f.Config(false); !slices.Equal(cfg.GPUs, []int{0, 7}) || cfg.DistributedExecutorBackend != "ray" || cfg.RayAddress != "10.0.0.1:6379" {
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
	p := u.server.Form.Parallel
	if len(p.Gpus.Options) != 8 || !p.Gpus.Visible() || p.NoGPU.Visible() {
		t.Fatalf("options %q, check boxes shown %v, 'none detected' shown %v", p.Gpus.Options, p.Gpus.Visible(), p.NoGPU.Visible())
	}
	if w := p.Gpus.MinSize().Width; w > 300 {
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
	f, l := u.server.Form, u.server.Launch
	test.Type(f.Model, "m")
	f.Tp.SetText("2")
	if n := l.Notes.Text; !strings.HasPrefix(n, "Warning: GPU 0 (NVIDIA GeForce RTX 4090, 24 GiB) and GPU 1") || !strings.Contains(n, "Tick identical GPUs") {
		t.Errorf("notes %q: want the mixed-GPU warning", n)
	}
}

// TestLaunchFormWarnsOfEveryInterface: a Host on which the server listens
// on every interface is warned of under the form, with the fix in the
// screen's words, for as long as it is typed there.
func TestLaunchFormWarnsOfEveryInterface(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	f, l := u.server.Form, u.server.Launch
	test.Type(f.Model, "m")
	if l.Everywhere.Visible() {
		t.Errorf("127.0.0.1 is warned of: %q", l.Everywhere.Text)
	}
	f.Host.SetText("0.0.0.0")
	want := "⚠ The server will listen on every network interface (0.0.0.0): whoever reaches this machine on port 8000 can use it, its API key the only guard. Type 127.0.0.1 in Host to keep it to this machine."
	if !l.Everywhere.Visible() || l.Everywhere.Text != want {
		t.Errorf("warning %q (shown %v), want %q", l.Everywhere.Text, l.Everywhere.Visible(), want)
	}
	f.Host.SetText("127.0.0.1")
	if l.Everywhere.Visible() {
		t.Errorf("the warning stays for 127.0.0.1: %q", l.Everywhere.Text)
	}
}
