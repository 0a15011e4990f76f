package charts

import (
	"math"
	"slices"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
)

// maxGain is the widest the best-configuration key runs (+10,000 %); a
// cell beyond it is drawn at its end.
const maxGain = 100.0

// sweepCell is one cell of the best-configuration heatmap: the winner's
// label and its margin, on the key of gains (Value, ±Inf past either end:
// the only configuration with a figure), or neutral when the margin is
// within the noise, or the status every configuration got when none has a
// figure. Its detail is the longest wording that fits a cell cellW wide.
func sweepCell(c sweep.CellAnswer, labels map[string]string, cellW float64) HeatCell {
	if c.Best == "" {
		if s := commonStatus(c.Entries, ""); s != "" {
			return HeatCell{Status: s, Text: string(s)}
		}
		return HeatCell{Status: engine.StatusPending, Text: "Not measured"}
	}
	cell := HeatCell{Status: engine.StatusValid, Text: labelOf(labels, c.Best)}
	baselineWins := c.OverBaseline == nil
	m := c.OverBaseline
	if baselineWins {
		m = c.OverRunnerUp
	}
	var words []string
	switch {
	case m == nil: // no other configuration has a figure here
		cell.Value = math.Inf(-1)
		words = []string{"others: —"}
		if s := commonStatus(c.Entries, c.Best); s != "" {
			words = []string{"others: " + string(s), "others: —"}
		}
	case m.Status != "" && m.Status != engine.StatusValid: // Of has no figure
		cell.Value = math.Inf(1)
		if baselineWins {
			cell.Value = math.Inf(-1)
		}
		words = []string{labelOf(labels, m.Of) + ": " + string(m.Status), labelOf(labels, m.Of) + ": —"}
	case m.NoDifference:
		// Which one led, and by how little, in the cell's second line.
		gain := report.Percent(m.Gain)
		return HeatCell{Status: statusNoDifference, Text: "no difference",
			Detail: fitWords([]string{labelOf(labels, c.Best) + " " + gain, labelOf(labels, c.Best), gain}, cellW-10)}
	case !baselineWins:
		cell.Value = m.Gain
		gain := report.Percent(m.Gain)
		words = []string{gain + " over baseline", gain}
	default:
		// The baseline is m.Gain faster than the runner-up: the runner-up
		// is this much slower than the baseline, the key's negative side.
		cell.Value = math.Inf(-1)
		if m.Gain > -1 {
			cell.Value = 1/(1+m.Gain) - 1
		}
		gain := report.Percent(m.Gain)
		words = []string{gain + " over " + labelOf(labels, m.Of), gain + " over runner-up", gain + " over next", gain}
	}
	cell.Detail = fitWords(words, cellW-10)
	return cell
}

// fitWords is the first of words whose lines as a cell breaks them
// (detailLines) fit w at the detail's smallest size (w ≤ 0: the first), or
// none: the cell's colour still says it.
func fitWords(words []string, w float64) string {
	if w <= 0 {
		return words[0]
	}
	for _, s := range words {
		if !slices.ContainsFunc(detailLines(s, w), func(l string) bool { return textWidth(l, fontRegular, heatDetailMinSize) > w }) {
			return s
		}
	}
	return ""
}

// labelOf is a configuration's label in the cells; a name sweep.json does
// not list among its configurations is "?".
func labelOf(labels map[string]string, name string) string {
	if l, ok := labels[name]; ok {
		return l
	}
	return "?"
}

// commonStatus is the status most configurations other than except got in
// a cell where they have no figure (ties go to the legend's order); "" when
// none ran it.
func commonStatus(entries []sweep.Entry, except string) engine.Status {
	count := map[engine.Status]int{}
	for _, e := range entries {
		if e.Config != except && e.Status != "" && e.Status != engine.StatusValid {
			count[e.Status]++
		}
	}
	var best engine.Status
	rank := func(s engine.Status) int {
		if i := slices.Index(statusOrder, s); i >= 0 {
			return i
		}
		return len(statusOrder)
	}
	for s, n := range count {
		if best == "" || n > count[best] || (n == count[best] && (rank(s) < rank(best) || (rank(s) == rank(best) && s < best))) {
			best = s
		}
	}
	return best
}
