package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/charts"
	"speedmatrix/engine"
)

// TestMatrixSLOGoesIntoThePlan: the SLO typed on the Matrix screen is the
// plan's, reaches the engine when the run starts, and shows on Settings.
func TestMatrixSLOGoesIntoThePlan(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), Options{Target: "sim:tiny"})
	m := u.matrix
	preset := m.preset.Selected
	test.Type(m.slo.ttft, "2s")
	test.Type(m.slo.itl, "50ms")
	m.slo.pct.SetSelected("p90")
	want := engine.SLO{TTFT: 2 * time.Second, ITL: 50 * time.Millisecond, Percentile: 90}
	if p, err := m.plan(); err != nil || p.SLO != want {
		t.Fatalf("plan SLO = %+v, %v; want %+v", p.SLO, err, want)
	}
	if m.preset.Selected != preset {
		t.Errorf("an SLO edit made the preset %q: the SLO is not part of the matrix", m.preset.Selected)
	}
	if got := u.settings.slo; got.ttft.Text != "2s" || got.itl.Text != "50ms" || got.pct.Selected != "p90" {
		t.Errorf("Settings shows %q %q %q, want the Matrix screen's SLO", got.ttft.Text, got.itl.Text, got.pct.Selected)
	}
	u.run.onStart()
	if u.run.uiDone == nil {
		t.Fatalf("the run did not start: %s", u.run.progressLine.Text)
	}
	if got := eng.lastPlan().SLO; got != want {
		t.Errorf("the engine got SLO %+v, want %+v", got, want)
	}
	waitFor(t, u.run.uiDone, "the run")
	if u.run.heat.slo != want {
		t.Errorf("the Run heatmap judges against %+v, want the run's SLO", u.run.heat.slo)
	}
}

// TestMatrixRefusesBadSLO: a bound that is not a duration is said in the
// field's words, and no run starts until it is fixed.
func TestMatrixRefusesBadSLO(t *testing.T) {
	eng := &fakeEngine{}
	u := newTestUI(t, testDeps(t, eng), Options{Target: "sim:tiny"})
	m := u.matrix
	test.Type(m.slo.ttft, "2 seconds")
	n := m.banner.current
	if !m.banner.visible() || n.Message != `TTFT bound: "2 seconds" is not a duration.` || !strings.Contains(n.Action, "Write it like 2s or 500ms") {
		t.Errorf("Matrix banner = %+v", n)
	}
	if u.state.planErr == nil {
		t.Fatal("a bad SLO leaves the plan ready")
	}
	u.run.onStart()
	if u.run.running() {
		t.Error("a run started with a bad SLO")
	}
	m.slo.ttft.SetText("2s")
	if m.banner.visible() || u.state.planErr != nil || u.state.plan.SLO.TTFT != 2*time.Second {
		t.Errorf("fixed: banner %v, plan error %v, SLO %+v", m.banner.visible(), u.state.planErr, u.state.plan.SLO)
	}
}

// TestSettingsSLOReachesTheMatrix: an SLO applied on Settings is the
// Matrix screen's and is remembered; a bad one is refused in its words.
func TestSettingsSLOReachesTheMatrix(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), Options{Target: "sim:tiny"})
	s := u.settings
	s.slo.itl.SetText("40")
	s.onApply()
	if !s.banner.visible() || !strings.Contains(s.banner.current.Message, `ITL bound: "40" has no unit`) {
		t.Errorf("Settings banner = %+v", s.banner.current)
	}
	s.slo.itl.SetText("40ms")
	s.slo.pct.SetSelected("p50")
	s.onApply()
	want := engine.SLO{ITL: 40 * time.Millisecond, Percentile: 50}
	if u.state.settings.SLO != want || u.state.plan.SLO != want {
		t.Fatalf("state SLO %+v, plan SLO %+v; want %+v", u.state.settings.SLO, u.state.plan.SLO, want)
	}
	if m := u.matrix.slo; m.itl.Text != "40ms" || m.ttft.Text != "" || m.pct.Selected != "p50" {
		t.Errorf("Matrix shows %q %q %q", m.ttft.Text, m.itl.Text, m.pct.Selected)
	}
	var saved appSettings
	if !u.prefs.load(prefApp, &saved) || saved.SLO != want {
		t.Errorf("remembered SLO %+v, want %+v", saved.SLO, want)
	}
}

// TestResultsSLOView: Results says per context how many requests meet the
// report's SLO, its SLO view marks each cell, and a new SLO typed there
// judges the run again.
func TestResultsSLOView(t *testing.T) {
	r := resultsWithSLO(t).results
	if !strings.Contains(r.slo.lines.Text, "8K: up to 8 simultaneous requests meet TTFT p99 within 2 s and ITL p99 within 50 ms (3,842 tok/s)") ||
		!strings.Contains(r.slo.lines.Text, "32K: even 1 request at a time misses") || !r.slo.lines.Visible() {
		t.Errorf("SLO lines %q", r.slo.lines.Text)
	}
	if r.slo.heat.object().Visible() {
		t.Error("the SLO view shows before it is chosen")
	}
	r.heatMode.SetSelected(heatModeSLO)
	if !r.slo.heat.object().Visible() || r.charts[charts.KindHeatmap].Visible() {
		t.Fatal("choosing SLO does not show the SLO view in place of the picture")
	}
	if got := r.slo.heat.cell(8*engine.K, 32).label(); got != "Misses ITL 30 % over" {
		t.Errorf("8K × 32 in the SLO view = %q", got)
	}
	r.slo.fields.itl.SetText("50ms0")
	if r.slo.hint.Importance != widget.WarningImportance || !strings.Contains(r.slo.hint.Text, `ITL bound: "50ms0" is not a duration.`) {
		t.Errorf("a bad bound on Results says %q", r.slo.hint.Text)
	}
	r.slo.fields.itl.SetText("100ms")
	if got := r.slo.heat.cell(8*engine.K, 32).label(); got != "Meets TTFT 25 % to spare" {
		t.Errorf("judged again with ITL ≤ 100 ms, 8K × 32 = %q", got)
	}
	if r.report.Plan.SLO.ITL != 100*time.Millisecond || !strings.Contains(r.slo.lines.Text, "8K: up to 32 simultaneous requests") {
		t.Errorf("report SLO %+v, lines %q", r.report.Plan.SLO, r.slo.lines.Text)
	}
	r.views.SelectIndex(3) // All measurements
	r.table.table.Select(widget.TableCellID{Row: len(r.table.rows) - 1})
	if !r.table.details.Visible() || !strings.Contains(r.table.details.Text, "TTFT: p50 1,250 ms · p90 2,000 ms · p99 2,500 ms (400 samples)") {
		t.Errorf("All measurements details %q", r.table.details.Text)
	}
}
