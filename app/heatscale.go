package app

import (
	"math"

	"speedmatrix/charts"
	"speedmatrix/engine"
)

// scaleLabel is what the heatmaps colour by, as the exported one says.
const scaleLabel = "total tok/s"

// concurrencyGain is how total tok/s grows with simultaneous requests,
// about concurrency^0.85 while the server keeps up: reference report 000
// goes from 167.7 tok/s at 1 request to 9,005.7 at 128 (×54 = 128^0.82).
const concurrencyGain = 0.85

// liveScale is the colour range of a heatmap filling in during a run. It is
// fixed by the first valid cell, so a cell keeps its colour as the others
// arrive: from a quarter of what that cell's speed means at the plan's
// fewest simultaneous requests (longer contexts are slower: half as fast
// at 123K as at 8K in report 000) to a quarter more than it means at the
// most that fit the server. It widens, to a round number, only when a
// cell falls outside.
type liveScale struct {
	fewest, most int     // the plan's simultaneous requests, of cells that fit the server
	lo, hi       float64 // the range; 0 until the first valid cell
}

// newLiveScale is the scale of a run of the fitted plan on a server with
// these limits.
func newLiveScale(fitted engine.Plan, c capacity) *liveScale {
	l := &liveScale{}
	for _, n := range fitted.Concurrency {
		fits := false
		for _, ctx := range fitted.DecodeContexts {
			fits = fits || !c.OverCapacity(ctx, n, fitted.MaxOutputTokens)
		}
		if !fits {
			continue
		}
		if l.fewest == 0 || n < l.fewest {
			l.fewest = n
		}
		l.most = max(l.most, n)
	}
	return l
}

// add takes a valid cell's total tok/s at n simultaneous requests into the
// range, and reports whether the range changed.
func (l *liveScale) add(tokPerSec float64, n int) bool {
	if tokPerSec <= 0 {
		return false
	}
	if l.hi == 0 {
		perRequest := tokPerSec / math.Pow(float64(max(n, 1)), concurrencyGain)
		fewest, most := float64(max(l.fewest, 1)), float64(max(l.most, n, 1))
		l.lo = roundDown(math.Min(tokPerSec, perRequest*math.Pow(fewest, concurrencyGain)) / 4)
		l.hi = roundUp(math.Max(tokPerSec, perRequest*math.Pow(most, concurrencyGain)) * 1.25)
		return true
	}
	switch {
	case tokPerSec < l.lo:
		l.lo = roundDown(tokPerSec)
	case tokPerSec > l.hi:
		l.hi = roundUp(tokPerSec)
	default:
		return false
	}
	return true
}

// colorScale is the range as the charts' colour scale (ticks and all);
// empty before the first valid cell.
func (l *liveScale) colorScale() charts.ColorScale {
	if l.hi == 0 {
		return charts.SequentialScale(scaleLabel, nil)
	}
	return charts.SequentialScale(scaleLabel, []float64{l.lo, l.hi})
}

// roundUp is the smallest 1-2-5 × 10ⁿ number at or above v; roundDown the
// largest at or below it.
func roundUp(v float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*mag*1.000001 {
			return m * mag
		}
	}
	return 10 * mag
}

func roundDown(v float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if v >= m*mag/1.000001 {
			return m * mag
		}
	}
	return mag
}
