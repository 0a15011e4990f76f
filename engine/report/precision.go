package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// NotePlusMinus explains the ± beside a cell's total tok/s in All
// measurements.
const NotePlusMinus = "±: the 95 % interval of the cell's total tok/s over its window, from one-second buckets (overlapping batch means); — when the window was too short to tell. It is the window's: a run at another minute can differ by more."

// PlusMinus writes how well a figure is known, as every surface shows it:
// "± 0.4 %" (the 95 % half-width relative to the figure), "± <0.1 %" when
// it rounds to nothing, "± —" when the window was too short to tell. One
// function, so that the app, report.md and the log never disagree.
func PlusMinus(p engine.Precision) string {
	if !p.Known() {
		return "± " + Dash
	}
	return "± " + ciPercent(p.RelCI95) + " %"
}

// ciPercent writes a relative half-width in percent with one decimal:
// 0.004 is "0.4"; below 0.05 % it is "<0.1", never a misleading "0.0".
func ciPercent(rel float64) string {
	if math.Round(rel*1000) < 1 {
		return "<0.1"
	}
	return strconv.FormatFloat(rel*100, 'f', 1, 64)
}

// WithPlusMinus appends the ± of the figure pick chooses to text ("1,237.5
// ± 0.4 %") when r carries precision: a Valid decode cell measured by a
// version that estimates it. Others (prefill, imports, older reports) keep
// text alone, as they have nothing to say about it.
func WithPlusMinus(text string, r engine.Result, pick func(engine.CellPrecision) engine.Precision) string {
	if !hasPrecision(r) {
		return text
	}
	return text + " " + PlusMinus(pick(*r.Precision))
}

// TotalPrecision picks the precision of total tok/s, the headline figure;
// PerRequestPrecision and ITLPrecision those of the two medians.
func TotalPrecision(c engine.CellPrecision) engine.Precision      { return c.TotalTokPerSec }
func PerRequestPrecision(c engine.CellPrecision) engine.Precision { return c.PerRequestTokPerSec }
func ITLPrecision(c engine.CellPrecision) engine.Precision        { return c.ITLMs }

// hasPrecision reports whether r carries precision: a Valid decode cell
// measured by a version that estimates it.
func hasPrecision(r engine.Result) bool {
	return r.Precision != nil && r.Measured() && r.Phase == engine.PhaseDecode
}

// adapted reports whether r's window adapted to a precision target.
func adapted(r engine.Result) bool { return hasPrecision(r) && r.Precision.Target > 0 }

// anyPrecision reports whether a cell of rs carries precision, so that the
// note explaining ± is written only where a ± is.
func anyPrecision(rs []engine.Result) bool { return slices.ContainsFunc(rs, hasPrecision) }

// PrecisionLine sums up the report sheet's ±: "±: each window's total
// tok/s known to within ±0.2–1.8 % (95 %), median ±0.6 %" (the ± is the
// window's, not a promise about a re-run) over the Valid decode cells
// whose precision is known; "" when none is, so that a sheet from an older
// report or an import says nothing rather than something made up.
func PrecisionLine(rs []engine.Result) string {
	var rels []float64
	for _, r := range rs {
		if hasPrecision(r) && r.Precision.TotalTokPerSec.Known() {
			rels = append(rels, r.Precision.TotalTokPerSec.RelCI95)
		}
	}
	if len(rels) == 0 {
		return ""
	}
	slices.Sort(rels)
	lo, hi := ciPercent(rels[0]), ciPercent(rels[len(rels)-1])
	if lo == hi {
		return "±: each window's total tok/s known to within ±" + lo + " % (95 %)"
	}
	return "±: each window's total tok/s known to within ±" + lo + "–" + hi + " % (95 %), median ±" + ciPercent(median(rels)) + " %"
}

// median is the middle of sorted values (the mean of the two middle ones
// for an even count).
func median(sorted []float64) float64 {
	mid := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		mid = (sorted[len(sorted)/2-1] + mid) / 2
	}
	return mid
}

// WindowText says how an adaptive window ended, for the text after a
// cell's ±: "in 6 s" when total tok/s reached the plan's precision; "did
// not reach ±1 % in 30 s" when the window ran to the plan's duration
// without; "" for a fixed window, a cell without precision or figures.
func WindowText(r engine.Result) string {
	if !adapted(r) {
		return ""
	}
	c := *r.Precision
	in := "in " + wholeSeconds(r.MeasuredS)
	if c.Reached() {
		return in
	}
	return "did not reach " + engine.TargetText(c.Target) + " " + in
}

// DriftText says how a cell's total tok/s moved across its window when it
// moved beyond its noise: "falling 1.9 % per 10 s"; "" otherwise, and for
// a cell without precision.
func DriftText(r engine.Result) string {
	if !hasPrecision(r) {
		return ""
	}
	return r.Precision.Drift.Text()
}

// WithWindow is total tok/s as every surface leads with it: text (the
// figure) with its ± (WithPlusMinus), how an adaptive window ended
// (WindowText) and how the rate moved (DriftText): "195.0 tok/s ± 0.9 %
// in 5 s", "1,402.6 tok/s ± 2.3 %, did not reach ±1 % in 30 s",
// "9,104.0 tok/s ± 0.3 %, falling 1.5 % per 10 s".
func WithWindow(text string, r engine.Result) string {
	return withWindow(WithPlusMinus(text, r, TotalPrecision), r)
}

// withWindow appends WindowText and DriftText to a figure with its ±.
func withWindow(text string, r engine.Result) string {
	switch w := WindowText(r); {
	case w == "":
	case r.Precision.Reached():
		text += " " + w
	default:
		text += ", " + w
	}
	if d := DriftText(r); d != "" {
		text += ", " + d
	}
	return text
}

// DriftLine names a run's cells whose rate moved across their windows,
// for the report sheet and report.md: "Drift: 3 of 40 cells moved across
// their windows: 8K × 128 falling 1.5 % per 10 s, …" (the first
// maxNamedDrifts named); "" when none did.
func DriftLine(rs []engine.Result) string {
	const maxNamedDrifts = 6
	var named []string
	var n int
	for _, r := range rs {
		if hasPrecision(r) && r.Precision.Drift != nil {
			n++
		}
		if d := DriftText(r); d != "" {
			named = append(named, fmt.Sprintf("%s × %d %s", r.ContextName(), r.Concurrency, d))
		}
	}
	if len(named) == 0 {
		return ""
	}
	return fmt.Sprintf("Drift: %d of %s moved across their windows beyond their noise: %s", len(named), engine.Count(n, "cell", "cells"),
		firstNamed(named, maxNamedDrifts))
}

// firstNamed joins the first most of names, "and 3 more" for the rest,
// so that a sheet's line stays one line or two.
func firstNamed(names []string, most int) string {
	if len(names) > most {
		names = append(names[:most:most], fmt.Sprintf("and %d more", len(names)-most))
	}
	return strings.Join(names, ", ")
}

// AdaptiveLine sums up a run's adaptive windows for the report sheet and
// report.md: "Windows adaptive to ±1 %: 38 of 40 cells reached it in
// 5–21 s (median 7 s); 2 did not in 30 s: 8K × 128, 16K × 64" (the first
// maxNamedMisses named, so that a sheet's line stays one line or two); ""
// when no cell's window adapted.
func AdaptiveLine(rs []engine.Result) string {
	const maxNamedMisses = 6
	var reached []float64
	var missed []string
	var target, maxS float64
	for _, r := range rs {
		if !adapted(r) {
			continue
		}
		target = r.Precision.Target
		if r.Precision.Reached() {
			reached = append(reached, r.MeasuredS)
		} else {
			missed = append(missed, fmt.Sprintf("%s × %d", r.ContextName(), r.Concurrency))
			maxS = max(maxS, r.MeasuredS)
		}
	}
	n := len(reached) + len(missed)
	if n == 0 {
		return ""
	}
	s := "Windows adaptive to " + engine.TargetText(target) + ": "
	if len(reached) > 0 {
		slices.Sort(reached)
		in := wholeSeconds(reached[0]) // all in the same second: "in 5 s", not "in 5–5 s (median 5 s)"
		if hi := wholeSeconds(reached[len(reached)-1]); hi != in {
			in = fmt.Sprintf("%s–%s (median %s)", strings.TrimSuffix(in, " s"), hi, wholeSeconds(median(reached)))
		}
		s += fmt.Sprintf("%d of %s reached it in %s", len(reached), engine.Count(n, "cell", "cells"), in)
	}
	if len(missed) > 0 {
		if len(reached) > 0 {
			s += "; "
		}
		s += fmt.Sprintf("%d did not in %s: %s", n-len(reached), wholeSeconds(maxS), firstNamed(missed, maxNamedMisses))
	}
	return s
}
