package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/secret"
)

// Summary is what a list of runs shows of each one (the app's History).
type Summary struct {
	Model string `json:"model"` // modelName
	GPU   string `json:"gpu"`   // servedOn: what served the model, as far as known
	// Cells is the number of cells planned (PlannedCells), Finished how many
	// of them have a final status.
	Cells    int `json:"cells"`
	Finished int `json:"finished"`
	// PeakTokPerSec is the highest total tok/s of a Valid decode cell; 0
	// when there is none.
	PeakTokPerSec float64   `json:"peak_tok_s"`
	Started       time.Time `json:"started_at"`
	Partial       bool      `json:"partial"`   // the run did not finish every cell
	Simulated     bool      `json:"simulated"` // measured against the simulator
	// Imported is the tool an imported run came from ("llm-inference-bench
	// 0.4.18"); "" for ours.
	Imported string `json:"imported"`
	// Target is what the run measured, which tells apart runs of one
	// model: "profile tiny" for the simulator, else the endpoint with its
	// password hidden; "" when the report doesn't say.
	Target string `json:"target"`
	// Rates is, for a load test, how many rates it planned (Cells and
	// Finished then count its rates, PeakTokPerSec is its highest output
	// tok/s of a Valid rate); 0 for a matrix.
	Rates int `json:"rates,omitempty"`
	// RatesRPS are a load test's rates in requests per second: those it
	// finished, else those it planned (none for a burst).
	RatesRPS []float64 `json:"rates_rps,omitempty"`
}

// summarize sums a report up for a list of runs.
func summarize(r engine.Report) Summary {
	s := Summary{
		Model:     modelName(r.Run),
		GPU:       servedOn(r),
		Cells:     PlannedCells(r),
		Finished:  FinishedCells(r),
		Started:   r.Run.StartedAt,
		Partial:   !r.Run.Complete,
		Simulated: r.Server.Simulated,
	}
	if r.Run.Imported != nil {
		s.Imported = r.Run.Imported.Label()
	}
	s.Target = secret.URL(r.Run.Endpoint)
	if r.Server.Simulated {
		s.Target = "profile " + r.Server.SimProfile
	}
	for _, res := range r.Results {
		if res.Phase == engine.PhaseDecode && res.Measured() {
			s.PeakTokPerSec = max(s.PeakTokPerSec, res.TotalTokPerSec)
		}
	}
	if r.Load != nil {
		summarizeLoad(&s, *r.Load)
	}
	return s
}

// CellsLine says how many cells a run holds: "8 cells", or "3 of 8 cells"
// when some have no final status; a load test's rates: "5 rates".
func (s Summary) CellsLine() string {
	if s.Rates > 0 {
		return loadRatesLine(s)
	}
	if s.Finished < s.Cells {
		return fmt.Sprintf("%d of %s", s.Finished, engine.Count(s.Cells, "cell", "cells"))
	}
	return engine.Count(s.Cells, "cell", "cells")
}

// PlannedCells counts the cells of the run's plan as fitted to the
// server's model length (engine.FitContexts), or its results when they are
// more.
func PlannedCells(r engine.Report) int {
	mml, p := r.Server.MaxModelLen, r.Plan
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

// summaryDoc is the part of report.json a Summary needs: it skips every
// cell's request samples and telemetry, the bulk of the file.
type summaryDoc struct {
	SchemaVersion int                 `json:"schema_version"`
	Hardware      engine.HardwareInfo `json:"hardware"`
	Server        engine.ServerInfo   `json:"engine"`
	Run           engine.RunInfo      `json:"run"`
	Plan          engine.Plan         `json:"plan"`
	Results       []struct {
		engine.Cell
		Status         engine.Status `json:"status"`
		TotalTokPerSec float64       `json:"total_tok_s"`
	} `json:"results"`
	// Load is a load test's section whole: one row per rate, no samples.
	Load *engine.LoadSection `json:"load,omitempty"`
}

// LoadSummary sums up the run in dir (or the report.json path) without
// reading all of it: what a list of many runs needs.
func LoadSummary(path string) (Summary, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, JSONFile)
	}
	data, err := readFile(path)
	if err != nil {
		return Summary{}, fmt.Errorf("load report: %w", err)
	}
	var d summaryDoc
	if err := json.Unmarshal(data, &d); err != nil {
		return Summary{}, fmt.Errorf("load report %s: not a speedmatrix report.json (%v)", path, err)
	}
	if d.SchemaVersion == 0 || d.SchemaVersion > engine.SchemaVersion {
		_, err := decodeReport(data, path) // says which
		return Summary{}, err
	}
	r := engine.Report{SchemaVersion: d.SchemaVersion, Hardware: d.Hardware, Server: d.Server, Run: d.Run, Plan: d.Plan, Load: d.Load}
	for _, res := range d.Results {
		r.Results = append(r.Results, engine.Result{Cell: res.Cell, Status: res.Status, TotalTokPerSec: res.TotalTokPerSec})
	}
	engine.BoundReport(&r)
	if err := checkRun(r, path); err != nil {
		return Summary{}, fmt.Errorf("load report: %w", err)
	}
	return summarize(r), nil
}
