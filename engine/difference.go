package engine

import "math"

// UnknownNoisePct is the 95 % half-width, in percent, a comparison assumes
// for a figure whose own is unknown (a window too short to estimate it, an
// imported run): the Standard plan's precision target.
const UnknownNoisePct = 100 * DefaultPrecision

// NoisePct is the 95 % half-width of a Valid cell's total tok/s in
// percent, or UnknownNoisePct.
func NoisePct(r Result) float64 {
	if r.Precision != nil && r.Precision.TotalTokPerSec.Known() {
		return 100 * r.Precision.TotalTokPerSec.RelCI95
	}
	return UnknownNoisePct
}

// WithinNoise is the one rule by which two measurements of total tok/s
// "make no difference": the change from one to the other (b ÷ a − 1) is
// within the sum of their 95 % half-widths, in percent. A sweep's margin
// and the comparison of two runs both read it.
func WithinNoise(change, noisePctA, noisePctB float64) bool {
	return 100*math.Abs(change) <= noisePctA+noisePctB
}
