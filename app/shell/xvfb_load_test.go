//go:build xvfb

package shell

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"speedmatrix/app"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
)

// TestXvfbLoadReplayScreens writes screenshots of the Load test form with a
// trace and with conversations, and of Results' Cache and turns view after
// each replay on the real simulator, at 1,440 × 900, into LOAD_SHOTS:
//
//	LOAD_SHOTS=/tmp/shots LANG=en_US.UTF-8 \
//	  xvfb-run -a -s '-screen 0 1440x900x24' go test -tags xvfb -run XvfbLoadReplayScreens ./app/shell/
func TestXvfbLoadReplayScreens(t *testing.T) {
	out := os.Getenv("LOAD_SHOTS")
	if out == "" {
		t.Skip("set LOAD_SHOTS")
	}
	tracePath := writeAppTrace(t)
	convPath := writeAppConversations(t, 4)

	d := testDeps(t, &fakeEngine{})
	d.Do, d.Charts, d.FreeMemory = nil, chartRenderer{}, nil
	d.Sim, d.Load = simulator{}, app.LoadFunc(measure.RunLoad)
	u := glUI(t, d, fyne.NewSize(1440, 900), func(u *ui) { u.matrix.Load.Kind.SetSelected("Load test") })
	shot := func(name string) {
		t.Helper()
		time.Sleep(1500 * time.Millisecond)
		writeShot(t, u, filepath.Join(out, name))
	}
	replay := func(name string) {
		t.Helper()
		fyne.DoAndWait(func() { u.Show(app.TabMatrix) })
		shot(name + "-form.png")
		fyne.DoAndWait(func() { u.run.OnStart() })
		select {
		case <-u.run.UiDone:
		case <-time.After(60 * time.Second):
			fyne.DoAndWait(func() { u.Show(app.TabRun) })
			shot(name + "-stuck.png")
			var line, log string
			fyne.DoAndWait(func() { line, log = u.run.ProgressLine.Text, u.run.Log.Text() })
			t.Fatalf("%s: the replay did not finish: %s\n%s", name, line, log)
		}
		fyne.DoAndWait(func() { u.Show(app.TabRun) })
		shot(name + "-run.png")
		fyne.DoAndWait(func() {
			u.Show(app.TabResults)
			u.results.Load.Views.SelectIndex(4) // Cache and turns
		})
		shot(name + "-results.png")
	}
	fyne.DoAndWait(func() {
		f := u.matrix.Load
		f.SetDataset("") // the app's own settings may remember one from an earlier run
		f.SetTrace(tracePath)
		f.TimeScale.SetText("2")
	})
	replay("trace")
	fyne.DoAndWait(func() {
		f := u.matrix.Load
		f.SetTrace("")
		f.SetDataset(convPath)
		f.Output.SetText("24")
		f.Convs.SetText("2")
		f.ThinkTime.SetText("exp:20ms")
	})
	replay("conversations")
}

// TestXvfbParetoScreen writes a screenshot of the Results screen's Pareto
// view of a simulated Standard run into LOAD_SHOTS (as above).
func TestXvfbParetoScreen(t *testing.T) {
	out := os.Getenv("LOAD_SHOTS")
	if out == "" {
		t.Skip("set LOAD_SHOTS")
	}
	d := testDeps(t, &fakeEngine{})
	d.Do, d.Charts, d.FreeMemory = nil, chartRenderer{}, nil
	u := glUI(t, d, fyne.NewSize(1440, 900), func(u *ui) {
		u.results.Show(cannedReport("tiny", 195.7), "")
		u.Show(app.TabResults)
		u.results.Views.SelectIndex(3)
	})
	time.Sleep(2 * time.Second)
	writeShot(t, u, filepath.Join(out, "results-pareto.png"))
}

// TestXvfbEnergyScreens writes Results' Energy and Cost views of a saved
// run (ENERGY_RUN: its folder, e.g. a simulated run with
// --price-per-hour and --price-per-kwh) and the Settings screen with its
// Cost card into LOAD_SHOTS:
//
//	LOAD_SHOTS=/tmp/shots ENERGY_RUN=/tmp/e1 LANG=en_US.UTF-8 \
//	  xvfb-run -a -s '-screen 0 1440x900x24' go test -tags xvfb -run XvfbEnergyScreens ./app/shell/
func TestXvfbEnergyScreens(t *testing.T) {
	out, run := os.Getenv("LOAD_SHOTS"), os.Getenv("ENERGY_RUN")
	if out == "" || run == "" {
		t.Skip("set LOAD_SHOTS and ENERGY_RUN")
	}
	rep, err := report.Load(run)
	if err != nil {
		t.Fatal(err)
	}
	d := testDeps(t, &fakeEngine{})
	d.Do, d.Charts, d.FreeMemory = nil, chartRenderer{}, nil
	u := glUI(t, d, fyne.NewSize(1440, 900), func(u *ui) {
		u.results.Show(rep, run)
		u.Show(app.TabResults)
		u.results.Views.SelectIndex(7) // Energy
	})
	time.Sleep(2 * time.Second)
	writeShot(t, u, filepath.Join(out, "results-energy.png"))
	fyne.DoAndWait(func() { u.results.Views.SelectIndex(8) }) // Cost
	time.Sleep(2 * time.Second)
	writeShot(t, u, filepath.Join(out, "results-cost.png"))
	fyne.DoAndWait(func() { u.Show(app.TabSettings) })
	time.Sleep(time.Second)
	writeShot(t, u, filepath.Join(out, "settings.png"))
}
