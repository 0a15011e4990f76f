package shell

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/run"
	"speedmatrix/app/server"
	"speedmatrix/engine"
	"speedmatrix/engine/runs"
)

// TestStandInIsTheSimulator: the repository's stand-in for vLLM
// (examples/sweep/vllm) is the simulator on the Launch form, by the rule the
// CLI's --launch follows (launch.StandIn): on a machine without a GPU Start
// and Compare settings… are on without Device CPU, and with a Device CPU
// left from before it is still not on the CPU; the target is simulated, the
// Run screen has the badge, and the GPU panel does not say it runs on the
// CPU.
func TestStandInIsTheSimulator(t *testing.T) {
	uiOnly(t)
	standIn, err := filepath.Abs("../../examples/sweep/vllm")
	if err != nil {
		t.Fatal(err)
	}
	d := testDeps(t, &fakeEngine{})
	d.LookPath = onlyFinds(standIn)
	u := newTestUI(t, d, app.Options{})
	u.server.SelectKind(app.TargetVLLM)
	l, f := u.server.Launch, u.server.Form
	f.Model.SetText("speedmatrix/tiny-sim")
	f.Executable.SetText(standIn)
	for _, device := range []string{server.DeviceDetect, server.DeviceCPU} {
		f.Cpu.Device.SetSelected(device)
		st := u.State.Target
		if l.Start.Disabled() || l.CompareBtn.Disabled() || l.Why.Visible() || l.Notes.Text != server.StandInNote {
			t.Errorf("Device %s: Start disabled %v, Compare settings… disabled %v, reason %q, note %q", device, l.Start.Disabled(), l.CompareBtn.Disabled(), l.Why.Text, l.Notes.Text)
		}
		if !st.Simulated || st.OnCPU || !strings.HasPrefix(st.Description, "simulated") || strings.Contains(l.Command.Text, "VLLM_TARGET_DEVICE") {
			t.Errorf("Device %s: target %+v, command %q: want simulated, not on the CPU", device, st, l.Command.Text)
		}
		u.run.ShowPlan()
		if len(u.run.SimBadge.Objects) == 0 || !apptest.HasText(u.run.SimBadge, "simulated") {
			t.Errorf("Device %s: the Run screen has no simulated badge", device)
		}
		if note := u.run.Gauges.Note.Text; strings.Contains(note, "CPU") || !strings.Contains(note, "simulator") {
			t.Errorf("Device %s: the GPU panel says %q", device, note)
		}
	}
}

// TestLaunchedStandInRunsSimulated: a stand-in launched from the form (the
// fake vllm given the stand-in's own flag, with Device CPU) is ready as the
// simulator, not on the CPU, and a run of it begins with the simulated
// badge, before the server has named its profile.
func TestLaunchedStandInRunsSimulated(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "vllm")
	if out, err := exec.Command("go", "build", "-o", exe, "speedmatrix/engine/launch/testdata/fakevllm").CombinedOutput(); err != nil {
		t.Fatalf("build fake vllm: %v\n%s", err, out)
	}
	d := testDeps(t, &fakeEngine{})
	d.LookPath, d.Launcher = onlyFinds(exe), vllmLauncher{}
	u := newTestUI(t, d, app.Options{})
	u.server.SelectKind(app.TargetVLLM)
	l, f := u.server.Launch, u.server.Form
	f.Model.SetText("fake/model")
	f.Executable.SetText(exe)
	f.ExtraArgs.SetText("--sim-profile tiny")
	f.Port.SetText("18531")
	f.Cpu.Device.SetSelected(server.DeviceCPU)
	if l.Start.Disabled() {
		t.Fatalf("Start is off: %q", l.Why.Text)
	}
	l.OnStart()
	waitFor(t, l.Settled, "the stand-in to be ready")
	if !l.Ready {
		t.Fatalf("not ready: %q, banner %q", l.State.Text, u.server.Banner.Current.Message)
	}
	if st := u.State.Target; !st.Simulated || st.OnCPU || !strings.Contains(l.State.Text, "simulator") || !strings.HasPrefix(l.Kv.Text, "Simulated GPU KV cache") {
		t.Errorf("ready stand-in: target %+v, state %q, KV %q", st, l.State.Text, l.Kv.Text)
	}
	target, err := l.Target()
	if err != nil {
		t.Fatal(err)
	}
	if h := target.Header.Hardware; h.OnCPU() || target.Header.Server.Backend != "" {
		t.Errorf("hardware %+v, backend %q: want no CPU, no backend", h, target.Header.Server.Backend)
	}
	if !u.run.Ready(&target, runs.Setup{}, filepath.Join(t.TempDir(), "run")) {
		t.Fatal("the run was refused")
	}
	u.run.Begin(u.State.Plan, target, nil, app.Capacity{})
	if !apptest.HasText(u.run.SimBadge, "simulated") {
		t.Error("a run of the stand-in begins without the simulated badge")
	}
	var e engine.ServerInfo
	e.Simulated, e.SimProfile = true, "tiny"
	u.run.Apply(run.RunUpdate{Report: &engine.Report{Server: e}})
	if !apptest.HasText(u.run.SimBadge, "simulated (profile tiny)") {
		t.Error("the badge does not name the profile once the run has")
	}
}
