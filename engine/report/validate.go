package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"speedmatrix/engine"
)

// maxFileBytes is the largest results file Read and ReadData take (512
// MiB): report.json of a 65,536-cell run keeps every cell's request
// samples in about 8 KB each, and llm-inference-bench writes about 4 KB
// per cell.
const maxFileBytes = 512 << 20

// implausibleError says why a file cannot hold a real run: it claims more
// than a run measures (engine.CheckPlanBounds), or a figure no run
// measures, such as a negative one.
type implausibleError struct {
	File    string // the file's name as the caller gave it
	Problem string // "its plan: …", "Sustained decode 8K × 4 has a negative total tok/s (-5)"
}

// Error is one line: "FILE cannot hold a real run: PROBLEM; …".
func (e *implausibleError) Error() string {
	return fmt.Sprintf("%s cannot hold a real run: %s; no run writes that, so the file is damaged or was made by hand", e.File, e.Problem)
}

// ReadData reads a results file of at most maxFileBytes from r; file
// names it in the error.
func ReadData(r io.Reader, file string) ([]byte, error) {
	return readLimited(r, file, maxFileBytes)
}

// readLimited reads at most limit bytes from r, and says so when there is more.
func readLimited(r io.Reader, file string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if int64(len(data)) > limit {
		return nil, &implausibleError{File: file, Problem: fmt.Sprintf("it is larger than %s, the most a run writes", sizeText(limit))}
	}
	return data, nil
}

// sizeText is a size in MiB, or in bytes when smaller.
func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readFile reads the results file at path with ReadData; its errors name
// the path.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadData(f, path)
}

// checkRun holds a loaded run to what a run can write: its plan within
// engine's bounds, no more cells, contexts or concurrency levels than a
// plan may have, no negative figure, and a load section within what a
// load test writes (loadProblem).
func checkRun(r engine.Report, file string) error {
	problem := planProblem(r.Plan)
	if problem == "" {
		problem = levelsProblem(r.Results)
	}
	for i := 0; problem == "" && i < len(r.Results); i++ {
		problem = resultProblem(r.Results[i])
	}
	if problem == "" {
		problem = runProblem(r)
	}
	if problem == "" {
		problem = loadProblem(r.Load)
	}
	if problem == "" && r.Quality != nil {
		problem = r.Quality.Problem()
	}
	if problem != "" {
		return &implausibleError{File: file, Problem: problem}
	}
	return nil
}

// planProblem is engine.CheckPlanBounds's verdict on a loaded plan.
func planProblem(p engine.Plan) string {
	var pe *engine.PlanError
	if err := engine.CheckPlanBounds(p); errors.As(err, &pe) {
		return "its plan: " + pe.Problems[0].Problem
	}
	if p.KVBudgetTokens < 0 {
		return fmt.Sprintf("its plan: KV budget %d tokens is negative", p.KVBudgetTokens)
	}
	return ""
}

// levelsProblem says whether the cells need more rows or columns than a
// plan within the bounds has. They are counted apart from the plan's: a
// run measures a context fitted to the model, which may not be one the
// plan asked for.
func levelsProblem(rs []engine.Result) string {
	if len(rs) > engine.MaxCells {
		return fmt.Sprintf("it has %d cells, more than the %d a plan may have", len(rs), engine.MaxCells)
	}
	prefill, decode, conc := map[int]bool{}, map[int]bool{}, map[int]bool{}
	for _, res := range rs {
		if res.Phase == engine.PhasePrefill {
			prefill[res.ContextTokens] = true
		} else {
			decode[res.ContextTokens], conc[res.Concurrency] = true, true
		}
	}
	for _, l := range []struct {
		name string
		n    int
	}{{"prefill contexts", len(prefill)}, {"decode contexts", len(decode)}, {"concurrency levels", len(conc)}} {
		if l.n > engine.MaxLevels {
			return fmt.Sprintf("its cells span %d %s, more than the %d a plan may have", l.n, l.name, engine.MaxLevels)
		}
	}
	return ""
}

// resultProblem says what is impossible in one cell: a context or a
// concurrency outside the bounds, or a negative figure.
func resultProblem(res engine.Result) string {
	name := CellName(res)
	switch {
	case res.ContextTokens < 0 || res.ContextTokens > engine.MaxContextTokens:
		return fmt.Sprintf("a cell has context %d tokens, outside 0–%d", res.ContextTokens, engine.MaxContextTokens)
	case res.Concurrency < 1 || res.Concurrency > engine.MaxConcurrency:
		return fmt.Sprintf("%s has concurrency %d, outside 1–%d", name, res.Concurrency, engine.MaxConcurrency)
	}
	for _, f := range figures(res) {
		if f.value < 0 {
			return fmt.Sprintf("%s has a negative %s (%v)", name, f.name, f.value)
		}
	}
	if p := res.PrefixCache; p != nil && p.Problem() != "" {
		return fmt.Sprintf("%s has %s", name, p.Problem())
	}
	if p := res.Energy.Problem(); p != "" {
		return fmt.Sprintf("%s has %s", name, p)
	}
	if p := res.Reasoning.Problem(res.OutputTokens); p != "" {
		return fmt.Sprintf("%s has %s", name, p)
	}
	if d := driftOf(res); d != nil && (d.RelCI95 < 0 || math.Abs(d.RelPer10s) > engine.MaxDrift) {
		return fmt.Sprintf("%s has a drift of %v per 10 s (± %v), outside what a window can measure", name, d.RelPer10s, d.RelCI95)
	}
	return ""
}

// driftOf is res's drift, nil without one.
func driftOf(res engine.Result) *engine.Drift {
	if res.Precision == nil {
		return nil
	}
	return res.Precision.Drift
}

// figure is one number of a cell, named as report.md names it.
type figure struct {
	name  string
	value float64
}

// figures are every number of a cell that no measurement makes negative,
// its partial figures included.
func figures(r engine.Result) []figure {
	fs := []figure{
		{"total tok/s", r.TotalTokPerSec}, {"per-request tok/s", r.PerRequestTokPerSec}, {"TTFT", r.TTFTMs}, {"time between tokens", r.ITLMs},
		{"average active requests", r.AvgActive}, {"completed requests", float64(r.Completed)}, {"output tokens", float64(r.OutputTokens)},
		{"prompt tokens", float64(r.PromptTokens)}, {"measured time", r.MeasuredS}, {"drain time", r.DrainS}, {"aborted requests", float64(r.Aborted)},
		{"J/token", r.JoulesPerToken}, {"roofline tok/s", r.RooflineTokS}, {"share of roofline", r.RooflinePct},
		{"reasoning tokens", float64(r.ReasoningTokens)}, {"answer tokens", float64(r.AnswerTokens)}, {"time to first answer token", r.AnswerTTFTMs},
	}
	for _, p := range []struct {
		name string
		pct  engine.Percentiles
	}{{"TTFT", r.TTFTPct}, {"time between tokens", r.ITLPct}, {"per-request tok/s", r.PerRequestPct}} {
		fs = append(fs, figure{p.name + " p50", p.pct.P50}, figure{p.name + " p90", p.pct.P90}, figure{p.name + " p99", p.pct.P99},
			figure{p.name + " p10", p.pct.P10}, figure{p.name + " p1", p.pct.P1}, figure{p.name + " samples", float64(p.pct.N)})
	}
	if p := r.Partial; p != nil {
		fs = append(fs, figure{"partial total tok/s", p.TotalTokPerSec}, figure{"partial per-request tok/s", p.PerRequestTokPerSec},
			figure{"partial TTFT", p.TTFTMs}, figure{"partial time between tokens", p.ITLMs}, figure{"partial measured time", p.MeasuredS})
	}
	return fs
}

// runProblem says what is impossible in the Run section.
func runProblem(r engine.Report) string {
	switch {
	case r.Run.DurationS < 0:
		return fmt.Sprintf("its run has a negative duration per cell (%v s)", r.Run.DurationS)
	case r.Run.MaxOutputTokens < 0:
		return fmt.Sprintf("its run has a negative max output (%d tokens)", r.Run.MaxOutputTokens)
	case r.Run.ChatTemplateTokens < 0 || r.Run.ChatTemplateTokens > engine.MaxContextTokens:
		return fmt.Sprintf("its run has a chat template of %d tokens, outside 0–%d", r.Run.ChatTemplateTokens, engine.MaxContextTokens)
	case r.Run.IdlePower.Problem() != "":
		return "its run has " + r.Run.IdlePower.Problem()
	}
	if p := r.Run.Prices; p != nil {
		if err := p.Check(); err != nil {
			return "its run's prices: " + err.Error()
		}
	}
	return ""
}
