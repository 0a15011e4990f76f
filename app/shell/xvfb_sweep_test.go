//go:build xvfb

package shell

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// TestXvfbSweepScreens runs a sweep in a real window against a stand-in
// vLLM (STANDIN: a speedmatrix binary with `sim serve`, which
// examples/sweep/vllm runs) and writes screenshots of the Run screen during
// the sweep and of its summary into SWEEP_SHOTS:
//
//	SWEEP_SHOTS=/tmp/shots STANDIN=$PWD/speedmatrix LANG=en_US.UTF-8 \
//	  xvfb-run -a -s '-screen 0 1440x900x24' go test -tags xvfb -run XvfbSweepScreens ./app/shell/
func TestXvfbSweepScreens(t *testing.T) {
	out, standin := os.Getenv("SWEEP_SHOTS"), os.Getenv("STANDIN")
	if out == "" || standin == "" {
		t.Skip("set SWEEP_SHOTS and STANDIN")
	}
	u, w := xvfbSweepUI(t, standin)
	t.Cleanup(func() { fyne.DoAndWait(func() { u.shutdown(); w.Close() }) })
	shot := func(name string) {
		t.Helper()
		time.Sleep(time.Second) // a frame or two, and the charts drawn
		fyne.DoAndWait(func() {
			if err := appwidget.WritePNG(filepath.Join(out, name), appwidget.CaptureWindow(u.Win)); err != nil {
				t.Error(err)
			}
		})
	}
	until := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			ok := false
			fyne.DoAndWait(func() { ok = cond() })
			if ok {
				return
			}
		}
		t.Fatalf("timed out waiting for %s", what)
	}
	fyne.DoAndWait(func() {
		u.server.Launch.Compare.Dialog.Hide()
		u.Show(app.TabServer)
		w.Resize(fyne.NewSize(1024, 700))
	})
	shot("server-1024.png")
	fyne.DoAndWait(func() { w.Resize(fyne.NewSize(1280, 800)); u.server.Launch.Compare.Dialog.Show() })
	shot("compare-dialog.png")
	fyne.DoAndWait(func() { u.server.Launch.Compare.OnStart() })
	until("the second configuration starting", func() bool {
		return u.run.Sweep != nil && strings.HasPrefix(u.run.SweepView.Line.Text, "Configuration 2 of ") &&
			strings.HasSuffix(u.run.SweepView.Line.Text, "Starting")
	})
	shot("run-starting.png")
	until("the third configuration measuring", func() bool {
		return u.run.Sweep != nil && strings.HasPrefix(u.run.SweepView.Line.Text, "Configuration 3 of ") &&
			strings.HasSuffix(u.run.SweepView.Line.Text, "Measuring") && strings.HasPrefix(u.run.Sweep.Cells[2], "3 of")
	})
	shot("run-1280.png")
	fyne.DoAndWait(func() { w.Resize(fyne.NewSize(1024, 700)) })
	shot("run-1024.png")
	fyne.DoAndWait(func() { w.Resize(fyne.NewSize(1280, 800)) })
	until("the sweep to end", func() bool { return u.run.Sweep == nil })
	shot("summary-answer.png")
	fyne.DoAndWait(func() { u.results.Sweep.Views.SelectIndex(1) })
	time.Sleep(2 * time.Second)
	shot("summary-best.png")
	fyne.DoAndWait(func() { u.results.Sweep.Views.SelectIndex(2) })
	time.Sleep(2 * time.Second)
	shot("summary-pareto.png")
	fyne.DoAndWait(func() { u.results.Sweep.Views.SelectIndex(3) })
	shot("summary-runs.png")
	fyne.DoAndWait(func() {
		u.Show(app.TabHistory)
		u.history.List.Select(0)
	})
	shot("history.png")
	fyne.DoAndWait(func() { w.Resize(fyne.NewSize(1024, 700)); u.history.OnOpen() })
	shot("summary-1024.png")
}

// xvfbSweepUI is the app in a real window with the Launch form set to the
// stand-in vllm (standin: speedmatrix with sim serve) and the Compare
// settings dialog open on a grid of four configurations.
func xvfbSweepUI(t *testing.T, standin string) (*ui, fyne.Window) {
	script := filepath.Join(t.TempDir(), "vllm")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec "+standin+" sim \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	d := testDeps(t, app.EngineFunc(measure.Run))
	d.Do, d.Hardware, d.Launcher = nil, noGPU, vllmLauncher{} // the stand-in needs no GPU (launch.StandIn)
	d.Charts, d.SweepCharts, d.FreeMemory = chartRenderer{}, sweepChartRenderer{}, nil
	var u *ui
	var w fyne.Window
	var why string
	fyne.DoAndWait(func() {
		w = glApp.NewWindow("Speed Matrix")
		u = newUI(glApp, w, d, app.Options{})
		w.SetContent(u.content())
		w.Resize(fyne.NewSize(1280, 800))
		w.Show()
		u.server.SelectKind(app.TargetVLLM)
		f := u.server.Form
		f.Executable.SetText(script)
		f.Model.SetText("speedmatrix/tiny-sim")
		f.ServedName.SetText("tiny")
		f.Port.SetText(strconv.Itoa(port))
		f.ExtraArgs.SetText("--sim-profile tiny")
		f.StartupTimeoutMin.SetText("1")
		p := engine.DefaultPlan()
		p.PrefillContexts, p.DecodeContexts, p.Concurrency = []int{engine.K}, []int{engine.K, 4 * engine.K}, []int{1, 4, 16, 32}
		p.Duration, p.MaxOutputTokens, p.Precision, p.PrefillRepeats, p.PrefillSingleFrom = 2*time.Second, 256, 0, 1, 0
		u.State.SetPlan(p, nil)
		u.State.SetLoad(app.LoadInfo{}) // the matrix, whatever the app's preferences saved last
		u.server.Launch.OnCompare()
		if u.server.Launch.Compare == nil {
			why = "Compare settings… did not open: " + u.server.Launch.Blocker().String() + " " + u.server.Banner.Current.Message + " " + u.server.Banner.Current.Action
			return
		}
		setRow(u.server.Launch.Compare, 0, "max_num_seqs", "16, 32")
		setRow(u.server.Launch.Compare, 1, "enforce_eager", "false, true")
	})
	if why != "" {
		t.Fatal(why)
	}
	return u, w
}
