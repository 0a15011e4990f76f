package app

import (
	"image/color"
	"slices"
	"testing"

	"speedmatrix/charts"
	"speedmatrix/engine"
)

// TestLiveHeatmapColoursAsTheExport: the live heatmap gives a Valid cell the
// colour the exported heatmap gives it.
func TestLiveHeatmapColoursAsTheExport(t *testing.T) {
	values := []float64{120, 950, 4100, 15000}
	var rep engine.Report
	for i, v := range values {
		rep.Results = append(rep.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 1 << i},
			ContextLabel: "8K", Status: engine.StatusValid, TotalTokPerSec: v})
	}
	exported := charts.BuildModel(rep).Decode
	scale := charts.SequentialScale("total tok/s", values)
	for j, v := range values {
		want := charts.Viridis(exported.Cells[0][j].Pos)
		got := cellLook(&heatCell{status: engine.StatusValid, value: v}, scale, "").fill
		if got != color.Color(want) {
			t.Errorf("%.0f tok/s: live %v, exported %v", v, got, want)
		}
	}
}

// TestLiveHeatmapKeepsItsColours: during a run a cell keeps its colour as
// faster and slower cells arrive (the range is fixed by the first one, for
// the plan's concurrency on this server), and the colour key under the
// grid shows that range; a cell outside it widens the range.
func TestLiveHeatmapKeepsItsColours(t *testing.T) {
	newTempApp(t)
	plan := engine.DefaultPlan()
	h := newHeatmap("waiting")
	h.setAxes(plan.DecodeContexts, plan.Concurrency)
	h.fixScale(plan, capacity{MaxModelLen: 200_000, KVCacheTokens: 10_000_000, MaxNumSeqs: 256})
	if !h.legend.box.Hidden {
		t.Error("the colour key shows before any cell has a figure")
	}
	dec := func(ctx, n int, v float64) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: n}, Status: engine.StatusValid, TotalTokPerSec: v}
	}
	// Reference report 000's first cell, then its fastest and slowest.
	h.setResult(dec(8*engine.K, 1, 375.5))
	h.redraw()
	first := h.cell(8*engine.K, 1).bg.FillColor
	ticks := h.legend.ticks()
	if h.legend.box.Hidden || len(ticks) < 2 {
		t.Fatalf("colour key hidden %v, ticks %q", h.legend.box.Hidden, ticks)
	}
	h.setResult(dec(8*engine.K, 128, 9005.7))
	h.setResult(dec(128*engine.K, 1, 86.7))
	h.redraw()
	if got := h.cell(8*engine.K, 1).bg.FillColor; got != first {
		t.Errorf("375.5 tok/s turned from %v to %v as other cells arrived", first, got)
	}
	if got := h.legend.ticks(); !slices.Equal(got, ticks) {
		t.Errorf("colour key changed from %q to %q within the range", ticks, got)
	}
	lo, hi := h.cell(128*engine.K, 1).bg.FillColor, h.cell(8*engine.K, 128).bg.FillColor
	if lo == hi || lo == first || hi == first {
		t.Errorf("86.7, 375.5 and 9,005.7 tok/s share colours: %v %v %v", lo, first, hi)
	}
	h.setResult(dec(8*engine.K, 64, 250_000))
	h.redraw()
	if got := h.cell(8*engine.K, 1).bg.FillColor; got == first {
		t.Error("a cell far above the range did not widen it")
	}
	if s := h.colorScale(); s.Max < 250_000 {
		t.Errorf("range tops at %v after a 250,000 tok/s cell", s.Max)
	}
}

// TestPreviewHeatmapSpansItsCells: without a run's fixed range (Results'
// fallback) the range is the export's: from the slowest to the fastest cell.
func TestPreviewHeatmapSpansItsCells(t *testing.T) {
	newTempApp(t)
	h := newHeatmap("")
	h.setAxes([]int{1024}, []int{1, 2})
	for i, v := range []float64{120, 950} {
		h.setResult(engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 1024, Concurrency: i + 1}, Status: engine.StatusValid, TotalTokPerSec: v})
	}
	h.redraw()
	if s := h.colorScale(); s.Min != 120 || s.Max != 950 {
		t.Errorf("range %v–%v, want 120–950 as the export", s.Min, s.Max)
	}
}
