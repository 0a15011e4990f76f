package report

import (
	"fmt"
	"time"

	"speedmatrix/engine"
)

// Summary is what a list of runs shows of each one (the app's History).
type Summary struct {
	Model string // ModelName
	GPU   string // GPUTitle; "" when the machine had none
	// Cells is the number of cells planned (PlannedCells), Finished how many
	// of them have a final status.
	Cells, Finished int
	// PeakTokPerSec is the highest total tok/s of a Valid decode cell; 0
	// when there is none.
	PeakTokPerSec float64
	Started       time.Time
	Partial       bool   // the run did not finish every cell
	Simulated     bool   // measured against the simulator
	Imported      string // the tool an imported run came from ("llm-inference-bench 0.4.18"); "" for ours
}

// Summarize sums a report up for a list of runs.
func Summarize(r engine.Report) Summary {
	s := Summary{
		Model:     ModelName(r.Run),
		GPU:       GPUTitle(r.Hardware),
		Cells:     PlannedCells(r),
		Finished:  FinishedCells(r),
		Started:   r.Run.StartedAt,
		Partial:   !r.Run.Complete,
		Simulated: r.Engine.Simulated,
	}
	if r.Run.Imported != nil {
		s.Imported = r.Run.Imported.Label()
	}
	for _, res := range r.Results {
		if res.Phase == engine.PhaseDecode && res.Measured() {
			s.PeakTokPerSec = max(s.PeakTokPerSec, res.TotalTokPerSec)
		}
	}
	return s
}

// CellsLine says how many cells a run holds: "8 cells", or "3 of 8 cells"
// when some have no final status.
func (s Summary) CellsLine() string {
	if s.Finished < s.Cells {
		return fmt.Sprintf("%d of %s", s.Finished, plural(s.Cells, "cell", "cells"))
	}
	return plural(s.Cells, "cell", "cells")
}

// PlannedCells counts the cells of the run's plan as fitted to the
// server's model length (engine.FitContexts), or its results when they are
// more.
func PlannedCells(r engine.Report) int {
	mml, p := r.Engine.MaxModelLen, r.Plan
	n := len(engine.FitContexts(p.PrefillContexts, mml, 1)) + len(engine.FitContexts(p.DecodeContexts, mml, p.MaxOutputTokens))*len(p.Concurrency)
	return max(n, len(r.Results))
}

// FinishedCells counts the results with a final status: not Pending, not
// Not run.
func FinishedCells(r engine.Report) int {
	n := 0
	for _, res := range r.Results {
		if res.Status != engine.StatusPending && res.Status != engine.StatusNotRun {
			n++
		}
	}
	return n
}
