package shell

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/engine"
)

// BenchmarkRunApply is the cost of one coalesced UI update of the Run
// screen during the reference reports' matrix: progress, a server sample, one finished
// cell and a log line, with the 5 × 8 heatmap recoloured.
func BenchmarkRunApply(b *testing.B) {
	u := newUI(apptest.NewTempApp(b), test.NewTempWindow(b, nil), testDeps(b, &fakeEngine{}), app.Options{})
	plan := engine.DefaultPlan()
	u.run.heat.SetAxes(plan.DecodeContexts, plan.Concurrency)
	res := *cannedEvents()[3].Result
	res.ContextTokens = 8 * engine.K
	upd := runUpdate{
		progress: cannedEvents()[1].Progress,
		server:   &engine.ServerSample{Running: 128, KVUsagePct: 43},
		results:  []engine.Result{res},
		logs:     []string{"a log line"},
	}
	b.ResetTimer()
	for b.Loop() {
		u.run.apply(upd)
	}
}

// BenchmarkAccumulatorAdd is the cost per engine event on the consumer
// goroutine, before any UI work.
func BenchmarkAccumulatorAdd(b *testing.B) {
	var a accumulator
	ev := engine.Event{Kind: engine.EventProgress, Progress: &engine.Progress{CellIndex: 1}}
	for b.Loop() {
		a.Add(ev)
	}
}
