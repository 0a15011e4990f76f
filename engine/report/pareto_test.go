package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// TestParetoPointsAndLines: only Valid decode cells are points, per GPU;
// each context's frontier holds the cells no other beats on both axes;
// the sentence picks the most throughput among the cells fast enough for
// the ITL bound, and says so when none is.
func TestParetoPointsAndLines(t *testing.T) {
	cell := func(ctx, conc int, perReq, total float64, st engine.Status, flags ...engine.Flag) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: conc}, Status: st,
			PerRequestTokPerSec: perReq, TotalTokPerSec: total, Flags: flags}
	}
	r := engine.Report{
		Plan:     engine.Plan{SLO: engine.SLO{ITL: 20 * time.Millisecond}},
		Hardware: engine.HardwareInfo{GPUs: []engine.GPUInfo{{}, {}}},
		Results: []engine.Result{
			cell(8192, 1, 100, 100, engine.StatusValid), cell(8192, 8, 80, 640, engine.StatusValid),
			cell(8192, 32, 55, 1760, engine.StatusValid, engine.Flag{Kind: engine.FlagThrottled}),
			cell(8192, 64, 30, 1700, engine.StatusValid), cell(8192, 128, 0, 0, engine.StatusOverCapacity),
			cell(32768, 1, 40, 40, engine.StatusValid),
			{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 8192, Concurrency: 1}, Status: engine.StatusValid, TotalTokPerSec: 9000},
		},
	}
	ps := ParetoPoints(r)
	if len(ps) != 2 || len(ps[0]) != 4 || len(ps[1]) != 1 {
		t.Fatalf("points %+v", ps)
	}
	want := []bool{true, true, true, false} // ×64 is beaten by ×32 on both
	for i, p := range ps[0] {
		if p.OnFrontier != want[i] || p.TotalPerGPU != p.Cell.TotalTokPerSec/2 {
			t.Errorf("×%d: frontier %v, per GPU %v", p.Concurrency, p.OnFrontier, p.TotalPerGPU)
		}
	}
	if !ps[0][2].Flagged {
		t.Error("the flagged cell is not marked")
	}
	lines := ParetoLines(r)
	if len(lines) != 2 || lines[0] != "8K: the most total throughput per GPU (÷ 2) while each user still gets ≥ 50 tok/s is 880 tok/s at 32 requests (55.0 tok/s each), a flagged cell: see its caveat" ||
		!strings.HasPrefix(lines[1], "32K: no cell gives each user 50 tok/s; the fastest per request is 40.0 tok/s at 1 request") {
		t.Errorf("lines %q", lines)
	}
	if !strings.Contains(Markdown(r), "### Throughput against interactivity (pareto.png)") {
		t.Error("report.md has no Pareto lines")
	}
	if got := ParetoThreshold(r.Plan); got != "Each user's speed: at least 50 tok/s, 1,000 ÷ the ITL bound of 20 ms" {
		t.Errorf("threshold %q", got)
	}
	r.Plan.SLO.UserTokS = 33.3 // --slo-user-tok-s wins over the ITL bound
	if got, lines := ParetoThreshold(r.Plan), ParetoLines(r); got != "Each user's speed: at least 33.3 tok/s, the run's objective for each request" ||
		!strings.Contains(lines[1], "32K: the most total throughput per GPU (÷ 2) while each user still gets ≥ 33.3 tok/s is ") {
		t.Errorf("with a speed of its own: %q, %q", got, lines)
	}
	// Two runs of one plan on one chart: the frontier is over both, and
	// the best cell names its configuration.
	b := r
	b.Results = slices.Clone(r.Results)
	for i := range b.Results {
		b.Results[i].TotalTokPerSec *= 1.5
	}
	across := ParetoAcross([]ParetoRun{{Config: "baseline", Report: r}, {Config: "kv_cache_dtype=fp8", Report: b}})
	for _, p := range across[0] {
		if p.OnFrontier != (p.Config == "kv_cache_dtype=fp8" && p.Concurrency != 64) {
			t.Errorf("%s ×%d: frontier %v", p.Config, p.Concurrency, p.OnFrontier)
		}
	}
	if lines := ParetoLinesAcross([]ParetoRun{{Config: "baseline", Report: r}, {Config: "kv_cache_dtype=fp8", Report: b}}, r.Plan); len(lines) != 2 ||
		!strings.HasSuffix(lines[1], ", with kv_cache_dtype=fp8") {
		t.Errorf("across: %q", lines)
	}
	r.Plan.SLO = engine.SLO{}
	if lines := ParetoLines(r); len(lines) != 0 || strings.Contains(Markdown(r), "interactivity") {
		t.Errorf("without an ITL bound: %q", lines)
	}
}
