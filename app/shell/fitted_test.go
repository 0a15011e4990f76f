package shell

import (
	"slices"
	"testing"

	"speedmatrix/app"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// TestDefaultPlanOn128KServerShowsFittedRows: the default plan asks for
// 128K contexts; a server of 131,072 tokens has no room for 128K plus 4,096
// output tokens, so the engine measures 123.75K instead (engine.FitContexts).
// Every view shows that row once, as measured, and no phantom "Pending"
// 128K row: the Matrix preview, the Run screen's heatmap, and the
// decode-heatmap chart and report sheet both exported and on screen.
func TestDefaultPlanOn128KServerShowsFittedRows(t *testing.T) {
	plan := engine.DefaultPlan()
	const maxModelLen = 131072 // the fake simulator's "big" profile
	fitted := engine.FitContexts(plan.DecodeContexts, maxModelLen, plan.MaxOutputTokens)
	if slices.Contains(fitted, 128*engine.K) || len(fitted) != len(plan.DecodeContexts) {
		t.Fatalf("FitContexts kept 128K or lost a row: %v", fitted)
	}
	var labels []string
	var events []engine.Event
	for _, ctx := range fitted {
		labels = append(labels, engine.ContextLabel(ctx))
		for _, n := range plan.Concurrency {
			res := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: n},
				ContextLabel: engine.ContextLabel(ctx), Status: engine.StatusValid, TotalTokPerSec: 100 * float64(n), TTFTMs: 50}
			events = append(events, engine.Event{Kind: engine.EventResult, Result: &res})
		}
	}
	eng := &fakeEngine{events: events}
	d := testDeps(t, eng)
	d.Sim = readsModelLen{&fakeSim{}}
	u := newTestUI(t, d, app.Options{Target: "sim:big"})
	u.matrix.UsePreset(app.PresetStandard)
	if got := u.matrix.Preview.Contexts; !slices.Equal(got, fitted) {
		t.Errorf("Matrix preview rows %v, want the fitted %v", got, fitted)
	}
	u.run.OnStart()
	if u.run.UiDone == nil {
		t.Fatalf("the run did not start: %s", u.run.ProgressLine.Text)
	}
	if got := eng.lastPlan().DecodeContexts; !slices.Equal(got, plan.DecodeContexts) {
		t.Fatalf("the engine got contexts %v, want the default plan's %v", got, plan.DecodeContexts)
	}
	waitFor(t, u.run.UiDone, "the run")
	if got := u.run.Heat.Contexts; !slices.Equal(got, fitted) {
		t.Errorf("Run heatmap rows %v, want the fitted %v", got, fitted)
	}
	for _, ctx := range u.run.Heat.Contexts {
		for _, n := range plan.Concurrency {
			if c := u.run.Heat.Cell(ctx, n); c == nil || c.Status != engine.StatusValid {
				t.Errorf("Run heatmap %s × %d is not the measured cell", engine.ContextLabel(ctx), n)
			}
		}
	}
	rep := u.results.Report
	if rep.Server.MaxModelLen != maxModelLen || !slices.Equal(rep.Plan.DecodeContexts, plan.DecodeContexts) {
		t.Fatalf("report: max_model_len %d, plan %v; want the server's and the requested plan", rep.Server.MaxModelLen, rep.Plan.DecodeContexts)
	}
	if got := charts.BuildModel(rep).Decode.Rows; !slices.Equal(got, labels) {
		t.Errorf("decode-heatmap chart rows %q, want %q", got, labels)
	}
	for _, opts := range []charts.Options{charts.DefaultOptions(), {Width: 1100, Height: 520}} {
		for _, kind := range []charts.Kind{charts.KindHeatmap, charts.KindReport} {
			d, err := charts.Draw(kind, rep, opts)
			if err != nil {
				t.Fatal(err)
			}
			if texts := d.Texts(); slices.Contains(texts, string(engine.StatusPending)) {
				t.Errorf("%s (width %v) draws a Pending cell", kind, opts.Width)
			}
		}
	}
}

// readsModelLen is the fake simulator whose target says its max_model_len,
// as the engine reads it from a real server into the report.
type readsModelLen struct{ *fakeSim }

func (s readsModelLen) Start(profile, eng string) (measure.Subject, func(), error) {
	t, stop, err := s.fakeSim.Start(profile, eng)
	for _, p := range s.Profiles() {
		if p.Name == profile {
			t.Header.Server.MaxModelLen = p.MaxModelLen
		}
	}
	return t, stop, err
}
