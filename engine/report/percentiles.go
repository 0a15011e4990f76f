package report

import (
	"fmt"

	"speedmatrix/engine"
)

// FewSamplesMarker follows a p99 computed from fewer than
// engine.MinP99Samples samples, in report.md, the charts and the app: with
// so few, the p99 is one of the slowest few samples, not a percentile. A
// double dagger, beside FlagMarker's dagger, in every font we draw with.
const FewSamplesMarker = "‡"

// NoteFewSamples explains FewSamplesMarker under the tables that show it.
var NoteFewSamples = fmt.Sprintf("%s p99 of fewer than %d samples: with so few, it is one of the slowest few samples, not a percentile.",
	FewSamplesMarker, engine.MinP99Samples)

// NotePercentiles says what the p90 and p99 columns are computed over.
const NotePercentiles = "p90 and p99: TTFT over every request of the cell; time between tokens over every gap between tokens inside the window, all requests pooled (not per-request medians)."

// PercentileColumns are the columns report.md's All measurements adds after
// MeasurementColumns: the p90 and p99 of the two latencies whose medians
// the table shows.
var PercentileColumns = []string{"TTFT p90", "TTFT p99", "Time between tokens p90", "Time between tokens p99"}

// PercentileCells are a Valid decode cell's PercentileColumns, a p99 of
// few samples marked (P99); Dash for a prefill cell (one request has no
// spread), a cell without figures, or percentiles the report did not keep.
func PercentileCells(r engine.Result) []string {
	cells := []string{Dash, Dash, Dash, Dash}
	if r.Phase != engine.PhaseDecode || !r.Measured() {
		return cells
	}
	if r.TTFTPct.P99 > 0 {
		cells[0], cells[1] = Millis(r.TTFTPct.P90), P99(Millis(r.TTFTPct.P99), r.TTFTPct)
	}
	if r.ITLPct.P99 > 0 {
		cells[2], cells[3] = millisFine(r.ITLPct.P90), P99(millisFine(r.ITLPct.P99), r.ITLPct)
	}
	return cells
}

// P99 appends FewSamplesMarker to s, a p99 of pct, when it rests on fewer
// than engine.MinP99Samples samples.
func P99(s string, pct engine.Percentiles) string {
	if pct.FewForP99() {
		return s + " " + FewSamplesMarker
	}
	return s
}

// AnyFewForP99 reports whether a Valid decode cell of rs shows a p99 of
// few samples, so that NoteFewSamples goes under its table.
func AnyFewForP99(rs []engine.Result) bool {
	for _, r := range rs {
		if r.Phase == engine.PhaseDecode && r.Measured() && (r.TTFTPct.FewForP99() || r.ITLPct.FewForP99()) {
			return true
		}
	}
	return false
}

// SamplesText is " (1,204 samples)", the samples behind a percentile's
// figure in the words given ("gap", "gaps"); "" when the report doesn't
// say (an import, an older report).
func SamplesText(p engine.Percentiles, one, many string) string {
	if p.N <= 0 {
		return ""
	}
	return " (" + Int(p.N) + " " + engine.Plural(p.N, one, many) + ")"
}
