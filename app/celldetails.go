package app

import (
	"fmt"
	"strconv"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// cellDetails is what one cell measured, for the pane a heatmap or the All
// measurements table shows when a cell is chosen: its line as the log
// writes it (report.CellLine), then for a decode cell the spread of TTFT,
// ITL and per-request tok/s at p50, p90 and p99 with the samples behind
// each, a p99 from too few samples marked in words, the ± of the
// headline figures (total tok/s in the first line, the medians of ITL and
// per-request tok/s after their p50) when the cell carries precision, and
// how the cell fares against the SLO when one is on. A prefill cell that
// is the median of repeats (its line says "median of 3, spread 1.2 %")
// lists each request's TTFT, so that the slow one can be seen.
func cellDetails(r engine.Result, slo engine.SLO) string {
	lines := []string{report.CellLine(r)}
	if r.Phase == engine.PhasePrefill && report.PrefillRepeatsText(r) != "" {
		ttfts := make([]string, len(r.Requests))
		for i, s := range r.Requests {
			ttfts[i] = latencyText(s.TTFTMs)
		}
		return lines[0] + "\nTTFT of each request, in the order sent: " + strings.Join(ttfts, " · ")
	}
	if r.Phase != engine.PhaseDecode || !r.Measured() {
		return lines[0]
	}
	lines = append(lines,
		"TTFT: "+spread(r.TTFTPct, latencyText, ""),
		"ITL: "+spread(r.ITLPct, latencyText, plusMinus(r, itlPrecision)),
		"Per request tok/s: "+spread(r.PerRequestPct, report.PerRequest, plusMinus(r, perRequestPrecision)))
	for _, f := range []struct {
		name string
		pct  engine.Percentiles
	}{{"TTFT", r.TTFTPct}, {"ITL", r.ITLPct}, {"Per request tok/s", r.PerRequestPct}} {
		if f.pct.FewForP99() {
			lines = append(lines, fmt.Sprintf("⚠ %s p99 from %s: read it as the slowest few, not a tail you can plan on.",
				f.name, engine.Count(f.pct.N, "sample", "samples")))
		}
	}
	if c, ok := slo.Judge(r); ok {
		lines = append(lines, "SLO "+onScreen(report.SLOText(slo))+": "+report.SLOVerdict(c)+", "+marginWords(slo, c))
	}
	return strings.Join(lines, "\n")
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
	if p.N > 0 {
		s += " (" + report.Int(p.N) + " " + engine.Plural(p.N, "sample", "samples") + ")"
	}
	return s
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

func itlPrecision(c engine.CellPrecision) engine.Precision        { return c.ITLMs }
func perRequestPrecision(c engine.CellPrecision) engine.Precision { return c.PerRequestTokPerSec }
