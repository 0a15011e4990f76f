package widget

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// CellDetails is what one cell measured, for the pane a heatmap or the All
// measurements table shows when a cell is chosen: its line as the log
// writes it (report.CellLine), then for a decode cell the spread of TTFT
// and ITL at p50, p90 and p99 and of per-request tok/s at p50, p10 and p1
// (a speed's slow requests are its low end), with the samples behind
// each, a tail from too few samples marked in words, the ± of the
// headline figures (total tok/s in the first line, the medians of ITL and
// per-request tok/s after their p50) when the cell carries precision, and
// how the cell fares against the SLO when one is on. A prefill cell that
// is the median of repeats (its line says "median of 3, spread 1.2 %")
// lists each request's TTFT, so that the slow one can be seen. Every cell
// whose server counted its prefix cache ends with what it found there
// (report.PrefixCacheText). A cell with measured energy says it second
// (report.CellEnergyText: tokens per joule, J/token and above idle, or a
// prefill's J per 1K prompt tokens, and how it was measured); its price
// per million tokens is the Cost view's.
func CellDetails(r engine.Result, slo engine.SLO) string {
	lines := []string{report.CellLine(r)}
	if text := report.CellEnergyText(r, nil); text != "" {
		lines = append(lines, "Energy: "+text)
	}
	cache := report.PrefixCacheText(r.PrefixCache)
	if r.Phase == engine.PhasePrefill && report.PrefillRepeatsText(r) != "" {
		ttfts := make([]string, len(r.Requests))
		for i, s := range r.Requests {
			ttfts[i] = latencyText(s.TTFTMs)
		}
		lines = append(lines, "TTFT of each request, in the order sent: "+strings.Join(ttfts, " · "))
	}
	if r.Phase != engine.PhaseDecode || !r.Measured() {
		return joinLines(append(lines, cache))
	}
	lines = append(lines,
		"TTFT: "+spread(r.TTFTPct, latencyText, ""),
		"ITL: "+spread(r.ITLPct, latencyText, plusMinus(r, report.ITLPrecision)),
		"Per request tok/s: "+speedSpread(r.PerRequestPct, plusMinus(r, report.PerRequestPrecision)))
	for _, f := range []tail{{"TTFT", "p99", "slowest", r.TTFTPct}, {"ITL", "p99", "slowest", r.ITLPct}, speedTail(r.PerRequestPct)} {
		if f.of.FewForP99() {
			lines = append(lines, fmt.Sprintf("⚠ %s %s from %s: read it as the %s few, not a tail you can plan on.",
				f.name, f.pct, engine.Count(f.of.N, "sample", "samples"), f.few))
		}
	}
	if c, ok := slo.Judge(r); ok {
		lines = append(lines, "SLO "+OnScreen(report.SLOText(slo))+": "+report.SLOVerdict(c)+", "+marginWords(slo, c))
	}
	return joinLines(append(lines, report.ReasoningText(r.Reasoning, r.TTFTMs), cache))
}

// joinLines is lines, one per line, without the empty ones.
func joinLines(lines []string) string {
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "\n")
}

// spread writes a figure's percentiles, "p50 812 ms · p90 1,402 ms · p99
// 2,113 ms (1,204 samples)", with pm (" ± 0.3 %", or "") after the p50,
// the cell's figure; the count is left out when the report does not know
// it (an imported or older report), a percentile it lacks is a dash.
func spread(p engine.Percentiles, format func(float64) string, pm string) string {
	known := func(v float64) string {
		if v == 0 && p.P50 != 0 {
			return report.Dash // not in the report (an import that gives only medians)
		}
		return format(v)
	}
	s := "p50 " + format(p.P50) + pm + " · p90 " + known(p.P90) + " · p99 " + report.P99(known(p.P99), p)
	return s + report.SamplesText(p, "sample", "samples")
}

// speedSpread writes per-request tok/s's percentiles, "p50 41.2 ± 1.2 % ·
// p10 38.0 · p1 35.2 (420 samples) · p10 and p1 are the slowest requests":
// a speed's slow requests are its low percentiles. A report written before
// they were kept has only its p90 and p99, which are named for what they
// are, the fastest requests.
func speedSpread(p engine.Percentiles, pm string) string {
	if p.P10 == 0 && p.P1 == 0 {
		return spread(p, report.PerRequest, pm) + " · p90 and p99 are the fastest requests (this report kept no p10 or p1)"
	}
	s := "p50 " + report.PerRequest(p.P50) + pm + " · p10 " + report.PerRequest(p.P10) + " · p1 " + report.P99(report.PerRequest(p.P1), p)
	return s + report.SamplesText(p, "sample", "samples") + " · p10 and p1 are the slowest requests"
}

// tail is a figure's tail percentile for the few-samples warning: its
// name, the percentile and which requests it is the few of.
type tail struct {
	name, pct, few string
	of             engine.Percentiles
}

// speedTail is per-request tok/s's tail: its p1, the slowest few, or in
// an older report its p99, the fastest few.
func speedTail(p engine.Percentiles) tail {
	if p.P10 == 0 && p.P1 == 0 {
		return tail{"Per request tok/s", "p99", "fastest", p}
	}
	return tail{"Per request tok/s", "p1", "slowest", p}
}

// latencyText writes a latency as the All measurements table does: whole
// milliseconds (1,147 ms), with one decimal below 100 ms (5.9 ms), where a
// tenth still matters.
func latencyText(ms float64) string {
	if ms < 100 {
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	}
	return report.Millis(ms)
}

// plusMinus is " ± 0.3 %" for the figure pick chooses (report.PlusMinus),
// "" when r carries no precision.
func plusMinus(r engine.Result, pick func(engine.CellPrecision) engine.Precision) string {
	return report.WithPlusMinus("", r, pick)
}
