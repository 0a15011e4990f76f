package engine

import "math"

// Restarts is when a decode cell's streams were between requests, bucket
// by bucket: the time from a request's last token to the next request's
// first, in which a stream decodes nothing. Every request of a cell asks
// for the same output, so the streams restart on a rhythm: at one stream
// of 512 tokens 5 ms apart, a second in every 2.6 loses the 50 ms the
// next request waits for its first token, and when a cell's streams
// started together they restart together, a dip of every stream at once.
// A dip that comes back on a rhythm is not noise in the window's rate:
// over any long window it costs the same share. Read as noise, it made the
// ± of total tok/s two to six times the spread of the windows' rates at 4
// and 16 streams (METHODOLOGY, "Restarts apart"), and adaptive windows
// ran up to 20 s where 6 s had the rate.
type Restarts struct {
	// Waiting is the stream-seconds spent between requests in each
	// bucket, parallel to the rate's buckets.
	Waiting []float64
	// MeanWait is the mean length of one wait, in seconds: how much a
	// window's end can cut off one. WaitVar is the variance of the waits'
	// lengths (s²), and Waits how many waits the window holds: a re-run's
	// waits are as long as another draw of them.
	MeanWait float64
	WaitVar  float64
	Waits    int
	// Streams is the cell's concurrency.
	Streams int
}

// SetWaits sets MeanWait and WaitVar from the lengths of the window's
// waits, in seconds (WaitVar stays 0 for fewer than two).
func (r *Restarts) SetWaits(lengths []float64) {
	if len(lengths) == 0 {
		return
	}
	r.MeanWait = meanOf(lengths)
	if len(lengths) > 1 {
		r.WaitVar = sampleVariance(lengths)
	}
}

// EstimateRate is EstimatePrecision and EstimateDrift for a decode cell's
// total tok/s, its restarts taken apart once for both: the buckets are
// regressed on their waiting stream-seconds (least squares), the batch
// means run over the residuals about the window's mean, and the variance
// of the waits' share of the window is added apart, times the tokens a
// second of waiting costs: each stream's wait at the window's end may fall
// in or out of it (half a wait a stream, a variance of at most streams ×
// MeanWait² ÷ 4), and each of the window's waits might have been as long
// as another (Waits × WaitVar): a server whose first tokens come late now
// and then loses tokens to it that a re-run may not. The drift is fitted
// to the same residuals: a dip as a request ends near one of a short
// window's ends tilts the line fitted through the raw buckets. A window
// without a wait, or whose waits are the same in every bucket, is
// estimated as EstimatePrecision and EstimateDrift do.
func EstimateRate(values []float64, resolution float64, r Restarts) (Precision, *Drift) {
	adjusted, extra, ok := r.apart(values)
	if !ok {
		return EstimatePrecision(values, resolution), EstimateDrift(values, resolution)
	}
	return estimateMean(adjusted, resolution, extra, 1, methodRestarts), EstimateDrift(adjusted, resolution)
}

// minWaitVariation is the least variation of the waiting between buckets
// (stream-seconds², summed) that explains anything: below it the buckets
// wait alike, to within a microsecond, and a regression on it only
// divides rounding by rounding.
const minWaitVariation = 1e-12

// apart returns values less what the waiting explains, about the same
// mean, and the variance of the mean the waits' share adds; false when
// the waits explain nothing (none, or the same in every bucket).
func (r Restarts) apart(values []float64) ([]float64, float64, bool) {
	n := len(values)
	if len(r.Waiting) != n || n < minPrecisionBuckets || r.Streams <= 0 || !(r.MeanWait > 0) {
		return nil, 0, false
	}
	_, beta, sxx := fitLine(r.Waiting, values)
	if !(sxx > minWaitVariation) || math.IsNaN(beta) || math.IsInf(beta, 0) {
		return nil, 0, false
	}
	mw := meanOf(r.Waiting)
	out := make([]float64, n)
	for i, v := range values {
		out[i] = v - beta*(r.Waiting[i]-mw)
	}
	waiting := float64(r.Streams)*r.MeanWait*r.MeanWait/4 + float64(r.Waits)*max(0, r.WaitVar)
	return out, beta * beta * waiting / float64(n*n), true
}
