package shell

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/server"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/servers"
)

// onlyFinds is a lookPath that finds the programs named, and nothing else.
func onlyFinds(programs ...string) func(string) (string, error) {
	return func(file string) (string, error) {
		for _, p := range programs {
			if p == file {
				return file, nil
			}
		}
		return "", exec.ErrNotFound
	}
}

func TestStartBlocker(t *testing.T) {
	docker := launch.ServerConfig{Runner: launch.RunnerDocker}
	tests := []struct {
		name                string
		gpu, onCPU, standIn bool
		cfg                 launch.ServerConfig
		finds               []string
		want                string // in the reason; "" when Start can launch
	}{
		{"no GPU", false, false, false, launch.ServerConfig{}, []string{"vllm", "docker"}, "needs an NVIDIA GPU or vLLM's CPU build"},
		{"no GPU, vLLM's CPU build", false, true, false, launch.ServerConfig{}, []string{"vllm"}, ""},
		{"no GPU, Device GPU", false, false, false, launch.ServerConfig{Device: launch.DeviceGPU}, []string{"vllm"}, "set Device to Detect or CPU"},
		{"no GPU, the stand-in for vLLM (the simulator)", false, false, true, launch.ServerConfig{Executable: "examples/sweep/vllm"}, []string{"examples/sweep/vllm"}, ""},
		{"no GPU, the stand-in, Device GPU", false, false, true, launch.ServerConfig{Executable: "examples/sweep/vllm", Device: launch.DeviceGPU}, []string{"examples/sweep/vllm"}, ""},
		{"no GPU, SGLang", false, false, false, launch.ServerConfig{Server: servers.SGLang}, []string{"python3"}, "needs an NVIDIA GPU for SGLang"},
		{"no GPU, no vllm", false, false, false, launch.ServerConfig{}, []string{"docker"}, "vllm is not on the PATH"},
		{"vllm not on PATH", true, false, false, launch.ServerConfig{}, []string{"docker"}, "vllm is not on the PATH: install it (pip install vllm)"},
		{"vllm found", true, false, false, launch.ServerConfig{}, []string{"vllm"}, ""},
		{"venv path missing", true, false, false, launch.ServerConfig{Executable: "/opt/venv/bin/vllm"}, []string{"vllm"}, "/opt/venv/bin/vllm is not a program"},
		{"venv path found", true, false, false, launch.ServerConfig{Executable: "/opt/venv/bin/vllm"}, []string{"/opt/venv/bin/vllm"}, ""},
		{"docker missing", true, false, false, docker, []string{"vllm"}, "needs Docker"},
		{"docker found", true, false, false, docker, []string{"docker"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := server.StartBlocker(tt.gpu, tt.onCPU, tt.standIn, tt.cfg, onlyFinds(tt.finds...)).String()
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("startBlocker = %q, want %q", got, tt.want)
			}
			if strings.Contains(got, "--") {
				t.Errorf("the reason names a flag: %q", got)
			}
		})
	}
}

func TestLaunchStartDisabledWithTheReason(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	l := u.server.Launch
	u.server.SelectKind(app.TargetVLLM)
	if !l.Start.Disabled() || !l.Why.Visible() || !strings.Contains(l.Why.Text, "NVIDIA GPU") {
		t.Errorf("without a GPU: Start disabled %v, reason %q", l.Start.Disabled(), l.Why.Text)
	}

	d := testDeps(t, &fakeEngine{})
	d.Hardware, d.LookPath = oneGPU, onlyFinds("/opt/venv/bin/vllm")
	u = newTestUI(t, d, app.Options{})
	l, f := u.server.Launch, u.server.Form
	f.Model.SetText("Qwen/Qwen3-0.6B")
	if !l.Start.Disabled() || !strings.Contains(l.Why.Text, "vllm is not on the PATH") {
		t.Errorf("without vllm: Start disabled %v, reason %q", l.Start.Disabled(), l.Why.Text)
	}
	l.OnStart() // a shortcut or a test may still call it
	if l.Up() || !l.Why.Visible() || !strings.Contains(l.Why.Text, "vllm is not on the PATH") || l.State.Text != "Not running." {
		t.Errorf("Start without vllm: up %v, reason %q, state %q", l.Up(), l.Why.Text, l.State.Text)
	}
	f.Executable.SetText("/opt/venv/bin/vllm")
	if l.Start.Disabled() || l.Why.Visible() {
		t.Errorf("with vllm found: Start disabled %v, reason %q", l.Start.Disabled(), l.Why.Text)
	}
}

// TestCompareSettingsFollowsStart: Compare settings… starts servers as
// Start does, so it is off while Start is blocked, with the reason beside
// them; tapping it then adds no second, bold copy of the reason; and once
// the cause is fixed (Device CPU, on a machine without a GPU) both are on
// and no reason is left on the screen.
func TestCompareSettingsFollowsStart(t *testing.T) {
	uiOnly(t)
	d := testDeps(t, &fakeEngine{})
	d.LookPath = onlyFinds("vllm")
	u := newTestUI(t, d, app.Options{})
	u.Show(app.TabServer)
	u.server.SelectKind(app.TargetVLLM)
	l, f := u.server.Launch, u.server.Form
	f.Model.SetText("Qwen/Qwen3-0.6B")
	if !l.Start.Disabled() || !l.CompareBtn.Disabled() || !l.Why.Visible() || !strings.Contains(l.Why.Text, "no GPU") {
		t.Fatalf("without a GPU or a CPU build: Start disabled %v, Compare settings… disabled %v, reason %q (shown %v)",
			l.Start.Disabled(), l.CompareBtn.Disabled(), l.Why.Text, l.Why.Visible())
	}
	test.Tap(l.CompareBtn)
	l.OnCompare() // a shortcut or a test may still call it
	if l.Compare != nil || l.State.Text != "Not running." {
		t.Errorf("Compare settings… while Start is blocked: dialog %v, state %q", l.Compare != nil, l.State.Text)
	}
	f.Cpu.Device.SetSelected(server.DeviceCPU)
	if l.Start.Disabled() || l.CompareBtn.Disabled() || l.Why.Visible() {
		t.Errorf("with Device CPU: Start disabled %v, Compare settings… disabled %v, reason %q (shown %v)",
			l.Start.Disabled(), l.CompareBtn.Disabled(), l.Why.Text, l.Why.Visible())
	}
	if strings.Contains(l.State.Text, "GPU") || l.State.Text != "Not running." {
		t.Errorf("after the cause is fixed the state line says %q", l.State.Text)
	}
}

// TestLaunchFormLayout looks at the Server screen with "Launch a server" at the
// smallest and a large window: the labels of every section share one
// column, no field runs under the scroll bar or the divider, and the
// command wraps only at spaces.
func TestLaunchFormLayout(t *testing.T) {
	uiOnly(t)
	for _, size := range []fyne.Size{{Width: 1024, Height: 700}, {Width: 1440, Height: 900}} {
		t.Run(fmt.Sprintf("%.0fx%.0f", size.Width, size.Height), func(t *testing.T) {
			d := testDeps(t, &fakeEngine{})
			d.Hardware = oneGPU
			u := newTestUI(t, d, app.Options{})
			u.Show(app.TabServer)
			u.server.SelectKind(app.TargetVLLM)
			f := u.server.Form
			f.Model.SetText("Qwen/Qwen3-0.6B")
			f.ExtraArgs.SetText("--enforce-eager --max-num-batched-tokens 8192")
			f.Accordion.OpenAll()
			u.Win.Resize(size)
			u.Win.Content().Refresh()

			split := u.server.Panels[app.TargetVLLM].(*container.Split)
			scroll := split.Leading.(*container.Scroll)
			var fieldX []float32
			var right float32
			for _, item := range f.Accordion.Items {
				grid, ok := item.Detail.(*fyne.Container)
				if !ok {
					t.Fatalf("section %s is a %T, not a form of the shared column", item.Title, item.Detail)
				}
				for i := 1; i < len(grid.Objects); i += 3 {
					fieldX = append(fieldX, grid.Objects[i].Position().X)
					right = max(right, grid.Objects[i].Position().X+grid.Objects[i].Size().Width)
				}
			}
			for _, x := range fieldX {
				if x != fieldX[0] {
					t.Fatalf("fields start at %v: the sections' labels are not one column", fieldX)
				}
			}
			if limit := scroll.Size().Width - theme.ScrollBarSize(); right > limit {
				t.Errorf("fields end at %.0f, under the scroll bar or the divider (from %.0f)", right, limit)
			}

			lines := renderedLines(u.server.Launch.Command)
			if len(lines) < 2 {
				t.Fatalf("the command is on %d line(s) at %v, want it wrapped", len(lines), size)
			}
			if got, want := strings.Join(lines, " "), u.server.Launch.Command.Text; got != want {
				t.Errorf("the command wraps inside a word:\n%q\nwant the lines of\n%q", lines, want)
			}
		})
	}
}

// renderedLines are the lines a label draws.
func renderedLines(l *widget.Label) []string {
	var lines []string
	apptest.Walk(l, func(o fyne.CanvasObject) bool {
		if t, ok := o.(*canvas.Text); ok && t.Text != "" {
			lines = append(lines, strings.TrimSpace(t.Text))
		}
		return false
	})
	return lines
}
