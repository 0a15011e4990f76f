package report

import (
	"fmt"
	"math"

	"speedmatrix/engine"
)

// Pct writes a share of the roofline in whole percent: "43 %".
func Pct(pct float64) string { return fmt.Sprintf("%d %%", int(math.Round(pct))) }

// RooflineLine sums up a phase's shares of the roofline in one line:
// "Decode: 28–43 % of the memory-bandwidth roofline (8K × 1: 166.5 tok/s
// is 43 % of 387.2)", naming the cell closest to its ceiling. It is
// "Roofline unavailable: unknown GPU (…)" when the report's facts say why
// there is none, and empty when the report has no roofline.
func RooflineLine(r engine.Report, phase engine.Phase) string {
	f := r.Roofline
	if f == nil {
		return ""
	}
	if !f.Available() {
		if phase == engine.PhaseDecode && f.Unavailable != "" {
			return upperFirst(f.Unavailable)
		}
		return ""
	}
	var best engine.Result
	lo, hi, n := math.Inf(1), 0.0, 0
	bounds := map[string]bool{}
	for _, res := range ofPhase(r.Results, phase) {
		if !res.Measured() || res.RooflineTokS <= 0 {
			continue
		}
		n++
		lo, hi = min(lo, res.RooflinePct), max(hi, res.RooflinePct)
		if res.RooflinePct >= best.RooflinePct {
			best = res
		}
		bounds[res.RooflineBound] = true
	}
	if n == 0 {
		return ""
	}
	span := Pct(lo)
	if math.Round(lo) != math.Round(hi) {
		span = fmt.Sprintf("%d–%s", int(math.Round(lo)), Pct(hi))
	}
	of := "the roofline (memory bandwidth or compute)"
	if len(bounds) == 1 {
		for b := range bounds {
			of = "the " + hyphenBound(b) + " roofline"
		}
	}
	cell := best.ContextName()
	name := "Decode"
	if phase == engine.PhasePrefill {
		name = "Prefill"
	} else {
		cell += fmt.Sprintf(" × %d", best.Concurrency)
	}
	line := fmt.Sprintf("%s: %s of %s (%s: %s tok/s is %s of %s)", name, span, of, cell,
		TokPerSec(best.TotalTokPerSec), Pct(best.RooflinePct), TokPerSec(best.RooflineTokS))
	if hi > 100 {
		line += "; above the roofline: the facts are wrong"
	}
	return line
}

func hyphenBound(b string) string {
	if b == engine.BoundMemory {
		return "memory-bandwidth"
	}
	return b
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
