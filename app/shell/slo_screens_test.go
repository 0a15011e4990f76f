package shell

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
)

// TestMatrixSLOGoesIntoThePlan: the SLO typed on the Matrix screen is the
// plan's, reaches the engine when the run starts, and shows on Settings.
func TestMatrixSLOGoesIntoThePlan(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	m := u.matrix
	preset := m.Preset.Selected
	test.Type(m.Slo.Ttft, "2s")
	test.Type(m.Slo.Itl, "50ms")
	m.Slo.Pct.SetSelected("p90")
	want := engine.SLO{TTFT: 2 * time.Second, ITL: 50 * time.Millisecond, Percentile: 90}
	if p, err := m.Plan(); err != nil || p.SLO != want {
		t.Fatalf("plan SLO = %+v, %v; want %+v", p.SLO, err, want)
	}
	if m.Preset.Selected != preset {
		t.Errorf("an SLO edit made the preset %q: the SLO is not part of the matrix", m.Preset.Selected)
	}
	if got := u.settings.Slo; got.Ttft.Text != "2s" || got.Itl.Text != "50ms" || got.Pct.Selected != "p90" {
		t.Errorf("Settings shows %q %q %q, want the Matrix screen's SLO", got.Ttft.Text, got.Itl.Text, got.Pct.Selected)
	}
	u.run.OnStart()
	if u.run.UiDone == nil {
		t.Fatalf("the run did not start: %s", u.run.ProgressLine.Text)
	}
	if got := eng.lastPlan().SLO; got != want {
		t.Errorf("the engine got SLO %+v, want %+v", got, want)
	}
	waitFor(t, u.run.UiDone, "the run")
	if u.run.Heat.Slo != want {
		t.Errorf("the Run heatmap judges against %+v, want the run's SLO", u.run.Heat.Slo)
	}
}

// TestMatrixRefusesBadSLO: a bound that is not a duration is said in the
// field's words, and no run starts until it is fixed.
func TestMatrixRefusesBadSLO(t *testing.T) {
	eng := &fakeEngine{}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	m := u.matrix
	test.Type(m.Slo.Ttft, "2 seconds")
	n := m.Banner.Current
	if !m.Banner.Visible() || n.Message != `TTFT bound: "2 seconds" is not a duration.` || !strings.Contains(n.Action, "Write it like 2s or 500ms") {
		t.Errorf("Matrix banner = %+v", n)
	}
	if u.State.PlanErr == nil {
		t.Fatal("a bad SLO leaves the plan ready")
	}
	u.run.OnStart()
	if u.run.Running() {
		t.Error("a run started with a bad SLO")
	}
	m.Slo.Ttft.SetText("2s")
	if m.Banner.Visible() || u.State.PlanErr != nil || u.State.Plan.SLO.TTFT != 2*time.Second {
		t.Errorf("fixed: banner %v, plan error %v, SLO %+v", m.Banner.Visible(), u.State.PlanErr, u.State.Plan.SLO)
	}
}

// TestSettingsSLOReachesTheMatrix: an SLO applied on Settings is the
// Matrix screen's and is remembered; a bad one is refused in its words.
func TestSettingsSLOReachesTheMatrix(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	s := u.settings
	s.Slo.Itl.SetText("40")
	s.OnApply()
	if !s.Banner.Visible() || !strings.Contains(s.Banner.Current.Message, `ITL bound: "40" has no unit`) {
		t.Errorf("Settings banner = %+v", s.Banner.Current)
	}
	s.Slo.Itl.SetText("40ms")
	s.Slo.Pct.SetSelected("p50")
	s.OnApply()
	want := engine.SLO{ITL: 40 * time.Millisecond, Percentile: 50}
	if u.State.Settings.SLO != want || u.State.Plan.SLO != want {
		t.Fatalf("state SLO %+v, plan SLO %+v; want %+v", u.State.Settings.SLO, u.State.Plan.SLO, want)
	}
	if m := u.matrix.Slo; m.Itl.Text != "40ms" || m.Ttft.Text != "" || m.Pct.Selected != "p50" {
		t.Errorf("Matrix shows %q %q %q", m.Ttft.Text, m.Itl.Text, m.Pct.Selected)
	}
	var saved app.Settings
	if !u.Prefs.Load(app.PrefApp, &saved) || saved.SLO != want {
		t.Errorf("remembered SLO %+v, want %+v", saved.SLO, want)
	}
}

// TestResultsSLOView: Results says per context how many requests meet the
// report's SLO, its SLO view marks each cell, and a new SLO typed there
// judges the run again.
func TestResultsSLOView(t *testing.T) {
	r := resultsWithSLO(t).results
	if !strings.Contains(r.Slo.Lines.Text, "8K: up to 8 simultaneous requests meet TTFT p99 within 2 s and ITL p99 within 50 ms (3,842 tok/s)") ||
		!strings.Contains(r.Slo.Lines.Text, "32K: even 1 request at a time misses") || !r.Slo.Lines.Visible() {
		t.Errorf("SLO lines %q", r.Slo.Lines.Text)
	}
	if r.Slo.Heat.Object().Visible() {
		t.Error("the SLO view shows before it is chosen")
	}
	r.HeatMode.SetSelected(appwidget.HeatModeSLO)
	if !r.Slo.Heat.Object().Visible() || r.Charts[charts.KindHeatmap].Visible() {
		t.Fatal("choosing SLO does not show the SLO view in place of the picture")
	}
	if got := r.Slo.Heat.Cell(8*engine.K, 32).Label(); got != "Misses ITL 30 % over" {
		t.Errorf("8K × 32 in the SLO view = %q", got)
	}
	r.Slo.Fields.Itl.SetText("50ms0")
	if r.Slo.Hint.Importance != widget.WarningImportance || !strings.Contains(r.Slo.Hint.Text, `ITL bound: "50ms0" is not a duration.`) {
		t.Errorf("a bad bound on Results says %q", r.Slo.Hint.Text)
	}
	r.Slo.Fields.Itl.SetText("100ms")
	if got := r.Slo.Heat.Cell(8*engine.K, 32).Label(); got != "Meets TTFT 25 % to spare" {
		t.Errorf("judged again with ITL ≤ 100 ms, 8K × 32 = %q", got)
	}
	if r.Report.Plan.SLO.ITL != 100*time.Millisecond || !strings.Contains(r.Slo.Lines.Text, "8K: up to 32 simultaneous requests") {
		t.Errorf("report SLO %+v, lines %q", r.Report.Plan.SLO, r.Slo.Lines.Text)
	}
	r.Views.SelectIndex(4) // All measurements
	r.Table.Table.Select(widget.TableCellID{Row: len(r.Table.Rows) - 1})
	if !r.Table.Details.Visible() || !strings.Contains(r.Table.Details.Text, "TTFT: p50 1,250 ms · p90 2,000 ms · p99 2,500 ms (400 samples)") {
		t.Errorf("All measurements details %q", r.Table.Details.Text)
	}
}
