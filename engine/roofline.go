package engine

import (
	"fmt"
)

// flagAboveRoofline: the cell measured more than the hardware allows, so a
// fact of the roofline (the GPU's or the model's) is wrong.
const flagAboveRoofline FlagKind = "above_roofline"

// CeilingOf is the roofline of a cell under facts f (zero when f is
// unavailable). A decode cell's C requests share one cached prompt of the
// cell's context (the benchmark's method) and each holds on average half
// the max output of its own.
func CeilingOf(f *RooflineFacts, res Result, maxOutputTokens int) Ceiling {
	if res.Phase == PhasePrefill {
		n := res.ContextTokens
		if res.PromptTokens > 0 {
			n = res.PromptTokens
		}
		return f.Prefill(n)
	}
	return f.Decode(res.ContextTokens, maxOutputTokens/2, res.Concurrency)
}

// AttachRoofline sets a Valid cell's ceiling and the share of it reached;
// a share above 100 % is flagged, never clamped: the facts are wrong.
func AttachRoofline(res *Result, f *RooflineFacts, maxOutputTokens int) {
	res.RooflineTokS, res.RooflinePct, res.RooflineBound = 0, 0, ""
	if !res.Measured() || !f.Available() {
		return
	}
	c := CeilingOf(f, *res, maxOutputTokens)
	if c.TokS <= 0 {
		return
	}
	res.RooflineTokS, res.RooflineBound = c.TokS, c.Bound
	res.RooflinePct = 100 * res.TotalTokPerSec / c.TokS
	if res.RooflinePct > 100 && !res.HasFlag(flagAboveRoofline) {
		res.Flags = append(res.Flags, Flag{Kind: flagAboveRoofline, Message: fmt.Sprintf(
			"above the roofline: the facts are wrong (%.1f tok/s is %.0f %% of the %s ceiling %.1f tok/s)",
			res.TotalTokPerSec, res.RooflinePct, c.Bound, c.TokS)})
	}
}

// ApplyRoofline sets every Valid cell's ceiling and share from r.Roofline
// (a report loaded from an older file, or facts found after the run).
func (r *Report) ApplyRoofline() {
	for i := range r.Results {
		AttachRoofline(&r.Results[i], r.Roofline, r.Run.MaxOutputTokens)
	}
}
