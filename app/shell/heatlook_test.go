package shell

import (
	"image/color"
	"slices"
	"testing"

	"speedmatrix/app/apptest"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
)

// TestLiveHeatmapColoursAsTheExport: a cell has one colour wherever the
// same cells are shown: on the Run screen while the run fills the grid in,
// and the export (and Results, which draws the export's heatmap) of the
// report so far; so the same 195.7 tok/s cell keeps its colour from the
// end of the run to Results and the export.
func TestLiveHeatmapColoursAsTheExport(t *testing.T) {
	apptest.NewTempApp(t)
	plan := engine.Plan{DecodeContexts: []int{1024}, Concurrency: []int{1, 2, 128}}
	h := appwidget.NewHeatmap("waiting")
	h.SetAxes(plan.DecodeContexts, plan.Concurrency)
	rep := engine.Report{Plan: plan}
	for _, ev := range cannedEvents() {
		if ev.Result == nil || ev.Result.Phase != engine.PhaseDecode {
			continue
		}
		h.SetResult(*ev.Result)
		h.Redraw()
		rep.Results = append(rep.Results, *ev.Result)
		exported := charts.BuildModel(rep).Decode
		for j, n := range plan.Concurrency {
			c := exported.Cells[0][j]
			if c.Status != engine.StatusValid {
				continue
			}
			if got, want := h.Cell(1024, n).Bg.FillColor, color.Color(charts.Viridis(c.Pos)); got != want {
				t.Errorf("after %d cells, 1K × %d (%s tok/s): live %v, exported %v", len(rep.Results), n, c.Text, got, want)
			}
		}
		if live, exp := h.ColorScale(), exported.Scale; live.Min != exp.Min || live.Max != exp.Max || live.Log != exp.Log {
			t.Errorf("after %d cells: live scale %v–%v, exported %v–%v", len(rep.Results), live.Min, live.Max, exp.Min, exp.Max)
		}
	}
}

// TestLiveHeatmapWidensToRoundNumbers: during a run a cell keeps its colour
// while the others fall inside the range, which is round (1-2-5 × 10ⁿ) and
// shown by the colour key under the grid; a cell outside widens it.
func TestLiveHeatmapWidensToRoundNumbers(t *testing.T) {
	apptest.NewTempApp(t)
	plan := engine.DefaultPlan()
	h := appwidget.NewHeatmap("waiting")
	h.SetAxes(plan.DecodeContexts, plan.Concurrency)
	if !h.Legend.Box.Hidden {
		t.Error("the colour key shows before any cell has a figure")
	}
	dec := func(ctx, n int, v float64) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: n}, Status: engine.StatusValid, TotalTokPerSec: v}
	}
	// Reference report 000's first cells, then its fastest and slowest.
	h.SetResult(dec(8*engine.K, 1, 375.5))
	h.SetResult(dec(8*engine.K, 2, 690.2))
	h.Redraw()
	if s := h.ColorScale(); s.Min != 200 || s.Max != 1000 {
		t.Errorf("range %v–%v, want 200–1000", s.Min, s.Max)
	}
	first := h.Cell(8*engine.K, 1).Bg.FillColor
	ticks := h.Legend.Ticks()
	if h.Legend.Box.Hidden || len(ticks) < 2 {
		t.Fatalf("colour key hidden %v, ticks %q", h.Legend.Box.Hidden, ticks)
	}
	h.SetResult(dec(8*engine.K, 4, 980))
	h.Redraw()
	if got := h.Cell(8*engine.K, 1).Bg.FillColor; got != first || !slices.Equal(h.Legend.Ticks(), ticks) {
		t.Errorf("a cell inside the range recoloured 375.5 tok/s (%v → %v) or the key (%q → %q)", first, got, ticks, h.Legend.Ticks())
	}
	h.SetResult(dec(8*engine.K, 128, 9005.7))
	h.SetResult(dec(128*engine.K, 1, 86.7))
	h.Redraw()
	if s := h.ColorScale(); s.Min != 50 || s.Max != 10000 || !s.Log {
		t.Errorf("range %v–%v (log %v), want 50–10000 on a log scale", s.Min, s.Max, s.Log)
	}
	lo, hi := h.Cell(128*engine.K, 1).Bg.FillColor, h.Cell(8*engine.K, 128).Bg.FillColor
	if lo == hi || lo == first || hi == first {
		t.Errorf("86.7, 375.5 and 9,005.7 tok/s share colours: %v %v %v", lo, first, hi)
	}
}

// TestPreviewHeatmapSpansItsCells: Results' fallback heatmap colours by
// the export's scale: the cells' range, rounded out.
func TestPreviewHeatmapSpansItsCells(t *testing.T) {
	apptest.NewTempApp(t)
	h := appwidget.NewHeatmap("")
	h.SetAxes([]int{1024}, []int{1, 2})
	for i, v := range []float64{120, 950} {
		h.SetResult(engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 1024, Concurrency: i + 1}, Status: engine.StatusValid, TotalTokPerSec: v})
	}
	h.Redraw()
	if s := h.ColorScale(); s.Min != 100 || s.Max != 1000 {
		t.Errorf("range %v–%v, want 100–1000 as the export", s.Min, s.Max)
	}
}
