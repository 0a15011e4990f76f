package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
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
	if err := consume(t.Context(), events, &runs.Saver{Dir: t.TempDir()}, &out, func(context.Context, string, engine.Report) error { return nil }, func() {}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  warning: GPU 1 runs at PCIe 4.0 x8 (max x16) under load, in 1 of 1 sampled cells") {
		t.Errorf("output lacks the link warning:\n%s", out.String())
	}
}

// doneWith is a run's events: only its end, with this report and error.
func doneWith(rep engine.Report, err error) <-chan engine.Event {
	events := make(chan engine.Event, 1)
	events <- engine.Event{Kind: engine.EventDone, Report: &rep, Err: err}
	close(events)
	return events
}

// TestConsumeAfterASignal: a run that SIGINT interrupted ends at once,
// saved and resumable, without drawing charts; a signal while the charts
// of a complete run are drawn ends it with exit code 4 and the command
// that draws them.
func TestConsumeAfterASignal(t *testing.T) {
	t.Parallel()
	signalled, cancel := context.WithCancel(t.Context())
	cancel()
	cell := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 8}, ContextLabel: "8K"}
	drawn := 0
	draw := func(ctx context.Context, _ string, _ engine.Report) error { drawn++; return ctx.Err() }

	prefill := engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 8192, Concurrency: 1}, ContextLabel: "8K",
		Status: engine.StatusValid, TotalTokPerSec: 40000, TTFTMs: 200}
	cell.Status = engine.StatusCancelled
	dir := t.TempDir()
	err := consume(signalled, doneWith(engine.Report{Results: []engine.Result{prefill, cell}}, fmt.Errorf("%w: %w", measure.ErrInterrupted, context.Canceled)),
		&runs.Saver{Dir: dir}, io.Discard, draw, func() {})
	if ExitCode(err) != exitIncomplete || drawn != 0 || !strings.HasSuffix(err.Error(), "finish it with: speedmatrix run --resume "+dir) {
		t.Errorf("interrupted run: %v (exit %d), charts drawn %d times; want exit 3 without charts", err, ExitCode(err), drawn)
	}
	if _, err := report.Load(dir); err != nil {
		t.Errorf("interrupted run not saved: %v", err)
	}

	cell.Status, cell.TotalTokPerSec = engine.StatusValid, 1000
	dir = t.TempDir()
	err = consume(signalled, doneWith(engine.Report{Run: engine.RunInfo{Complete: true}, Results: []engine.Result{cell}}, nil), &runs.Saver{Dir: dir}, io.Discard, draw, func() {})
	want := "run: measured every cell, but the charts were not drawn (interrupted): draw them with speedmatrix report --in " +
		filepath.Join(dir, report.JSONFile) + " --out " + dir
	if ExitCode(err) != exitExport || err.Error() != want {
		t.Errorf("signal while drawing: %v (exit %d), want %q (exit 4)", err, ExitCode(err), want)
	}
}
