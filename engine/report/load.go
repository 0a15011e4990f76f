package report

import (
	"fmt"
	"math"
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

// FewSamplesMarker follows a p99 read from fewer than engine.MinP99Samples
// samples: it is one of the few slowest requests, not a percentile.
const FewSamplesMarker = "‡"

// NoteFewSamples explains FewSamplesMarker where it appears.
var NoteFewSamples = fmt.Sprintf("%s: a p99 of fewer than %d samples is one of the few slowest requests, not a percentile.",
	FewSamplesMarker, engine.MinP99Samples)

// LoadMeasured reports whether a rate's figures may be shown as measured:
// it is Valid. Its request counts are shown whatever its status.
func LoadMeasured(r engine.LoadResult) bool { return r.Status == engine.StatusValid }

// IsBurst reports whether a rate is a burst: every request at once, no rate.
func IsBurst(r engine.LoadResult) bool { return r.Arrivals == engine.ArrivalsBurst }

// RateLabel names a rate in tables and lists: "4 req/s", "0.5 req/s", or
// "burst of 64" for a burst.
func RateLabel(r engine.LoadResult) string {
	if IsBurst(r) {
		return "burst of " + Int(r.Requests)
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
	if p.Burst > 0 || (len(l.Results) > 0 && IsBurst(l.Results[0])) {
		n := p.Burst
		if n == 0 {
			n = l.Results[0].Requests
		}
		return "load test · a burst of " + engine.Count(n, "request", "requests")
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
// concurrency 64 · SLO TTFT p99 ≤ 2 s and ITL p99 ≤ 50 ms".
func LoadPlanLine(p engine.LoadPlan) string {
	var parts []string
	if p.Burst > 0 {
		parts = append(parts, "a burst of "+engine.Count(p.Burst, "request", "requests")+" at once")
	} else {
		a := arrivalsWords(p.Arrivals) + " arrivals"
		if p.Arrivals == engine.ArrivalsPoisson {
			a += fmt.Sprintf(" (seed %d)", p.Seed)
		}
		parts = append(parts, a)
		if p.Requests > 0 {
			parts = append(parts, engine.Count(p.Requests, "request", "requests")+" per rate")
		}
	}
	if p.Dataset != "" {
		parts = append(parts, "prompts from "+p.Dataset)
	} else {
		parts = append(parts, "input "+tokenRange(p.InputTokens))
	}
	parts = append(parts, "output "+tokenRange(p.OutputTokens))
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

// pctMillis writes the percentile of a latency, with FewSamplesMarker after
// a p99 of too few samples.
func pctMillis(pct engine.Percentiles, p int) string {
	v := pct.P50
	switch p {
	case 90:
		v = pct.P90
	case 99:
		v = pct.P99
	}
	s := loadMillis(v)
	if p == 99 && pct.FewForP99() {
		s += " " + FewSamplesMarker
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
		return LoadMeasured(r) && (r.TTFTMs.FewForP99() || r.TPOTMs.FewForP99() || r.ITLMs.FewForP99() || r.E2EMs.FewForP99())
	})
}

// LoadColumns are the headings of a load test's per-rate table
// (report.md's Per rate, the report sheet's table).
var LoadColumns = []string{
	"Rate", "Status", "Completed", "Failed", "Duration", "Requests/s", "Output tok/s", "Goodput",
	"TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "E2E p50", "E2E p99",
}

// LoadRow is one rate of the per-rate table, one field per LoadColumns. The
// request counts are shown whatever the status; the figures only for a
// Valid rate (Dash otherwise). A flagged Valid rate's status ends with
// FlagMarker.
func LoadRow(r engine.LoadResult) []string {
	row := []string{RateLabel(r), string(r.Status), Int(r.Completed), Int(r.Failed), seconds(r.DurationS)}
	if LoadMeasured(r) && len(r.Flags) > 0 {
		row[1] += " " + FlagMarker
	}
	if !LoadMeasured(r) {
		for len(row) < len(LoadColumns) {
			row = append(row, Dash)
		}
		return row
	}
	return append(row, reqPerSec(r.RequestThroughputRPS), TokPerSec(r.OutputTokPerSec), reqPerSec(r.GoodputRPS),
		pctMillis(r.TTFTMs, 50), pctMillis(r.TTFTMs, 99), pctMillis(r.ITLMs, 50), pctMillis(r.ITLMs, 99),
		pctMillis(r.E2EMs, 50), pctMillis(r.E2EMs, 99))
}

// LoadLatencyColumns are the headings of report.md's Latency table: every
// latency at p50, p90 and p99.
var LoadLatencyColumns = []string{
	"Rate", "TTFT p50", "TTFT p90", "TTFT p99", "TPOT p50", "TPOT p90", "TPOT p99",
	"ITL p50", "ITL p90", "ITL p99", "E2E p50", "E2E p90", "E2E p99",
}

// LoadLatencyRow is one rate of the Latency table; Dash for a rate that
// isn't Valid.
func LoadLatencyRow(r engine.LoadResult) []string {
	row := []string{RateLabel(r)}
	for _, pct := range []engine.Percentiles{r.TTFTMs, r.TPOTMs, r.ITLMs, r.E2EMs} {
		for _, p := range []int{50, 90, 99} {
			if LoadMeasured(r) {
				row = append(row, pctMillis(pct, p))
			} else {
				row = append(row, Dash)
			}
		}
	}
	return row
}

// LoadCheckColumns are the headings of a load test's Checks table.
var LoadCheckColumns = []string{
	"Rate", "Status", "Our tok/s", "Server tok/s", "Server vs ours", "Server active", "Preemptions", "Drain",
	"GPU throttle", "Client late by", "Most in flight",
}

// LoadCheckRow is one rate of the Checks table: the server's and the GPUs'
// observations beside our output tok/s, shown whatever the status, and how
// far behind its schedule the client fell.
func LoadCheckRow(r engine.LoadResult) []string {
	d := Dash
	row := []string{RateLabel(r), string(r.Status), d, d, d, d, d, d, d, loadMillis(r.BehindMs), Int(r.MaxInFlight)}
	if LoadMeasured(r) {
		row[2] = TokPerSec(r.OutputTokPerSec)
	}
	if s := r.Server; s != nil {
		if s.NotComparable == "" {
			row[3] = TokPerSec(s.TokPerSec)
		}
		if v, ok := LoadServerVsOurs(r); ok {
			row[4] = Percent(v)
		}
		row[5], row[6], row[7] = fixed1(s.Active), Int(s.Preemptions), seconds(r.DrainS)
	}
	if r.Telemetry != nil && r.Telemetry.Throttle != nil {
		row[8] = r.Telemetry.Throttle.Describe()
	}
	return row
}

// LoadServerVsOurs is how far the server's generated tok/s is from our
// output tok/s over the rate's duration (+0.05: the server counted 5 %
// more), and whether both were counted.
func LoadServerVsOurs(r engine.LoadResult) (float64, bool) {
	s := r.Server
	if s == nil || s.NotComparable != "" || !LoadMeasured(r) || r.OutputTokPerSec <= 0 {
		return 0, false
	}
	return s.TokPerSec/r.OutputTokPerSec - 1, true
}

// LoadFlagLines lists, in the order given, one line per rate that carries
// flags: "16 req/s: preempted 14 times: KV cache pressure; …".
func LoadFlagLines(rs []engine.LoadResult) []string {
	var lines []string
	for _, r := range rs {
		if len(r.Flags) == 0 {
			continue
		}
		msgs := make([]string, len(r.Flags))
		for i, f := range r.Flags {
			msgs[i] = f.Message
			if msgs[i] == "" {
				msgs[i] = string(f.Kind)
			}
		}
		lines = append(lines, RateLabel(r)+": "+strings.Join(msgs, "; "))
	}
	return lines
}

// LoadErrorLines lists the reason of every rate that isn't Valid: "8
// req/s: Failed: …".
func LoadErrorLines(rs []engine.LoadResult) []string {
	var lines []string
	for _, r := range rs {
		if !LoadMeasured(r) {
			line := RateLabel(r) + ": " + string(r.Status)
			if r.Error != "" {
				line += ": " + r.Error
			}
			lines = append(lines, line)
		}
	}
	return lines
}
