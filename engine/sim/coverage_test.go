package sim

import (
	"math"
	"testing"

	"speedmatrix/engine"
)

// coverageRuns is how many seeds of one cell the coverage check runs.
const coverageRuns = 100

// TestIntervalsCoverTheMean is the check that a cell's ± is honest: one
// noisy reference cell run with coverageRuns seeds in virtual time, each
// run's 95 % interval of total tok/s (engine.EstimatePrecision over its
// one-second buckets) should hold the mean of all runs about 95 % of the
// time. Fixed 30-s windows must reach 85 %; adaptive ones (ended at the
// first second their ±1 % is reached, MinAdaptiveWindow on) are logged
// beside them: stopping when the interval first looks narrow picks the
// runs whose spread looked small, and the figure's slow trend (the context
// grows as the streams decode) puts short and long windows' means apart.
func TestIntervalsCoverTheMean(t *testing.T) {
	p, _ := LookupProfile("gemma-4-e2b-rtxpro6000")
	r := SeedReports[0]
	for _, rr := range SeedReports {
		if rr.Profile == p.Name {
			r = rr
		}
	}
	cells := []struct{ ctx, conc int }{{126720, 1}, {32 * kTok, 16}, {8 * kTok, 128}}
	for _, cell := range cells {
		var fixedX, fixedCI, adX, adCI []float64
		for seed := range uint64(coverageRuns) {
			b := virtualDecodeSeed(p, cell.ctx, cell.conc, r.MaxOutputTokens, precisionWindowS, seed+1).BucketTokens
			fx := engine.EstimatePrecision(b, float64(cell.conc))
			fixedX, fixedCI = append(fixedX, meanOf(b)), append(fixedCI, fx.RelCI95)
			w := adaptiveWindowS(b, cell.conc)
			ad := engine.EstimatePrecision(b[:w], float64(cell.conc))
			adX, adCI = append(adX, meanOf(b[:w])), append(adCI, ad.RelCI95)
		}
		fixed, adaptive := covered(fixedX, fixedCI), covered(adX, adCI)
		t.Logf("%d×%d: fixed 30-s windows' intervals hold the mean of %d runs in %.0f %%, adaptive ones in %.0f %%",
			cell.ctx, cell.conc, coverageRuns, 100*fixed, 100*adaptive)
		if fixed < 0.85 {
			t.Errorf("%d×%d: fixed windows' 95 %% intervals hold the mean in %.0f %% of runs, want at least 85 %%", cell.ctx, cell.conc, 100*fixed)
		}
	}
}

// covered is the share of runs whose interval x ± ci·x holds the mean of x.
func covered(x, ci []float64) float64 {
	m := meanOf(x)
	var n int
	for i := range x {
		if math.Abs(x[i]-m) <= ci[i]*x[i] {
			n++
		}
	}
	return float64(n) / float64(len(x))
}

func meanOf(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
