package cli

import (
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// TestCellLine: the progress line carries the cell's figures, and GPU power
// with energy per token when the cell has telemetry.
func TestCellLine(t *testing.T) {
	r := engine.Result{
		Cell:         engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 8},
		ContextLabel: "8K", Status: engine.StatusValid,
		TotalTokPerSec: 1237.5, PerRequestTokPerSec: 160.1, TTFTMs: 128, ITLMs: 6.2, AvgActive: 8,
	}
	p := engine.Progress{CellIndex: 3, CellCount: 40, ETA: 90 * time.Second}
	got := cellLine(r, p)
	for _, want := range []string{"[ 3/40]", "8K × 8", "Valid", "1,237.5 tok/s", "160.1 tok/s/req", "TTFT 128 ms", "(ETA 1m30s)"} {
		if !strings.Contains(got, want) {
			t.Errorf("line %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "J/token") {
		t.Errorf("line %q shows energy without telemetry", got)
	}
	r.Telemetry = &engine.Telemetry{TotalPowerW: engine.Stat{Avg: 412, Peak: 450}}
	r.JoulesPerToken = 412 / 1237.5
	if got := cellLine(r, p); !strings.Contains(got, "GPU 412 W, 0.333 J/token") {
		t.Errorf("line %q lacks GPU power and J/token", got)
	}
}
