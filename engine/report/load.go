package report

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine"
)

// LoadTitle heads a load test's report (report.md, the report sheet), as
// Title heads a matrix's.
const LoadTitle = "Load test"

// TitleOf is the heading of r's report: LoadTitle for a load test, else Title.
func TitleOf(r engine.Report) string {
	if r.Load != nil {
		return LoadTitle
	}
	return Title
}

// NoteLoadLatencies explains how a load test's latencies are counted, under
// its tables in report.md and the report sheet.
const NoteLoadLatencies = "Latencies count from each request's scheduled arrival, not from when the client sent it " +
	"(no coordinated omission). TPOT is per request: (E2E − TTFT) ÷ (output tokens − 1); ITL is every gap between tokens " +
	"of every request. Goodput is the completed requests per second that met the SLO (all of them without an SLO)."

// NoteLoadFlagged explains FlagMarker under a load test's tables.
const NoteLoadFlagged = "Flagged (" + FlagMarker + "): a trust check doubts this rate; its figures are kept and the reasons are listed under the tables."

// LoadMeasured reports whether a rate's figures may be shown as measured:
// it is Valid. Its request counts are shown whatever its status.
func LoadMeasured(r engine.LoadResult) bool { return r.Status == engine.StatusValid }

// LoadHasFigures reports whether a rate has latency and throughput figures
// to show: it is Valid, or it failed or was cancelled after some requests
// completed (a server that died part-way), whose figures are those of the
// requests that completed before it stopped. Its tables, load.csv and the
// CLI show them beside its status; its charts only a Valid rate's.
func LoadHasFigures(r engine.LoadResult) bool { return LoadMeasured(r) || r.Completed > 0 }

// LoadPartial reports whether a rate that isn't Valid has figures
// (LoadHasFigures): those of the requests completed before it stopped.
func LoadPartial(r engine.LoadResult) bool { return !LoadMeasured(r) && LoadHasFigures(r) }

// NoteLoadPartial explains the figures of a rate that isn't Valid, under a
// load test's tables.
const NoteLoadPartial = "A rate that failed or was cancelled part-way shows the figures of the requests that completed before it stopped; why it stopped is under Errors."

// IsBurst reports whether a rate is a burst: every request at once, no rate.
func IsBurst(r engine.LoadResult) bool { return r.Arrivals == engine.ArrivalsBurst }

// RateLabel names a rate in tables and lists: "4 req/s", "0.5 req/s",
// "burst of 64" for a burst, or "8 at once" for a row held at a number of
// requests open at once (an imported closed-loop run).
func RateLabel(r engine.LoadResult) string {
	if IsBurst(r) {
		return "burst of " + Int(r.Requests)
	}
	if r.Arrivals == engine.ArrivalsTrace {
		return "trace, " + RateRPS(r.RateRPS) + " req/s"
	}
	if r.Arrivals == engine.ArrivalsConversations {
		return "conversations"
	}
	if r.Arrivals == engine.ArrivalsConcurrent {
		return Int(r.Concurrency) + " at once"
	}
	return RateRPS(r.RateRPS) + " req/s"
}

// RateRPS writes a request rate with no more digits than it has, at most
// three decimals: "4", "0.5", "6.417".
func RateRPS(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// reqPerSec writes a measured request throughput: "3.71 req/s".
func reqPerSec(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " req/s" }

// LoadLine says what a load test measured, for the line under the title:
// "load test · 5 rates (1–16 req/s) · Poisson arrivals · 200 requests per
// rate", or "load test · a burst of 64 requests".
func LoadLine(l engine.LoadSection) string {
	p := l.Plan
	if p.Conversations != nil {
		return conversationLoadLine(p)
	}
	if p.Trace != nil {
		s := "load test · trace replay"
		if t := l.Trace; t != nil {
			s += " · " + engine.Count(t.Requests, "request", "requests") + " over " + fixed1(t.SpanS) + " s"
		}
		return s
	}
	if p.Burst > 0 || (len(l.Results) > 0 && IsBurst(l.Results[0])) {
		n := p.Burst
		if n == 0 {
			n = l.Results[0].Requests
		}
		return "load test · a burst of " + engine.Count(n, "request", "requests")
	}
	if len(l.Results) > 0 && l.Results[0].Arrivals == engine.ArrivalsConcurrent {
		return concurrentLoadLine(l)
	}
	var rates []float64
	for _, r := range l.Results {
		rates = append(rates, r.RateRPS)
	}
	if len(rates) == 0 {
		rates = slices.Clone(p.RatesRPS)
	}
	slices.Sort(rates)
	parts := []string{"load test"}
	switch {
	case len(rates) == 1:
		parts = append(parts, RateRPS(rates[0])+" req/s")
	case len(rates) > 1:
		parts = append(parts, fmt.Sprintf("%d rates (%s–%s req/s)", len(rates), RateRPS(rates[0]), RateRPS(rates[len(rates)-1])))
	}
	if p.Sweep {
		parts = append(parts, "sweep")
	}
	parts = append(parts, arrivalsWords(p.Arrivals)+" arrivals")
	if p.Requests > 0 {
		parts = append(parts, engine.Count(p.Requests, "request", "requests")+" per rate")
	}
	return strings.Join(parts, " · ")
}

// arrivalsWords names an arrival process: "Poisson", "constant", "burst".
func arrivalsWords(a engine.Arrivals) string {
	switch a {
	case engine.ArrivalsPoisson:
		return "Poisson"
	case "":
		return "unknown"
	}
	return string(a)
}

// LoadPlanLine is a load test's plan in one line: "Poisson arrivals (seed
// 42) · 200 requests per rate · input 1,024 tokens · output 256 tokens · max
// concurrency 64 · SLO TTFT p99 ≤ 2 s and ITL p99 ≤ 50 ms". An imported
// test's plan is what its tool's file says: no seed, lengths or SLO.
func LoadPlanLine(l engine.LoadSection) string {
	p := l.Plan
	if l.Imported != nil {
		return importedPlanLine(p)
	}
	var parts []string
	switch {
	case p.Trace != nil:
		parts = append(parts, "trace "+engine.BoundName(filepath.Base(p.Trace.File))+" at time scale "+strconv.FormatFloat(cmp.Or(p.Trace.TimeScale, 1), 'g', -1, 64))
	case p.Conversations != nil:
		parts = append(parts, conversationPlanWords(p))
	case p.Burst > 0:
		parts = append(parts, "a burst of "+engine.Count(p.Burst, "request", "requests")+" at once")
	default:
		a := arrivalsWords(p.Arrivals) + " arrivals"
		if p.Arrivals == engine.ArrivalsPoisson {
			a += fmt.Sprintf(" (seed %d)", p.Seed)
		}
		parts = append(parts, a)
		if p.Requests > 0 {
			parts = append(parts, engine.Count(p.Requests, "request", "requests")+" per rate")
		}
	}
	switch {
	case p.Trace != nil:
		// Each request's lengths and prompt blocks are the trace's.
	case p.Dataset != "":
		parts = append(parts, "prompts from "+p.Dataset, "output "+tokenRange(p.OutputTokens))
	default:
		parts = append(parts, "input "+tokenRange(p.InputTokens), "output "+tokenRange(p.OutputTokens))
	}
	if p.MaxConcurrency > 0 {
		parts = append(parts, "max concurrency "+Int(p.MaxConcurrency))
	}
	if p.API != "" {
		parts = append(parts, string(p.API)+" API")
	}
	if p.SLO.On() {
		parts = append(parts, "SLO "+sloWords(p.SLO))
	} else {
		parts = append(parts, "no SLO (goodput counts every completed request)")
	}
	return strings.Join(parts, " · ")
}

// tokenRange writes a length: "1,024 tokens", or "512–2,048 tokens (uniform)".
func tokenRange(t engine.TokenRange) string {
	if t.Fixed() {
		return tokens(t.Min)
	}
	return Int(t.Min) + "–" + Int(t.Max) + " tokens (uniform)"
}

// sloWords is an SLO's bounds: "TTFT p99 ≤ 2 s and ITL p99 ≤ 50 ms".
func sloWords(s engine.SLO) string {
	var parts []string
	at := fmt.Sprintf(" p%d ≤ ", s.At())
	if s.TTFT > 0 {
		parts = append(parts, "TTFT"+at+DurationWords(s.TTFT))
	}
	if s.ITL > 0 {
		parts = append(parts, "ITL"+at+DurationWords(s.ITL))
	}
	return strings.Join(parts, " and ")
}

// DurationWords writes a latency bound as people set it: "50 ms", "2 s", "1.5 s".
func DurationWords(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// LoadLimitLine says what a sweep measured first: "Sweep: the throughput
// limit measured first is 6.42 req/s; the rates are spread up to it."; ""
// without a sweep.
func LoadLimitLine(l engine.LoadSection) string {
	if l.LimitRPS <= 0 {
		return ""
	}
	return "Sweep: the throughput limit measured first at high concurrency is " + reqPerSec(l.LimitRPS) +
		"; the rates are spread up to it."
}

// pctMillis writes the percentile p of a latency, with FewSamplesMarker
// after a p99 of too few samples.
func pctMillis(pct engine.Percentiles, p int) string {
	if !HasPercentile(pct, p) {
		return Dash
	}
	s := loadMillis(pct.At(p))
	if p == 99 {
		s = P99(s, pct)
	}
	return s
}

// loadMillis writes a load test's latency: one decimal below 100 ms (a
// TPOT of 12.4 ms), whole milliseconds above (1,840 ms).
func loadMillis(ms float64) string {
	if ms < 100 {
		return millisFine(ms)
	}
	return Millis(ms)
}

// anyFewForP99 reports whether a shown p99 of rs rests on too few samples.
func anyFewForP99(rs []engine.LoadResult) bool {
	return slices.ContainsFunc(rs, func(r engine.LoadResult) bool {
		return LoadHasFigures(r) && (r.TTFTMs.FewForP99() || r.TPOTMs.FewForP99() || r.ITLMs.FewForP99() || r.E2EMs.FewForP99())
	})
}

// TraceLine says what was replayed of a trace: "Trace t.jsonl: 40
// requests over 9.6 s (time scale 1), 81,382 prompt and 1,555 output
// tokens in blocks of 512; its hash ids imply a prefix-cache hit rate of
// 59.1 % with an unbounded cache", and what was done to it; "" without one.
func TraceLine(t *engine.TraceSummary) string {
	if t == nil {
		return ""
	}
	s := fmt.Sprintf("Trace %s: %s over %s s (time scale %s), %s prompt and %s output tokens in blocks of %d; its hash ids imply a prefix-cache hit rate of %s %% with an unbounded cache",
		engine.BoundName(t.Name), engine.Count(t.Requests, "request", "requests"), fixed1(t.SpanS), strconv.FormatFloat(t.TimeScale, 'g', -1, 64),
		Int(t.InputTokens), Int(t.OutputTokens), t.BlockSize, fixed1(100*t.TraceHitRate))
	if t.Sorted {
		s += "; its timestamps were out of order, and were sorted"
	}
	if t.Cut != "" {
		s += "; replayed " + engine.BoundText(t.Cut, 120)
	}
	return s
}
