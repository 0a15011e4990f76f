package sim

import (
	"math"
	"testing"
	"time"

	"speedmatrix/engine"
)

// The window a decode cell needs for its total tok/s to be known to ±1 %
// (95 %), estimated in virtual time with batch means over one-second
// buckets: the yardstick the built-in profiles' Noise is chosen by
// (METHODOLOGY.md, "The simulator's noise").

const (
	precisionRuns    = 8  // seeds per cell
	precisionWindowS = 30 // each run's window: the plan's default
	precisionBatchS  = 5  // buckets per batch: several drift correlation times
	precisionTarget  = 0.01
	precisionZ95     = 1.96
	// The adaptive windows a profile's chosen cells take on average.
	adaptiveMinMeanS = 5
	adaptiveMaxMeanS = 20
)

// adaptiveWindowS is the window an adaptive cell (engine.Plan.Precision
// ±1 %) takes over these buckets, as the run's own rule decides it
// (engine.Stopper over a check a second from a second before
// engine.MinAdaptiveWindow on), else the whole window. Total tok/s stands
// for both figures the run waits for here: at one stream per-request
// tok/s is the same rate, and at many it is known at least as well.
func adaptiveWindowS(buckets []float64, streams int) int {
	var stop engine.Stopper
	for w := int((engine.MinAdaptiveWindow - time.Second) / time.Second); w < len(buckets); w++ {
		total := engine.EstimatePrecision(buckets[:w], float64(streams))
		c := engine.CellPrecision{TotalTokPerSec: total, PerRequestTokPerSec: total, Target: precisionTarget,
			Drift: engine.EstimateDrift(buckets[:w], float64(streams))}
		if stop.Done(c) {
			return w
		}
	}
	return len(buckets)
}

// batchMeans estimates the mean of one-second buckets and their long-run
// variance (the variance of a window's mean times its length, which counts
// the correlation between neighbouring buckets that a naive standard error
// leaves out) from non-overlapping batches of b buckets, each run's batches
// centred on that run's own mean.
func batchMeans(runs [][]float64, b int) (mean, longRunVar float64) {
	var sum, ss float64
	var n, df int
	for _, r := range runs {
		k := len(r) / b
		means := make([]float64, k)
		var runMean float64
		for j := range k {
			for _, x := range r[j*b : (j+1)*b] {
				means[j] += x / float64(b)
			}
			runMean += means[j] / float64(k)
		}
		for _, m := range means {
			ss += (m - runMean) * (m - runMean)
			sum += m
		}
		n, df = n+k, df+k-1
	}
	return sum / float64(n), float64(b) * ss / float64(df)
}

// needS is the window in seconds whose mean has a 95 % interval of ±target,
// for buckets of that mean and long-run variance.
func needS(mean, longRunVar, target float64) float64 {
	half := target * mean / precisionZ95
	return longRunVar / (half * half)
}

// precisionCell is one reference cell's estimate.
type precisionCell struct {
	ctx, conc int
	mean      float64 // tok/s without noise
	// needS is the window ±1 % needs for the noise alone: the buckets less
	// those of the same cell without noise, whose slow trend (the rate
	// falls as the context grows) is no uncertainty; needTrendS is what
	// batch means over the whole 30-s windows say, trend included.
	needS, needTrendS float64
	// spreadPct is the spread of the runs' 30-s window means between
	// seeds (the noise alone: the rest is the same in every run), and
	// sePct what the batch means predict for it.
	spreadPct, sePct float64
	// adaptiveS is the mean window adaptive cells took over the seeds.
	adaptiveS float64
}

func estimatePrecision(p Profile, r SeedReport, cell SeedCell) precisionCell {
	ctx := fitContext(cell.ContextTokens, p.MaxModelLen, r.MaxOutputTokens)
	exactP := p
	exactP.Noise = Noise{}
	exact := virtualDecode(exactP, ctx, cell.Concurrency, r.MaxOutputTokens, precisionWindowS)
	var runs, residuals [][]float64
	var wsum, wss, adaptive float64
	for seed := range uint64(precisionRuns) {
		st := virtualDecodeSeed(p, ctx, cell.Concurrency, r.MaxOutputTokens, precisionWindowS, seed+1)
		runs = append(runs, st.BucketTokens)
		res := make([]float64, min(len(st.BucketTokens), len(exact.BucketTokens)))
		for i := range res {
			res[i] = st.BucketTokens[i] - exact.BucketTokens[i]
		}
		residuals = append(residuals, res)
		wsum, wss = wsum+st.TokPerSec, wss+st.TokPerSec*st.TokPerSec
		adaptive += float64(adaptiveWindowS(st.BucketTokens, cell.Concurrency)) / precisionRuns
	}
	mean := exact.TokPerSec
	_, lrv := batchMeans(residuals, precisionBatchS)
	_, lrvTrend := batchMeans(runs, precisionBatchS)
	wm := wsum / precisionRuns
	spread := math.Sqrt(max(wss/precisionRuns-wm*wm, 0) * precisionRuns / (precisionRuns - 1))
	return precisionCell{ctx: ctx, conc: cell.Concurrency, mean: mean,
		needS: needS(mean, lrv, precisionTarget), needTrendS: needS(mean, lrvTrend, precisionTarget),
		spreadPct: 100 * spread / wm, sePct: 100 * math.Sqrt(lrv/precisionWindowS) / mean, adaptiveS: adaptive}
}

// chosenCells are the cells checked by default: the fastest and slowest
// corners of each reference report (-noise-all checks every Valid cell).
var chosenCells = map[string][][2]int{
	"gemma-4-e2b-rtxpro6000":        {{8 * kTok, 1}, {8 * kTok, 128}, {32 * kTok, 16}, {128 * kTok, 1}, {128 * kTok, 64}},
	"gemma-4-26b-a4b-nvfp4-rtx3090": {{0, 1}, {0, 32}, {64 * kTok, 1}, {128 * kTok, 2}},
}

// TestNoisePrecisionWindow checks that the built-in noise makes adaptive
// windows on the reference decode cells take about 5 to 20 s on average
// (adaptiveMinMeanS–adaptiveMaxMeanS), so that they have something to
// adapt to and still end well before the plan's 30 s. It logs each cell's
// figures: run with -v (and -noise-all for every cell) to see them.
func TestNoisePrecisionWindow(t *testing.T) {
	for _, r := range SeedReports {
		t.Run(r.Profile, func(t *testing.T) {
			t.Parallel()
			p, _ := LookupProfile(r.Profile)
			var sum float64
			var n int
			for _, cell := range r.Cells {
				if cell.Status != "Valid" || !*noiseAllFlag && !chosen(r.Profile, cell) {
					continue
				}
				pc := estimatePrecision(p, r, cell)
				t.Logf("%s %6d×%-3d %8.1f tok/s: adaptive windows %4.1f s; ±1 %% needs %5.1f s for the noise (%5.1f s with the trend); 30-s windows spread %.2f %% between seeds, batch means predict %.2f %%",
					p.Name, pc.ctx, pc.conc, pc.mean, pc.adaptiveS, pc.needS, pc.needTrendS, pc.spreadPct, pc.sePct)
				sum += pc.adaptiveS
				n++
			}
			if mean := sum / float64(n); mean < adaptiveMinMeanS || mean > adaptiveMaxMeanS {
				t.Errorf("adaptive windows take %.1f s on average, want %d to %d s: retune %s's Noise", mean, adaptiveMinMeanS, adaptiveMaxMeanS, p.Name)
			}
		})
	}
}

func chosen(profile string, cell SeedCell) bool {
	for _, c := range chosenCells[profile] {
		if c == [2]int{cell.ContextTokens, cell.Concurrency} {
			return true
		}
	}
	return false
}
