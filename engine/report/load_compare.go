package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"speedmatrix/engine"
)

// LoadDiffRow is one rate of two load tests side by side: A's figures and
// B's at the same rate. A or B is nil when that test did not measure the
// rate.
type LoadDiffRow struct {
	Rate string // RateLabel: "4 req/s", "burst of 64"
	A, B *engine.LoadResult
}

// LoadDiffColumns are the headings of LoadDiffRow.Cells: the rate, then
// each figure that decides a load test as "A → B (change)".
var LoadDiffColumns = []string{"Rate", "Requests/s", "Output tok/s", "Goodput", "TTFT p50", "TTFT p99", "ITL p99", "E2E p99"}

// LoadComparison lines up two load tests rate by rate, for History's
// comparison: rates are matched by value (within a thousandth of a request
// per second, as RateRPS writes them; a burst matches a burst of the same
// size), in increasing rate, bursts first. Each test's own rates that the
// other lacks get a row with the other side nil. Empty when neither report
// is a load test.
func LoadComparison(a, b engine.Report) []LoadDiffRow {
	var rows []LoadDiffRow
	add := func(r *engine.LoadResult, side int) {
		for i := range rows {
			if other := cmp.Or(rows[i].A, rows[i].B); sameRate(*other, *r) && rowSide(rows[i], side) == nil {
				setSide(&rows[i], side, r)
				return
			}
		}
		row := LoadDiffRow{Rate: RateLabel(*r)}
		setSide(&row, side, r)
		rows = append(rows, row)
	}
	for side, rep := range []engine.Report{a, b} {
		if rep.Load == nil {
			continue
		}
		for i := range rep.Load.Results {
			add(&rep.Load.Results[i], side)
		}
	}
	slices.SortStableFunc(rows, func(x, y LoadDiffRow) int {
		rx, ry := cmp.Or(x.A, x.B), cmp.Or(y.A, y.B)
		return cmp.Or(-cmp.Compare(b2i(IsBurst(*rx)), b2i(IsBurst(*ry))), cmp.Compare(rx.RateRPS, ry.RateRPS), cmp.Compare(rx.Concurrency, ry.Concurrency), cmp.Compare(rx.Requests, ry.Requests))
	})
	return rows
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func rowSide(r LoadDiffRow, side int) *engine.LoadResult {
	if side == 0 {
		return r.A
	}
	return r.B
}

func setSide(r *LoadDiffRow, side int, res *engine.LoadResult) {
	if side == 0 {
		r.A = res
	} else {
		r.B = res
	}
}

// sameRate reports whether two rates are the same offered load: two
// bursts of as many requests, two rows held at as many requests at once,
// or two rates equal to a thousandth.
func sameRate(x, y engine.LoadResult) bool {
	if IsBurst(x) || IsBurst(y) {
		return IsBurst(x) && IsBurst(y) && x.Requests == y.Requests
	}
	if x.Arrivals == engine.ArrivalsConcurrent || y.Arrivals == engine.ArrivalsConcurrent {
		return x.Arrivals == y.Arrivals && x.Concurrency == y.Concurrency
	}
	return math.Abs(x.RateRPS-y.RateRPS) < 0.0005
}

// Cells is the row as History shows it, one field per LoadDiffColumns:
// "3.71 req/s → 3.52 req/s (−5.1%)"; a side that lacks the rate, or whose
// rate isn't Valid, reads as its status or "not measured".
func (r LoadDiffRow) Cells() []string {
	latency := func(pct func(engine.LoadResult) engine.Percentiles, p int) func(engine.LoadResult) (float64, bool) {
		return func(l engine.LoadResult) (float64, bool) { return pct(l).At(p), HasPercentile(pct(l), p) }
	}
	rate := func(f func(engine.LoadResult) float64) func(engine.LoadResult) (float64, bool) {
		return func(l engine.LoadResult) (float64, bool) { return f(l), true }
	}
	ttft := func(l engine.LoadResult) engine.Percentiles { return l.TTFTMs }
	figs := []struct {
		of     func(engine.LoadResult) (float64, bool) // the figure, and whether the run has it
		format func(float64) string
	}{
		{rate(func(l engine.LoadResult) float64 { return l.RequestThroughputRPS }), reqPerSec},
		{rate(func(l engine.LoadResult) float64 { return l.OutputTokPerSec }), TokPerSec},
		{rate(func(l engine.LoadResult) float64 { return l.GoodputRPS }), reqPerSec},
		{latency(ttft, 50), loadMillis},
		{latency(ttft, 99), loadMillis},
		{latency(func(l engine.LoadResult) engine.Percentiles { return l.ITLMs }, 99), loadMillis},
		{latency(func(l engine.LoadResult) engine.Percentiles { return l.E2EMs }, 99), loadMillis},
	}
	side := func(l *engine.LoadResult, f func(engine.LoadResult) (float64, bool), format func(float64) string) string {
		switch {
		case l == nil:
			return "not measured"
		case !LoadMeasured(*l):
			return string(l.Status)
		}
		if v, ok := f(*l); ok {
			return format(v)
		}
		return Dash // another tool's file without the figure
	}
	known := func(l *engine.LoadResult, f func(engine.LoadResult) (float64, bool)) (float64, bool) {
		if l == nil || !LoadMeasured(*l) {
			return 0, false
		}
		return f(*l)
	}
	cells := []string{r.Rate}
	for _, f := range figs {
		cell := side(r.A, f.of, f.format) + " → " + side(r.B, f.of, f.format)
		a, okA := known(r.A, f.of)
		b, okB := known(r.B, f.of)
		if okA && okB && a > 0 {
			cell += " (" + Percent(b/a-1) + ")"
		}
		cells = append(cells, cell)
	}
	return cells
}

// loadDifferences are the plan facts in which two load tests differ, for
// Differences: "arrivals: Poisson → constant", "requests per rate: 200 →
// 500", lengths, max concurrency, dataset, seed and SLO. A matrix run
// beside a load test differs in "kind of test".
func loadDifferences(a, b engine.Report) []string {
	kind := func(r engine.Report) string {
		if r.Load != nil {
			return "load test"
		}
		return "matrix"
	}
	if kind(a) != kind(b) {
		return []string{"kind of test: " + kind(a) + " → " + kind(b)}
	}
	if a.Load == nil {
		return nil
	}
	pa, pb := a.Load.Plan, b.Load.Plan
	facts := []struct {
		name   string
		va, vb string
	}{
		{"arrivals", arrivalsWords(pa.Arrivals), arrivalsWords(pb.Arrivals)},
		{"requests per rate", Int(pa.Requests), Int(pb.Requests)},
		{"burst", Int(pa.Burst), Int(pb.Burst)},
		{"input", tokenRange(pa.InputTokens), tokenRange(pb.InputTokens)},
		{"output", tokenRange(pa.OutputTokens), tokenRange(pb.OutputTokens)},
		{"max concurrency", Int(pa.MaxConcurrency), Int(pb.MaxConcurrency)},
		{"dataset", cmp.Or(pa.Dataset, "none"), cmp.Or(pb.Dataset, "none")},
		{"seed", Int(int(pa.Seed)), Int(int(pb.Seed))},
		{"SLO", cmp.Or(sloWords(pa.SLO), "none"), cmp.Or(sloWords(pb.SLO), "none")},
	}
	var out []string
	for _, f := range facts {
		if f.va != f.vb {
			out = append(out, f.name+": "+f.va+" → "+f.vb)
		}
	}
	return out
}

// summarizeLoad sums a load test up for a list of runs: its rates planned
// and finished (any final status), and its highest output tok/s.
func summarizeLoad(s *Summary, l engine.LoadSection) {
	s.Rates = max(len(l.Plan.RatesRPS), l.Plan.SweepRates, len(l.Results), 1)
	s.Cells, s.Finished = s.Rates, 0
	for _, r := range l.Results {
		if r.Status != engine.StatusNotRun && r.Status != engine.StatusPending {
			s.Finished++
		}
		if LoadMeasured(r) {
			s.PeakTokPerSec = max(s.PeakTokPerSec, r.OutputTokPerSec)
		}
		if r.Status != engine.StatusNotRun && r.Status != engine.StatusPending && r.RateRPS > 0 {
			s.RatesRPS = append(s.RatesRPS, r.RateRPS)
		}
	}
	if len(s.RatesRPS) == 0 {
		s.RatesRPS = slices.Clone(l.Plan.RatesRPS)
	}
}

// loadRatesLine is CellsLine for a load test: "load test · 5 rates", or
// "load test · 2 of 3 rates".
func loadRatesLine(s Summary) string {
	if s.Finished < s.Rates {
		return fmt.Sprintf("load test · %d of %s", s.Finished, engine.Count(s.Rates, "rate", "rates"))
	}
	return "load test · " + engine.Count(s.Rates, "rate", "rates")
}
