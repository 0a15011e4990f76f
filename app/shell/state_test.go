package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// TestRunScreenFollowsTheTarget: the Run screen names the target the run
// would measure after any edit on the Server screen, and previews the
// plan fitted to it (the "Target: http://127.0.0.1:1" after the URL
// was edited).
func TestRunScreenFollowsTheTarget(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	if got := u.run.TargetLine.Text; got != "Target: simulated (profile tiny)" {
		t.Errorf("target line = %q", got)
	}
	u.server.SelectKind(app.TargetEndpoint)
	test.Type(u.server.Url, "http://10.0.0.7:8000")
	if got := u.run.TargetLine.Text; got != "Target: http://10.0.0.7:8000" {
		t.Errorf("after typing the URL the Run screen says %q", got)
	}
	if len(u.run.SimBadge.Objects) != 0 {
		t.Error("an endpoint is labelled simulated")
	}
	u.server.OnDetect()
	waitFor(t, u.server.Detected, "the models")
	if got := u.State.Target.Capacity.MaxModelLen; got != 32768 {
		t.Errorf("detected max model length %d reached the state as %d", 32768, got)
	}
	// A Standard plan on a 32K model: the 64K and 128K rows are measured at
	// the longest context that fits, one row, never a phantom one.
	u.matrix.UsePreset(app.PresetStandard)
	want := engine.FitContexts(engine.DefaultPlan().DecodeContexts, 32768, engine.DefaultPlan().MaxOutputTokens)
	if got := u.run.Heat.Contexts; len(got) != len(want) || got[len(got)-1] != want[len(want)-1] {
		t.Errorf("Run preview rows = %v, want the fitted %v", got, want)
	}
	u.server.SelectKind(app.TargetSim)
	u.server.Profile.SetSelected("big")
	if got := u.run.TargetLine.Text; got != "Target: simulated (profile big)" {
		t.Errorf("after choosing profile big the Run screen says %q", got)
	}
	if !strings.Contains(u.run.ProgressLine.Text, "estimated about") {
		t.Errorf("Run screen before the run = %q, want the estimate", u.run.ProgressLine.Text)
	}
}

// TestCancelAsksOnceTheRunIsLong: Esc cancels at once during the first
// ten seconds, and asks after that; keeping the run going keeps it going.
func TestCancelAsksOnceTheRunIsLong(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()[:3], hold: true}
	d := testDeps(t, eng)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d.Now = func() time.Time { return now }
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	var asked []string
	var said string
	answer := false
	u.Ask = func(title, message string, answers []string, pick func(int)) {
		asked = append(asked, title+" | "+strings.Join(answers, " | "))
		said = message
		if answer {
			pick(0)
		} else {
			pick(1)
		}
	}
	u.run.OnStart()
	now = now.Add(11 * time.Second)
	esc := func() { u.Win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape}) }
	esc()
	if len(asked) != 1 || asked[0] != "Cancel the run? | Cancel the run | Keep running" {
		t.Fatalf("Esc after 11 s asked %q", asked)
	}
	if !u.run.Running() {
		t.Fatal("Keep running cancelled the run")
	}
	// The dialog stays open while the run goes on: it says when the run
	// started, which stays true, not how long it has run.
	if !strings.HasPrefix(said, "It started at 03:04:05. The finished cells are kept") {
		t.Errorf("the dialog says %q", said)
	}
	answer = true
	esc()
	waitFor(t, eng.cancelled, "the engine to see the cancellation")
	waitFor(t, u.run.UiDone, "the run to end")
	if len(asked) != 2 {
		t.Errorf("asked %d times, want 2", len(asked))
	}
}

// TestCancelledAndNotRunCells: after a cancel the cell cut short reads
// Cancelled and the cells never reached read Not run, each its own look;
// the run is saved after every cell, and Results offers Resume, which
// finishes the same run in the same folder.
func TestCancelledAndNotRunCells(t *testing.T) {
	dec := func(c int, s engine.Status) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 1024, Concurrency: c}, ContextLabel: "1K", Status: s}
	}
	eng := &fakeEngine{events: cannedEvents()[:5], hold: true,
		final: []engine.Result{dec(4, engine.StatusCancelled), dec(8, engine.StatusNotRun)}}
	d := testDeps(t, eng)
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	u.matrix.Decode.SetText("1K")
	u.matrix.Concurrency.SetText("1, 2, 4, 8")
	u.run.OnStart()
	waitUntil(t, func() bool { return u.run.Saver.Dir != "" }, "the first cell to be saved")
	if _, err := os.Stat(filepath.Join(u.run.Saver.Dir, report.JSONFile)); err != nil {
		t.Fatalf("the run is not saved after its first cells: %v", err)
	}
	if got := u.RunItem.Text; got != "Run 25%" {
		t.Errorf("sidebar during the run = %q, want Run 25%% (cell 2 of 4 under way)", got)
	}
	u.run.OnCancel()
	waitFor(t, u.run.UiDone, "the run to end")
	if got := u.RunItem.Text; got != app.TabRun {
		t.Errorf("sidebar after the run = %q", got)
	}
	cancelled, notRun := u.run.Heat.Cell(1024, 4), u.run.Heat.Cell(1024, 8)
	if cancelled.Label() != "Cancelled" || notRun.Label() != "Not run" {
		t.Fatalf("cells read %q and %q, want Cancelled and Not run", cancelled.Label(), notRun.Label())
	}
	if lookKey(cancelled.Bg.FillColor, cancelled.Bg.StrokeColor, cancelled.Bg.StrokeWidth) == lookKey(notRun.Bg.FillColor, notRun.Bg.StrokeColor, notRun.Bg.StrokeWidth) {
		t.Error("Cancelled and Not run cells look the same")
	}
	if strings.Contains(u.run.Log.Text(), "context canceled") {
		t.Errorf("the log speaks Go:\n%s", u.run.Log.Text())
	}
	if !strings.Contains(u.run.Log.Text(), "estimated") {
		t.Errorf("the log does not record the estimate against the actual time:\n%s", u.run.Log.Text())
	}
	dir := u.run.Saver.Dir
	if u.results.Source != dir || !u.results.ResumeBtn.Visible() {
		t.Fatalf("Results shows the run from %q (Resume visible %v), want %q with Resume", u.results.Source, u.results.ResumeBtn.Visible(), dir)
	}
	eng.hold, eng.final = false, nil
	test.Tap(u.results.ResumeBtn)
	if u.results.ResumeBtn.Visible() {
		t.Error("Resume stays offered while the run it started goes on")
	}
	waitFor(t, u.run.UiDone, "the resumed run to end")
	tgt := eng.lastTarget()
	if tgt.Resume == nil || len(tgt.Resume.Report.Results) == 0 {
		t.Fatalf("the resumed run got Resume %+v, want the partial report", tgt.Resume)
	}
	if u.run.Saver.Dir != dir {
		t.Errorf("the resumed run was saved in %q, want the first run's %q", u.run.Saver.Dir, dir)
	}
}
