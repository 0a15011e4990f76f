package report

import (
	"fmt"
	"math"

	"speedmatrix/engine"
)

// Bounds of what a load test writes, which a loaded report.json must keep.
const (
	// maxLoadRates is the most rates a load test measures: as many as a
	// matrix has levels.
	maxLoadRates = engine.MaxLevels
	// maxLoadRequests is the most requests one rate sends (or one burst),
	// the bound a plan is checked against (a million).
	maxLoadRequests = engine.MaxLoadRequests
	// maxRateRPS is the highest request rate a load test offers.
	maxRateRPS = 1e6
	// maxLatencyMs is the longest latency a request may have: a day.
	maxLatencyMs = 24 * 3600 * 1000.0
	// maxLoadSeconds is the longest a rate may take: a week.
	maxLoadSeconds = 7 * 24 * 3600.0
)

// loadProblem says what is impossible in a loaded report's load section:
// a plan or a rate outside what a load test writes, a count that doesn't
// add up, or a figure that is negative, not a number, or absurd. "" when
// there is no load section or nothing is wrong.
func loadProblem(l *engine.LoadSection) string {
	if l == nil {
		return ""
	}
	if p := loadPlanProblem(l.Plan); p != "" {
		return "its load plan: " + p
	}
	if len(l.Results) > maxLoadRates {
		return fmt.Sprintf("its load test has %d rates, more than the %d a load test measures", len(l.Results), maxLoadRates)
	}
	if p := boundProblem("sweep limit", l.LimitRPS, maxRateRPS); p != "" {
		return "its load test has a " + p
	}
	if p := traceProblem(l.Trace); p != "" {
		return "its trace has " + p
	}
	if p := conversationProblem(l.Conversations); p != "" {
		return "its conversations have " + p
	}
	for _, r := range l.Results {
		if p := loadResultProblem(r); p != "" {
			return "its load test at " + RateLabel(r) + " has " + p
		}
	}
	return ""
}

// traceProblem says what no replayed trace holds, as the end of "its
// trace has …": "" without one.
func traceProblem(t *engine.TraceSummary) string {
	if t == nil {
		return ""
	}
	switch {
	case len(t.Name) > 255 || len(t.Cut) > 255:
		return "a name or a note longer than 255 bytes"
	case t.Requests < 0 || t.Requests > maxLoadRequests:
		return fmt.Sprintf("%d requests, outside 0–%s", t.Requests, Int(maxLoadRequests))
	case t.InputTokens < 0 || t.OutputTokens < 0:
		return fmt.Sprintf("a negative token count (%d in, %d out)", t.InputTokens, t.OutputTokens)
	case t.BlockSize < 0 || t.BlockSize > 1<<16:
		return fmt.Sprintf("a block of %d tokens, outside 0–65536", t.BlockSize)
	case !(t.TraceHitRate >= 0 && t.TraceHitRate <= 1):
		return fmt.Sprintf("an implied prefix-cache hit rate of %v, outside 0–1", t.TraceHitRate)
	}
	for _, f := range []loadFigure{{"span", t.SpanS, maxLoadSeconds}, {"time scale", t.TimeScale, 1000}} {
		if p := boundProblem(f.name, f.value, f.max); p != "" {
			return "a " + p
		}
	}
	return ""
}

// loadPlanProblem says what no load plan holds.
func loadPlanProblem(p engine.LoadPlan) string {
	switch {
	case len(p.RatesRPS) > maxLoadRates:
		return fmt.Sprintf("%d rates, more than the %d a load test measures", len(p.RatesRPS), maxLoadRates)
	case p.Requests < 0 || p.Requests > maxLoadRequests:
		return fmt.Sprintf("%d requests per rate, outside 0–%s", p.Requests, Int(maxLoadRequests))
	case p.Burst < 0 || p.Burst > maxLoadRequests:
		return fmt.Sprintf("a burst of %d requests, outside 0–%s", p.Burst, Int(maxLoadRequests))
	case p.MaxConcurrency < 0 || p.MaxConcurrency > maxLoadRequests:
		return fmt.Sprintf("max concurrency %d, outside 0–%s", p.MaxConcurrency, Int(maxLoadRequests))
	case p.SweepRates < 0 || p.SweepRates > maxLoadRates:
		return fmt.Sprintf("%d sweep rates, outside 0–%d", p.SweepRates, maxLoadRates)
	case p.Trace != nil && (len(p.Trace.File) > 4096 || p.Trace.MaxRequests < 0 || p.Trace.MaxRequests > maxLoadRequests || p.Trace.BlockSize < 0 || p.Trace.BlockSize > 1<<16):
		return "a trace whose file name, requests or block size no replay has"
	}
	for _, rate := range p.RatesRPS {
		if rate <= 0 || rate > maxRateRPS || math.IsNaN(rate) {
			return fmt.Sprintf("rate %v req/s, outside (0, %g]", rate, maxRateRPS)
		}
	}
	for _, t := range []struct {
		name string
		r    engine.TokenRange
	}{{"input", p.InputTokens}, {"output", p.OutputTokens}} {
		if t.r.Min < 0 || t.r.Max < t.r.Min || t.r.Max > engine.MaxContextTokens {
			return fmt.Sprintf("%s length %d–%d tokens, not a range inside 0–%d", t.name, t.r.Min, t.r.Max, engine.MaxContextTokens)
		}
	}
	if p.SLO.TTFT < 0 || p.SLO.ITL < 0 {
		return "a negative SLO bound"
	}
	if p := conversationPlanProblem(p.Conversations); p != "" {
		return p
	}
	return ""
}

// loadResultProblem says what is impossible in one rate, as the end of
// "its load test at 4 req/s has …".
func loadResultProblem(r engine.LoadResult) string {
	if p := boundProblem("rate", r.RateRPS, maxRateRPS); p != "" {
		return "a " + p
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"requests", r.Requests}, {"completed requests", r.Completed}, {"failed requests", r.Failed}, {"requests in flight", r.MaxInFlight}, {"requests at once", r.Concurrency}} {
		if c.n < 0 || c.n > maxLoadRequests {
			return fmt.Sprintf("%d %s, outside 0–%s", c.n, c.name, Int(maxLoadRequests))
		}
	}
	if r.Completed+r.Failed > r.Requests {
		return fmt.Sprintf("%d completed and %d failed of %d requests, more than it sent", r.Completed, r.Failed, r.Requests)
	}
	if r.InputTokens < 0 || r.OutputTokens < 0 {
		return fmt.Sprintf("a negative token count (%d in, %d out)", r.InputTokens, r.OutputTokens)
	}
	if p := r.PrefixCache; p != nil && p.Problem() != "" {
		return p.Problem()
	}
	if p := r.Reasoning.Problem(r.OutputTokens); p != "" {
		return p
	}
	if p := turnsProblem(r); p != "" {
		return p
	}
	for _, f := range loadFigures(r) {
		if p := boundProblem(f.name, f.value, f.max); p != "" {
			return "a " + p
		}
	}
	return ""
}

// loadFigure is one number of a rate, its name in the error, and the most
// it may be.
type loadFigure struct {
	name       string
	value, max float64
}

// loadFigures are every number of a rate that a run bounds.
func loadFigures(r engine.LoadResult) []loadFigure {
	fs := []loadFigure{
		{"duration", r.DurationS, maxLoadSeconds}, {"request throughput", r.RequestThroughputRPS, maxRateRPS},
		{"output tok/s", r.OutputTokPerSec, math.MaxFloat64}, {"goodput", r.GoodputRPS, maxRateRPS},
		{"client lateness", r.BehindMs, maxLatencyMs}, {"drain time", r.DrainS, maxLoadSeconds},
		{"reasoning token count", float64(r.ReasoningTokens), math.MaxInt32}, {"answer token count", float64(r.AnswerTokens), math.MaxInt32},
		{"time to first answer token", r.AnswerTTFTMs, maxLatencyMs},
	}
	for _, l := range []struct {
		name string
		pct  engine.Percentiles
	}{{"TTFT", r.TTFTMs}, {"TPOT", r.TPOTMs}, {"ITL", r.ITLMs}, {"E2E latency", r.E2EMs}} {
		fs = append(fs, loadFigure{l.name + " p50", l.pct.P50, maxLatencyMs}, loadFigure{l.name + " p90", l.pct.P90, maxLatencyMs},
			loadFigure{l.name + " p99", l.pct.P99, maxLatencyMs}, loadFigure{l.name + " mean", l.pct.Mean, maxLatencyMs},
			loadFigure{l.name + " sample count", float64(l.pct.N), math.MaxInt32})
	}
	if s := r.Server; s != nil {
		fs = append(fs, loadFigure{"server tok/s", s.TokPerSec, math.MaxFloat64}, loadFigure{"server active requests", s.Active, maxLoadRequests},
			loadFigure{"preemption count", float64(s.Preemptions), math.MaxInt32})
	}
	return fs
}

// boundProblem says why v is no figure of name a run writes: negative, not
// a number, infinite, or above most; "" when it is one.
func boundProblem(name string, v, most float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Sprintf("%s that is not a number (%v)", name, v)
	case v < 0:
		return fmt.Sprintf("negative %s (%v)", name, v)
	case v > most:
		return fmt.Sprintf("%s of %v, more than the %g a run writes", name, v, most)
	}
	return ""
}
