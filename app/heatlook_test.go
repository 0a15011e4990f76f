package app

import (
	"image/color"
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
