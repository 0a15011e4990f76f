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

// SLOText words an SLO as report.md, the charts and the CLI say it:
// "TTFT p99 ≤ 2 s and ITL p99 ≤ 50 ms"; "" when it is off.
func SLOText(s engine.SLO) string {
	var parts []string
	if s.TTFT > 0 {
		parts = append(parts, fmt.Sprintf("TTFT p%d ≤ %s", s.At(), sloBound(s.TTFT)))
	}
	if s.ITL > 0 {
		parts = append(parts, fmt.Sprintf("ITL p%d ≤ %s", s.At(), sloBound(s.ITL)))
	}
	return strings.Join(parts, " and ")
}

// sloBound writes a bound as people set it: "2 s", "1.5 s", "50 ms", "0.5 ms".
func sloBound(d time.Duration) string {
	if d >= time.Second {
		return wholeSeconds(d.Seconds())
	}
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + " ms"
}

// SLOLines are one line per decode context, in order, saying how many
// simultaneous requests meet the report's SLO there (engine.SLO.MostRequests):
// "8K: up to 32 simultaneous requests meet TTFT p99 ≤ 2 s and ITL p99 ≤
// 50 ms (3,842 tok/s)". nil when the SLO is off.
func SLOLines(r engine.Report) []string {
	slo := r.Plan.SLO
	if !slo.On() {
		return nil
	}
	contexts, _ := decodeAxes(r.Results)
	lines := make([]string, 0, len(contexts))
	for _, ctx := range contexts {
		lines = append(lines, sloLine(slo, r.Results, ctx))
	}
	return lines
}

// sloLine is SLOLines' line of one context.
func sloLine(slo engine.SLO, rs []engine.Result, ctx int) string {
	var judged []engine.Result
	for _, res := range rs {
		if res.ContextTokens != ctx {
			continue
		}
		if _, ok := slo.Judge(res); ok {
			judged = append(judged, res)
		}
	}
	name, text := engine.ContextLabel(ctx), SLOText(slo)
	if len(judged) == 0 {
		return fmt.Sprintf("%s: no valid cell to judge against %s", name, text)
	}
	name = judged[0].ContextName()
	fewest := slices.MinFunc(judged, func(a, b engine.Result) int { return a.Concurrency - b.Concurrency }).Concurrency
	best, ok := slo.MostRequests(rs, ctx)
	switch {
	case !ok && fewest == 1:
		return fmt.Sprintf("%s: even 1 request at a time misses %s", name, text)
	case !ok:
		return fmt.Sprintf("%s: even %d simultaneous requests, the fewest measured, miss %s", name, fewest, text)
	}
	line := fmt.Sprintf("%s: up to %s %s %s (%s tok/s)", name, engine.Count(best.Concurrency, "simultaneous request", "simultaneous requests"),
		engine.Plural(best.Concurrency, "meets", "meet"), text, Int(int(math.Round(best.TotalTokPerSec))))
	most := slices.MaxFunc(judged, func(a, b engine.Result) int { return a.Concurrency - b.Concurrency }).Concurrency
	if best.Concurrency == most && len(judged) > 1 {
		line += ", the most measured"
	}
	return line
}

// SLOMargin is a check's tighter margin: the smaller of its bounds' (only
// those the SLO sets), the share of the bound left over; negative when a
// figure is over its bound.
func SLOMargin(s engine.SLO, c engine.SLOCheck) float64 {
	switch {
	case s.TTFT > 0 && s.ITL > 0:
		return math.Min(c.TTFTMargin, c.ITLMargin)
	case s.TTFT > 0:
		return c.TTFTMargin
	}
	return c.ITLMargin
}

// SLOVerdict words a check: "Meets" or "Misses".
func SLOVerdict(c engine.SLOCheck) string {
	if c.Pass {
		return "Meets"
	}
	return "Misses"
}

// SLOColumns are the headings of report.md's SLO table for an SLO at
// percentile p.
func SLOColumns(s engine.SLO) []string {
	p := strconv.Itoa(s.At())
	return []string{"Context", "Requests at once", "TTFT p" + p, "Time between tokens p" + p, "TTFT margin", "ITL margin", "SLO"}
}

// SLORows are the SLO table's rows: every decode cell the SLO judges, by
// context then requests at once; a margin the SLO sets no bound for is
// Dash, a p99 of few samples is marked (P99).
func SLORows(r engine.Report) [][]string {
	slo := r.Plan.SLO
	var rows [][]string
	for _, res := range sortedDecode(r.Results) {
		c, ok := slo.Judge(res)
		if !ok {
			continue
		}
		ttft, itl := Millis(c.TTFTMs), millisFine(c.ITLMs)
		if slo.At() == 99 {
			ttft, itl = P99(ttft, res.TTFTPct), P99(itl, res.ITLPct)
		}
		ttftMargin, itlMargin := Dash, Dash
		if slo.TTFT > 0 {
			ttftMargin = Percent(c.TTFTMargin)
		}
		if slo.ITL > 0 {
			itlMargin = Percent(c.ITLMargin)
		}
		rows = append(rows, []string{res.ContextName(), strconv.Itoa(res.Concurrency), ttft, itl, ttftMargin, itlMargin, SLOVerdict(c)})
	}
	return rows
}

// sortedDecode is the decode cells of rs by context, then requests at once.
func sortedDecode(rs []engine.Result) []engine.Result {
	out := ofPhase(rs, engine.PhaseDecode)
	slices.SortStableFunc(out, func(a, b engine.Result) int {
		if a.ContextTokens != b.ContextTokens {
			return a.ContextTokens - b.ContextTokens
		}
		return a.Concurrency - b.Concurrency
	})
	return out
}

// NoteSLOMargin explains the SLO table's margins.
const NoteSLOMargin = "Margin: the share of the bound left over (+), or by how much the figure is over it (−). Only Valid decode cells are judged; the lines above count up to the first cell, by requests at once, that misses."

// writeSLO writes the SLO section when the report's plan sets one: the
// line per context, then every judged cell with its margins.
func writeSLO(b *strings.Builder, r engine.Report) {
	lines := SLOLines(r)
	if lines == nil {
		return
	}
	fmt.Fprintf(b, "## SLO\n\n%s\n\n", MDText(SLOText(r.Plan.SLO)))
	for _, l := range lines {
		b.WriteString("- " + MDText(l) + "\n")
	}
	b.WriteString("\n")
	rows := SLORows(r)
	if len(rows) == 0 {
		return
	}
	writeTable(b, SLOColumns(r.Plan.SLO), rows)
	notes := NoteSLOMargin
	if r.Plan.SLO.At() == 99 && AnyFewForP99(r.Results) {
		notes += " " + NoteFewSamples
	}
	b.WriteString(notes + "\n\n")
}
