package cli

import (
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// TestCellLine: the progress line is report.CellLine between the cell's
// place in the run and the time left.
func TestCellLine(t *testing.T) {
	t.Parallel()
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

// TestConsumeWarnsOfSlowLinks: a run whose GPU 1 ran at x8 under load
// ends with a warning line that names it.
func TestConsumeWarnsOfSlowLinks(t *testing.T) {
	t.Parallel()
	res := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 8},
		ContextLabel: "8K", Status: engine.StatusValid, TotalTokPerSec: 1000,
		Telemetry: &engine.Telemetry{Samples: 30, GPUs: []engine.GPUTelemetry{{Index: 1, PCIe: &engine.PCIeLoad{
			Link: engine.PCIeLink{Gen: 4, Width: 8}, Max: engine.PCIeLink{Gen: 4, Width: 16}, Samples: 30}}}}}
	rep := engine.Report{Run: engine.RunInfo{Complete: true}, Results: []engine.Result{res}}
	events := make(chan engine.Event, 1)
	events <- engine.Event{Kind: engine.EventDone, Report: &rep}
	close(events)
	var out strings.Builder
	if err := consume(events, &runs.Saver{Dir: t.TempDir()}, &out, func(string, engine.Report) error { return nil }, func() {}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  warning: GPU 1 runs at PCIe 4.0 x8 (max x16) under load, in 1 of 1 sampled cells") {
		t.Errorf("output lacks the link warning:\n%s", out.String())
	}
}
