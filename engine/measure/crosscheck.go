package measure

import (
	"fmt"
	"math"
	"speedmatrix/engine"
	"speedmatrix/engine/servers"
	"time"
)

// perStepShare is the share of the window's sample intervals with tokens
// arriving at the client in which a server counter must move for it to
// count as advancing every scheduler step (rather than when requests end).
const perStepShare = 0.8

// counter reads one cumulative figure out of a sample.
type counter func(metricSample) float64

func genTokens(s metricSample) float64   { return s.GenTokens }
func itlTokens(s metricSample) float64   { return s.ITLCount + s.TTFTCount }
func preemptions(s metricSample) float64 { return s.Preemptions }

// inside returns the samples in [from, to].
func inside(samples []metricSample, from, to time.Time) []metricSample {
	var out []metricSample
	for _, s := range samples {
		if !s.At.Before(from) && !s.At.After(to) {
			out = append(out, s)
		}
	}
	return out
}

// timeAverage is the time-average of f over the span of the samples, as a
// piecewise-linear curve between them.
func timeAverage(in []metricSample, f counter) float64 {
	if len(in) < 2 {
		return 0
	}
	var area float64
	for i := 1; i < len(in); i++ {
		area += (f(in[i-1]) + f(in[i])) / 2 * in[i].At.Sub(in[i-1].At).Seconds()
	}
	return area / in[len(in)-1].At.Sub(in[0].At).Seconds()
}

// advancesPerStep reports whether c moved in at least perStepShare of the
// intervals between the samples in in which the client received tokens.
func advancesPerStep(in []metricSample, c counter, gotTokens func(a, b time.Time) bool) bool {
	busy, moved := 0, 0
	for i := 1; i < len(in); i++ {
		if !gotTokens(in[i-1].At, in[i].At) {
			continue
		}
		busy++
		if c(in[i]) > c(in[i-1]) {
			moved++
		}
	}
	return busy > 0 && float64(moved) >= perStepShare*float64(busy)
}

// slowScrape is how much longer than the median a scrape may take and still
// date a rate's end: a real vLLM on a busy core answered most scrapes in
// 20 ms and some in 170 ms, and a page written anywhere in those 170 ms
// moves a 10 s rate by up to 2 %.
const slowScrape = 2

// slowScrapeMs is how long a scrape must take, besides slowScrape × the
// median, before a server-count flag names the slow answers as a cause.
const slowScrapeMs = 100

// scrapeTimes are the median and the slowest of how long the samples'
// scrapes took, in milliseconds.
func scrapeTimes(in []metricSample) (median, slowest float64) {
	ms := make([]float64, len(in))
	for i, s := range in {
		ms[i] = float64(s.Took) / float64(time.Millisecond)
		slowest = max(slowest, ms[i])
	}
	return percentiles(ms).P50, slowest
}

// trimSlow drops the slow scrapes at either end of in, so that the first and
// the last sample, which date the rates, are known to within a fast scrape;
// medianMs is the median scrape time of in.
func trimSlow(in []metricSample, medianMs float64) []metricSample {
	if len(in) < 4 {
		return in
	}
	limit := time.Duration(slowScrape * medianMs * float64(time.Millisecond))
	for len(in) > 2 && in[0].Took > limit {
		in = in[1:]
	}
	for len(in) > 2 && in[len(in)-1].Took > limit {
		in = in[:len(in)-1]
	}
	return in
}

// medianOf is the median of f over the samples.
func medianOf(in []metricSample, f counter) float64 {
	v := make([]float64, len(in))
	for i, s := range in {
		v[i] = f(s)
	}
	return percentiles(v).P50
}

// rate is how fast c grew per second over the span of the samples.
func rate(in []metricSample, c counter) float64 {
	first, last := in[0], in[len(in)-1]
	return (c(last) - c(first)) / last.At.Sub(first.At).Seconds()
}

// growth is how much c grew over the samples: a counter that went down was
// reset by a restart and started again from zero, so what it shows then
// grew since.
func growth(in []metricSample, c counter) float64 {
	var g float64
	for i := 1; i < len(in); i++ {
		if d := c(in[i]) - c(in[i-1]); d >= 0 {
			g += d
		} else {
			g += c(in[i])
		}
	}
	return g
}

// resetCounter names the token counter of names that went down in the
// samples (a restart resets it), "" when none did.
func resetCounter(names servers.Checks, samples []metricSample) string {
	for _, c := range []struct {
		name  string
		count counter
	}{{names.GenCounter, genTokens}, {names.ITLCounters, itlTokens}} {
		for i := 1; i < len(samples) && c.name != ""; i++ {
			if c.count(samples[i]) < c.count(samples[i-1]) {
				return c.name
			}
		}
	}
	return ""
}

// crossCheckWith is crossCheck against an engine whose metrics are named
// by names. A token counter that moves only when requests end is replaced,
// where the engine has one, by the time-average of its throughput gauge.
func crossCheckWith(names servers.Checks, samples []metricSample, from, to time.Time, gotTokens func(a, b time.Time) bool) *engine.ServerCheck {
	all := inside(samples, from, to)
	median, slowest := scrapeTimes(all)
	in := trimSlow(all, median)
	if len(in) < 2 || !in[len(in)-1].At.After(in[0].At) {
		return nil
	}
	c := &engine.ServerCheck{
		ScrapeMedianMs:  median,
		ScrapeSlowestMs: slowest,
		Samples:         len(in),
		Active:          timeAverage(in, func(s metricSample) float64 { return s.Running }),
		ActiveMedian:    medianOf(in, func(s metricSample) float64 { return s.Running }),
		Waiting:         timeAverage(in, func(s metricSample) float64 { return s.Waiting }),
	}
	last := samples[len(samples)-1]
	c.CounterReset = resetCounter(names, samples)
	switch {
	case c.CounterReset != "":
		c.NotComparable = "the server's counter " + c.CounterReset + " went down during the cell (was the server restarted?)"
	case last.HasGen && advancesPerStep(in, genTokens, gotTokens):
		c.TokSource = names.GenCounter
		c.TokPerSec = rate(in, genTokens)
	case last.HasITL && names.ITLCounters != "" && advancesPerStep(in, itlTokens, gotTokens):
		c.TokSource = names.ITLCounters
		c.TokPerSec = rate(in, itlTokens)
	case last.HasThroughput && names.Throughput != "":
		c.TokSource = names.Throughput
		c.TokPerSec = timeAverage(in, func(s metricSample) float64 { return s.GenThroughput })
	case last.HasGen || last.HasITL:
		c.NotComparable = "the server's token counters don't advance while requests run (only when they end)"
	default:
		c.NotComparable = "the server exposes no generated-token counter"
	}
	c.Preemptions = int(growth(samples, preemptions) + 0.5)
	if last.HasSpec {
		c.SpecDecode = specDecode(in)
	}
	return c
}

func specDecode(in []metricSample) *engine.SpecDecode {
	first, last := in[0], in[len(in)-1]
	s := &engine.SpecDecode{Drafts: last.SpecDrafts - first.SpecDrafts, DraftTokens: last.SpecDraftTokens - first.SpecDraftTokens,
		AcceptedTokens: last.SpecAccepted - first.SpecAccepted}
	if s.DraftTokens > 0 {
		s.AcceptanceRate = s.AcceptedTokens / s.DraftTokens
	}
	if s.Drafts > 0 {
		s.MeanAcceptedLength = 1 + s.AcceptedTokens/s.Drafts
	}
	return s
}

// checkFlags are the flags the server cross-check raises on a Valid cell.
func checkFlags(c *engine.ServerCheck, ours float64) []engine.Flag {
	if c == nil {
		return nil
	}
	var flags []engine.Flag
	if c.TokPerSec > 0 && ours > 0 && math.Abs(c.TokPerSec-ours) > engine.ServerCountTolerance*ours {
		msg := fmt.Sprintf("the server counted %.1f tok/s (we counted %.1f, %+.1f %%)", c.TokPerSec, ours, 100*(c.TokPerSec-ours)/ours)
		if c.ScrapeSlowestMs > slowScrape*c.ScrapeMedianMs && c.ScrapeSlowestMs >= slowScrapeMs {
			msg += fmt.Sprintf("; its /metrics answered in %.0f ms median but up to %.0f ms: is the server short of CPU?", c.ScrapeMedianMs, c.ScrapeSlowestMs)
		}
		flags = append(flags, engine.Flag{Kind: engine.FlagServerCount, Message: msg})
	}
	if c.CounterReset != "" {
		flags = append(flags, engine.Flag{Kind: engine.FlagCounterReset, Message: "the server's counter " + c.CounterReset + " was reset: it may have restarted"})
	}
	if c.Preemptions > 0 {
		flags = append(flags, engine.Flag{Kind: engine.FlagPreempted, Message: fmt.Sprintf("preempted %d %s: KV cache pressure", c.Preemptions, engine.Plural(c.Preemptions, "time", "times"))})
	}
	return flags
}
