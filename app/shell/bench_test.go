package shell

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/run"
	"speedmatrix/engine"
)

// BenchmarkRunApply is the cost of one coalesced UI update of the Run
// screen during the reference reports' matrix: progress, a server sample, one finished
// cell and a log line, with the 5 × 8 heatmap recoloured.
func BenchmarkRunApply(b *testing.B) {
	u := newUI(apptest.NewTempApp(b), test.NewTempWindow(b, nil), testDeps(b, &fakeEngine{}), app.Options{})
	plan := engine.DefaultPlan()
	u.run.Heat.SetAxes(plan.DecodeContexts, plan.Concurrency)
	res := *cannedEvents()[3].Result
	res.ContextTokens = 8 * engine.K
	upd := run.RunUpdate{
		Progress: cannedEvents()[1].Progress,
		Server:   &engine.ServerSample{Running: 128, KVUsagePct: 43},
		Results:  []engine.Result{res},
		Logs:     []string{"a log line"},
	}
	b.ResetTimer()
	for b.Loop() {
		u.run.Apply(upd)
	}
}

// BenchmarkAccumulatorAdd is the cost per engine event on the consumer
// goroutine, before any UI work.
func BenchmarkAccumulatorAdd(b *testing.B) {
	var a run.Accumulator
	ev := engine.Event{Kind: engine.EventProgress, Progress: &engine.Progress{CellIndex: 1}}
	for b.Loop() {
		a.Add(ev)
	}
}
