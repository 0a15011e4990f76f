package engine

import (
	"fmt"
	"math"
)

// The estimators behind Precision: overlapping batch means over one-second
// buckets for a mean (total tok/s), sectioning for a median (METHODOLOGY,
// "Precision of a cell"). Buckets of a decode cell are correlated (a slow
// second is followed by another: a longer batch, a scheduler hiccup), so
// the naive standard error s/√n is too small; grouping the buckets into
// batches longer than the correlation makes the batch means nearly
// independent, and Student's t on the batches' degrees of freedom pays for
// how few they are.
const (
	// minPrecisionBuckets is the fewest whole buckets a precision is
	// estimated from: one batch of one bucket each for minBatches.
	minPrecisionBuckets = minBatches
	// minBatches is the fewest batch means kept: fewer leave the variance
	// to one or two differences.
	minBatches = 4
	// batchPerCorrelation is how many correlation times (τ, the buckets'
	// integrated autocorrelation time under an AR(1) reading) one batch
	// spans: at 4τ adjacent batch means correlate by about 1/8.
	batchPerCorrelation = 4
	// maxLag1 caps the estimated lag-1 autocorrelation, so τ stays finite
	// (τ = 39 at 0.95: every window short of 156 s falls to minBatches).
	maxLag1 = 0.95
	// maxBatchBias caps batchBias: the variance is at most doubled.
	maxBatchBias = 2
	// methodBatchMeans is Precision.Method for this estimator;
	// methodSectioning EstimateSectioned's.
	methodBatchMeans = "batch means"
	// methodRestarts is batch means over buckets with their streams'
	// restarts taken out (Restarts).
	methodRestarts   = "batch means, restarts apart"
	methodSectioning = "sectioning"
)

// EstimatePrecision estimates the 95 % confidence half-width of the mean
// of values, relative to it. values are a figure's one-second buckets over
// a window, oldest first, whole buckets only. It is the one estimator of a
// cell's ±: the run's, and the simulator's tests that choose its noise by
// the windows it makes adaptive cells take.
//
// resolution is the step the values move by when they move at all (the
// tokens one decode step adds across a cell's streams, for total tok/s), 0
// for a series without one. Buckets that all hold the same whole number of
// steps hide how the rate varied below one step; the long-run variance is
// then taken as at least that of a rounding to resolution, resolution²/12
// per bucket, so that a short window of identical buckets does not claim
// to know its rate better than its buckets can tell.
func EstimatePrecision(values []float64, resolution float64) Precision {
	return estimateMean(values, resolution, 0, 0, methodBatchMeans)
}

// estimateMean is EstimatePrecision over values from which fitted
// coefficients were removed (Restarts): the long-run variance is scaled
// by n ÷ (n − fitted) for what the fit took, and extra, a variance of the
// mean known apart from the buckets, is added to it.
func estimateMean(values []float64, resolution, extra float64, fitted int, method string) Precision {
	n := len(values)
	p := Precision{Buckets: n}
	if n < minPrecisionBuckets {
		p.Unknown = fmt.Sprintf("%d one-second %s: too few to estimate (at least %d)", n, Plural(n, "bucket", "buckets"), minPrecisionBuckets)
		return p
	}
	m := meanOf(values)
	if m <= 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		p.Unknown = "the figure is zero"
		return p
	}
	batch, rho := BatchPlan(values)
	k := n / batch
	v := max(overlappingBatchVar(values, batch), resolution*resolution/12) / float64(n-fitted) * batchBias(rho, batch, k)
	half := TQuantile95(obmDF(n, batch)) * math.Sqrt(v+extra)
	p.RelCI95, p.Batches, p.Method = half/m, k, method
	return p
}

// overlappingBatchVar is the long-run variance of values (the variance of
// their mean times their count) from the means of every run of b
// consecutive values, overlapping (Meketon & Schmeiser, 1984): the same
// batches as batch means, slid a bucket at a time, so that a short window
// pays for its few batches with about half again as many degrees of
// freedom (obmDF), and a pattern that repeats (a dip at each request's
// end) is averaged over its phase rather than read as noise.
func overlappingBatchVar(values []float64, b int) float64 {
	n := len(values)
	m := meanOf(values)
	var ss, run float64
	for i, v := range values {
		run += v
		if i >= b {
			run -= values[i-b]
		}
		if i >= b-1 {
			d := run/float64(b) - m
			ss += d * d
		}
	}
	if n == b {
		return 0
	}
	return float64(n) * float64(b) * ss / float64(n-b+1) / float64(n-b)
}

// obmDF is the degrees of freedom of overlapping batch means over n values
// in batches of b: 1.5 (n/b − 1), rounded down (Meketon & Schmeiser).
func obmDF(n, b int) int {
	return max(1, int(1.5*(float64(n)/float64(b)-1)))
}

// BatchPlan is how a figure's one-second series is cut into batches: b
// buckets a batch (batchSize) for the series' lag-1 autocorrelation rho
// (lag1Corrected). Precisions of figures that are not means of their
// buckets (EstimateSectioned) batch by the plan of their per-second series.
func BatchPlan(values []float64) (b int, rho float64) {
	rho = lag1Corrected(values)
	return batchSize(len(values), rho), rho
}

// EstimateSectioned estimates the 95 % confidence half-width of a figure
// that is not the mean of its buckets (a median of requests' rates, a
// median of gaps), relative to it: sectioning (Asmussen & Glynn, Stochastic
// Simulation, IV.5). whole is the figure over the whole window; sections
// are the same figure computed over each of k consecutive batches of b
// buckets (BatchPlan of its per-second series, whose lag-1
// autocorrelation is rho); buckets is how many whole buckets the window
// holds. The interval is centred on whole, and its variance is that of
// the sections about it over k: a figure whose batches are alike is known
// well, and one whose median jumps between batches (gaps with two modes
// whose weights shift) is not, however many gaps each batch held. The
// neighbouring-batch correction and Student's t are batch means'.
func EstimateSectioned(whole float64, sections []float64, b int, rho float64, buckets int) Precision {
	p := Precision{Buckets: buckets}
	k := len(sections)
	if k < minBatches {
		p.Unknown = fmt.Sprintf("%d one-second %s: too few to estimate (at least %d)", buckets, Plural(buckets, "bucket", "buckets"), minPrecisionBuckets)
		return p
	}
	if whole <= 0 || math.IsNaN(whole) || math.IsInf(whole, 0) {
		p.Unknown = "the figure is zero"
		return p
	}
	var ss float64
	for _, f := range sections {
		ss += (f - whole) * (f - whole)
	}
	v := ss / float64(k-1) / float64(k) * batchBias(rho, b, k)
	p.RelCI95, p.Batches, p.Method = TQuantile95(k-1)*math.Sqrt(v)/whole, k, methodSectioning
	return p
}

// Sections returns the k = n/b batches of n buckets that sectioning uses,
// as [first, end) bucket indices, oldest first: the oldest remainder,
// nearest warm-up, is left out.
func Sections(n, b int) [][2]int {
	if b <= 0 {
		return nil
	}
	k := n / b
	off := n - k*b
	out := make([][2]int, k)
	for i := range out {
		out[i] = [2]int{off + i*b, off + (i+1)*b}
	}
	return out
}

// batchSize is how many of n buckets one batch holds, for buckets with
// lag-1 autocorrelation rho: batchPerCorrelation correlation times, at
// most as many as leave minBatches batches.
func batchSize(n int, rho float64) int {
	tau := (1 + rho) / (1 - rho)
	b := int(math.Ceil(batchPerCorrelation * tau))
	return max(1, min(b, n/minBatches))
}

// batchBias is what the variance of k batch means of b buckets is
// multiplied by for the correlation left between neighbouring batches: a
// window too short for batches of several correlation times (30 s at
// τ = 9 s leaves batches of 7 s) makes them alike and their spread too
// small. Under the AR(1) reading, E[batch-means variance] ≈ σ²(1 −
// (k+1)/k · γ/b), γ/σ² = 2ρ/(1−ρ²): the first-order bias of batch means,
// from the covariance of neighbouring batches (γ = 2 Σ h·R(h)). The
// correction is capped at maxBatchBias, so that a noisy ρ can't blow the
// interval up.
func batchBias(rho float64, b, k int) float64 {
	g := 2 * rho / (1 - rho*rho)
	kept := 1 - float64(k+1)/float64(k)*g/float64(b)
	return 1 / max(kept, 1.0/maxBatchBias) // 1.0: an untyped 1/2 is 0, and 1/0 an infinite interval
}

// lag1Corrected is the lag-1 autocorrelation of values, corrected for the
// estimator's bias in short series (E[r] ≈ ρ − (1+3ρ)/n, Kendall), within
// [0, maxLag1]: a negative correlation only narrows the interval, and is
// not relied on.
func lag1Corrected(values []float64) float64 {
	n := float64(len(values))
	m := meanOf(values)
	var num, den float64
	for i, v := range values {
		den += (v - m) * (v - m)
		if i > 0 {
			num += (v - m) * (values[i-1] - m)
		}
	}
	if den == 0 || n <= 3 {
		return 0
	}
	r := num / den
	return max(0, min((r*n+1)/(n-3), maxLag1))
}

func meanOf(values []float64) float64 {
	var s float64
	for _, v := range values {
		s += v
	}
	return s / float64(len(values))
}

func sampleVariance(values []float64) float64 {
	m := meanOf(values)
	var s float64
	for _, v := range values {
		s += (v - m) * (v - m)
	}
	return s / float64(len(values)-1)
}

// tTable95 holds the two-sided 95 % quantiles of Student's t for 1 to 30
// degrees of freedom.
var tTable95 = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// TQuantile95 is the two-sided 95 % quantile of Student's t with df degrees
// of freedom (its one-sided 0.975 quantile): the table to 30, the
// Cornish–Fisher expansion around the normal's 1.96 beyond (within 1e-4
// there); +Inf below 1. The batch means and quality's bootstrap read it.
func TQuantile95(df int) float64 {
	if df < 1 {
		return math.Inf(1)
	}
	if df <= len(tTable95) {
		return tTable95[df-1]
	}
	const z = 1.959963984540054
	v := float64(df)
	g1 := (z*z*z + z) / 4
	g2 := (5*math.Pow(z, 5) + 16*z*z*z + 3*z) / 96
	g3 := (3*math.Pow(z, 7) + 19*math.Pow(z, 5) + 17*z*z*z - 15*z) / 384
	return z + g1/v + g2/(v*v) + g3/(v*v*v)
}

// Quantile is the q-quantile of sorted, interpolating linearly between the
// closest ranks: the percentiles of a cell's requests and the ends of a
// bootstrap interval.
func Quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}
