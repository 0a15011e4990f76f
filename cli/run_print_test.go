package cli

import (
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// TestCellLine: the progress line is report.CellLine between the cell's
// place in the run and the time left.
func TestCellLine(t *testing.T) {
	r := engine.Result{
		Cell:         engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 8},
		ContextLabel: "8K", Status: engine.StatusValid,
		TotalTokPerSec: 1237.5, PerRequestTokPerSec: 160.1, TTFTMs: 128, ITLMs: 6.2, AvgActive: 8,
	}
	want := "[ 3/40] " + report.CellLine(r) + "  (ETA 1m30s)"
	if got := cellLine(r, engine.Progress{CellIndex: 3, CellCount: 40, ETA: 90 * time.Second}); got != want {
		t.Errorf("cellLine = %q, want %q", got, want)
	}
	want = "[3/9] " + report.CellLine(r)
	if got := cellLine(r, engine.Progress{CellIndex: 3, CellCount: 9}); got != want {
		t.Errorf("cellLine without an ETA = %q, want %q", got, want)
	}
}
