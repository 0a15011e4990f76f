package engine

import "math"

// UnknownNoisePct is the 95 % half-width, in percent, a comparison assumes
// for a figure whose own is unknown (a window too short to estimate it, an
// imported run): the Standard plan's precision target.
const UnknownNoisePct = 100 * DefaultPrecision

// WindowsNoise names, in a sentence, what WithinNoise compares a change
// with: "a margin within both windows' ± reads no difference".
const WindowsNoise = "both windows' ±"

// RerunCaveat says once, where a comparison of two runs is shown, what
// their ± is: each window's own 95 % interval, not what a re-run would
// give. Repeats of one cell on servers we didn't write spread more than
// their windows' ± said (METHODOLOGY, "What the ± is"), so a change beyond
// it is a difference between two windows, not yet between two settings.
const RerunCaveat = "Each ± is the 95 % interval of its own window, not a re-run's: a server's pace moves between minutes, so two runs can differ by more than their ± say."

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
