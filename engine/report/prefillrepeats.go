package report

import (
	"fmt"
	"slices"

	"speedmatrix/engine"
)

// NotePrefillRepeats explains the Prefill table's "Measured as" column.
const NotePrefillRepeats = "Measured as: a context's prompt tok/s is the median of its cold requests, each with a prefix of its own; spread is (max − min) ÷ median of their prompt tok/s."

// PrefillRepeatsText says what a Valid prefill cell's figure is the median
// of, as every surface shows it: "median of 3, spread 1.2 %"; "" for one
// request, a report from before repeats, or any other cell. One function,
// so that the app, report.md and the log never disagree.
func PrefillRepeatsText(r engine.Result) string {
	if r.Phase != engine.PhasePrefill || !r.Measured() || r.PrefillRepeats < 2 {
		return ""
	}
	return fmt.Sprintf("median of %d, spread %s %%", r.PrefillRepeats, ciPercent(r.PrefillSpreadPct/100))
}

// anyPrefillRepeats reports whether a cell of rs is the median of more than
// one request, so that the Prefill table of a run without repeats (or an
// older report) keeps the reference reports' three columns.
func anyPrefillRepeats(rs []engine.Result) bool {
	return slices.ContainsFunc(rs, func(r engine.Result) bool { return PrefillRepeatsText(r) != "" })
}

// measuredAs is a prefill cell's "Measured as" cell: PrefillRepeatsText,
// "one request", or Dash when the cell has no figure or its report does
// not say.
func measuredAs(r engine.Result) string {
	if text := PrefillRepeatsText(r); text != "" {
		return text
	}
	if r.Measured() && r.PrefillRepeats == 1 {
		return "one request"
	}
	return Dash
}
