package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Precision is how well one headline figure of a cell's window is known:
// the half-width of its 95 % confidence interval relative to the figure,
// from the variation of the figure between the window's one-second
// buckets. It is the window's: the rate the server held while it ran, as
// if its pace held; a run at another minute can differ by more, which no
// window sees (METHODOLOGY, "Precision of a cell").
type Precision struct {
	// RelCI95 is the 95 % half-width ÷ the figure (0.004 is ±0.4 %); 0
	// with Unknown set when it couldn't be estimated.
	RelCI95 float64 `json:"rel_ci95"`
	// Buckets is how many whole one-second buckets of the window it rests
	// on; Batches how many batches those were grouped into (k = buckets ÷
	// batch size: separate batches for a median's sections, the nominal
	// count for overlapping batch means).
	Buckets int `json:"buckets"`
	Batches int `json:"batches,omitempty"`
	// Method names the estimator: "batch means" (total tok/s, overlapping),
	// "batch means, restarts apart" (total tok/s of a window in which
	// streams waited between requests: Restarts) or "sectioning" (the
	// medians).
	Method string `json:"method,omitempty"`
	// Unknown says why there is no estimate ("3 one-second buckets: too
	// few to estimate"); "" when RelCI95 is known.
	Unknown string `json:"unknown,omitempty"`
}

// maxRelCI95 is the widest half-width Known accepts: 100,000,000 %. The
// windows' estimators have read at most a few hundred per cent (a window
// whose tokens all came in one second), so a wider one only comes from a
// report file someone wrote by hand, and would print as hundreds of digits.
const maxRelCI95 = 1e6

// Known reports whether RelCI95 is an estimate rather than a placeholder:
// a finite, non-negative width no wider than maxRelCI95 (an infinite or
// absurd one says nothing, and report.json can't hold the first).
func (p Precision) Known() bool {
	return p.Unknown == "" && p.Method != "" && p.RelCI95 >= 0 && p.RelCI95 <= maxRelCI95
}

// CellPrecision is the precision of a Valid decode cell's headline figures,
// over its window (MeasuredS).
type CellPrecision struct {
	TotalTokPerSec      Precision `json:"total_tok_s"`
	PerRequestTokPerSec Precision `json:"per_request_tok_s"`
	ITLMs               Precision `json:"itl_ms"`
	// Target is the plan's Precision the window adapted to; 0 for a fixed
	// window (and in reports from before adaptive windows).
	Target float64 `json:"target,omitempty"`
	// Drift is total tok/s's slope across the window; nil for a window
	// under MinAdaptiveWindow (and in reports from before it was measured).
	Drift *Drift `json:"drift,omitempty"`
}

// The bounds of adaptive windows (Plan.Precision).
const (
	// DefaultPrecision is the Standard plan's target: ±1 %, finer than the
	// differences between server settings users look for, and reached in
	// 5–20 s by most cells.
	DefaultPrecision = 0.01
	// MinAdaptiveWindow is the shortest window an adaptive cell ends
	// after: the estimate needs a few one-second buckets of its own to
	// judge, and fewer than five leave one slow second to decide.
	MinAdaptiveWindow = 5 * time.Second
	// minPrecision and maxPrecision bound Plan.Precision: finer than
	// ±0.1 % no window of an hour reaches on a real server; coarser than
	// ±50 % is not a measurement.
	minPrecision = 0.001
	maxPrecision = 0.5
)

// Adaptive reports whether p ends decode windows by precision.
func (p Plan) Adaptive() bool { return p.Precision > 0 }

// Reached reports whether total tok/s, the figure an adaptive window
// waits for, is known to within Target; false for a fixed window (Target
// 0), which aimed at none. Per-request tok/s and ITL keep their own ±
// without holding the window: they are medians, whose ± rests on few
// batches of few requests at low concurrency and moved between ±0.6 %
// and ±2.6 % from one second's check to the next; waiting for them made
// windows on servers we didn't write run up to 10 s longer than their
// total tok/s needed, and the whole 30 s for ITL (METHODOLOGY, "Adaptive
// windows").
func (c CellPrecision) Reached() bool {
	return c.Target > 0 && c.TotalTokPerSec.Known() && c.TotalTokPerSec.RelCI95 <= c.Target
}

// Reaches reports whether p is known to within target in a way an
// adaptive window may end on: a width of exactly 0 does not count, since
// in a few seconds of a many-stream cell every bucket can hold the same
// whole number of steps, which says the buckets' resolution was reached,
// not the figure's.
func (p Precision) Reaches(target float64) bool {
	return p.Known() && p.RelCI95 > 0 && p.RelCI95 <= target
}

// Ends reports whether an adaptive window's check finds c done: total
// tok/s Reaches the target and is not moving (Drift.Moving). The window
// ends at the second of two such checks in a row (Stopper).
func (c CellPrecision) Ends() bool {
	return c.Target > 0 && c.TotalTokPerSec.Reaches(c.Target) && !c.Drift.Moving()
}

// Stopper is an adaptive window's stopping rule over its checks, one a
// second: the window ends at the second of two checks in a row at which
// Ends holds. One check alone would end it at the first second whose
// spread happened to look small, and its ± would be too narrow for the
// windows it picked (BENCHMARKS.md, "Adaptive windows").
type Stopper struct{ before bool }

// Done takes one check's precision and reports whether the window ends.
func (s *Stopper) Done(c CellPrecision) bool {
	ends := c.Ends()
	twice := ends && s.before
	s.before = ends
	return twice
}

// Missed reports whether the window adapted to a target and ended at the
// plan's duration without reaching it: its figures stand (the cell is not
// flagged), with the ± it did reach.
func (c CellPrecision) Missed() bool { return c.Target > 0 && !c.Reached() }

// ParsePrecision reads a precision target as a flag or field gives it: "1%"
// (or "1 %", "0.5%"), or "off" for fixed windows (0).
func ParsePrecision(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "off") {
		return 0, nil
	}
	num, ok := strings.CutSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("%q is not a precision: give a percentage such as 1%% or 0.5%%, or off for fixed windows", s)
	}
	return v / 100, nil
}

// FormatPrecision writes a target as ParsePrecision reads it: "1%", "off".
func FormatPrecision(p float64) string {
	if p <= 0 {
		return "off"
	}
	return strconv.FormatFloat(roundSignificant(p*100), 'f', -1, 64) + "%"
}

// roundSignificant rounds v to 12 significant digits: p×100 of a target
// read from "0.0001%" is 0.00009999999999999999, which no one wrote.
func roundSignificant(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'e', 11, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// TargetText writes a target as the Run section and the report's lines say
// it: "±1 %", "±0.5 %".
func TargetText(p float64) string {
	return "±" + strings.TrimSuffix(FormatPrecision(p), "%") + " %"
}

// precisionProblem is what is wrong with a plan's precision, or "".
func precisionProblem(p float64) string {
	if p == 0 {
		return ""
	}
	if !(p >= minPrecision && p <= maxPrecision) {
		return fmt.Sprintf("%s is outside 0.1%%–50%%: give a target in that range, or off for fixed windows", FormatPrecision(p))
	}
	return ""
}
