package report

import (
	"math"
	"slices"
	"strconv"

	"speedmatrix/engine"
)

// NotePlusMinus explains the ± beside a cell's total tok/s in All
// measurements.
const NotePlusMinus = "±: the 95 % interval of the cell's total tok/s over its window, from one-second buckets (batch means); — when the window was too short to tell."

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
	if r.Precision == nil || !r.Measured() || r.Phase != engine.PhaseDecode {
		return text
	}
	return text + " " + PlusMinus(pick(*r.Precision))
}

// TotalPrecision picks the precision of total tok/s, the headline figure.
func TotalPrecision(c engine.CellPrecision) engine.Precision { return c.TotalTokPerSec }

// anyPrecision reports whether a cell of rs carries precision, so that the
// note explaining ± is written only where a ± is.
func anyPrecision(rs []engine.Result) bool {
	return slices.ContainsFunc(rs, func(r engine.Result) bool {
		return r.Precision != nil && r.Measured() && r.Phase == engine.PhaseDecode
	})
}

// PrecisionLine sums up the report sheet's ±: "±: total tok/s known to
// within ±0.2–1.8 % (95 %), median ±0.6 %" over the Valid decode cells
// whose precision is known; "" when none is, so that a sheet from an older
// report or an import says nothing rather than something made up.
func PrecisionLine(rs []engine.Result) string {
	var rels []float64
	for _, r := range rs {
		if r.Precision != nil && r.Measured() && r.Phase == engine.PhaseDecode && r.Precision.TotalTokPerSec.Known() {
			rels = append(rels, r.Precision.TotalTokPerSec.RelCI95)
		}
	}
	if len(rels) == 0 {
		return ""
	}
	slices.Sort(rels)
	lo, hi := ciPercent(rels[0]), ciPercent(rels[len(rels)-1])
	if lo == hi {
		return "±: total tok/s known to within ±" + lo + " % (95 %)"
	}
	mid := rels[len(rels)/2]
	if len(rels)%2 == 0 {
		mid = (rels[len(rels)/2-1] + mid) / 2
	}
	return "±: total tok/s known to within ±" + lo + "–" + hi + " % (95 %), median ±" + ciPercent(mid) + " %"
}
