package shell

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
)

// TestSweepHeaderSaysWhatWasMeasured: a sweep whose servers fitted the
// plan's 8K and 32K to their length states, in Results, the contexts its
// configurations measured (as sweep.md does, by one rule), not the plan's
// alone, and what its estimate assumed.
func TestSweepHeaderSaysWhatWasMeasured(t *testing.T) {
	uiOnly(t)
	u := sweepUI(t, &simLauncher{t: t})
	cs := runner.Grid([][]sweep.Setting{{{Key: "max_num_seqs", Value: "8"}}})
	dir := savedSweep(t, u, cs, map[string]map[int]float64{"baseline": {1: 100, 2: 150}, "max_num_seqs=8": {1: 100, 2: 300}}, map[string]bool{"baseline": true, "max_num_seqs=8": true})
	s, err := sweep.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Plan.DecodeContexts = []int{8 * engine.K, 32 * engine.K} // every run measured 1K: the servers' length
	s.Prior = sweep.Prior{StartupS: 2, Startup: sweep.StartupStandIn}
	s.EstimateS, s.ActualS = 60, 50
	if err := sweep.Save(dir, s); err != nil {
		t.Fatal(err)
	}
	u.results.ShowSweep(dir)
	sub := u.results.Subtitle.Text
	for _, want := range []string{"the same plan for each: decode 1K (planned 8K, 32K, fitted to the servers' length) × 1, 2 requests",
		"took 0:50 (estimated about 1 min)", "\nThe estimate assumed start-ups of 2.0 s each, the stand-in's (Speed Matrix's simulator)"} {
		if !strings.Contains(sub, want) {
			t.Errorf("the sweep's header lacks %q:\n%s", want, sub)
		}
	}
	if strings.Contains(sub, "decode 8K, 32K ×") {
		t.Errorf("the header states the plan as what was measured:\n%s", sub)
	}
}

// TestCompareSettingsEstimate: the dialog's estimate of a sweep of the
// stand-in assumes its start-up of seconds, not vLLM's two minutes, and
// says so; once the form's server has been started, the start-up it took
// and the length it reported take the place of what was assumed.
func TestCompareSettingsEstimate(t *testing.T) {
	uiOnly(t)
	standIn, err := filepath.Abs("../../examples/sweep/vllm")
	if err != nil {
		t.Fatal(err)
	}
	d := testDeps(t, &fakeEngine{})
	d.LookPath = onlyFinds(standIn) // no GPU: the stand-in needs none
	u := newTestUI(t, d, app.Options{})
	u.server.SelectKind(app.TargetVLLM)
	u.server.Form.Model.SetText("speedmatrix/tiny-sim")
	u.server.Form.Executable.SetText(standIn)
	plan := sweepPlan()
	plan.DecodeContexts, plan.Duration, plan.MaxOutputTokens = []int{8 * engine.K, 32 * engine.K}, 10*time.Second, 1024
	u.State.SetPlan(plan, nil)
	u.server.Launch.OnCompare()
	f := u.server.Launch.Compare
	if f == nil {
		t.Fatalf("Compare settings… opened nothing: %s", u.server.Launch.Why.Text)
	}
	setRow(f, 0, "max_num_seqs", "4, 8")
	// 3 × (2 s + 46 s of the plan as planned), where 2 min a start-up made it 8 min.
	if !strings.Contains(f.Basis.Text, "start-ups of 2.0 s each, the stand-in's") || !strings.Contains(f.Count.Text, "about 2 min") {
		t.Errorf("the stand-in: count %q, basis %q; want seconds a start-up, about 2 min in all", f.Count.Text, f.Basis.Text)
	}
	before := f.Count.Text
	l := u.server.Launch
	l.LastStart = l.Timing()
	l.LastStart.Ready(l.LastStart.Began.Add(3*time.Second), launch.LogFacts{ConcurrencyTokens: 8192})
	f.Refresh()
	// 3 × (3 s + 23 s of the plan fitted to 8,192: 32K drops out).
	if !strings.Contains(f.Basis.Text, "start-ups of 3.0 s each, as the baseline's server took to start before the sweep, and the plan fitted to max model length 8,192") ||
		!strings.Contains(f.Count.Text, "about 1 min") {
		t.Errorf("after a timed start: count %q (before %q), basis %q", f.Count.Text, before, f.Basis.Text)
	}
	f.Dialog.Hide()
}
