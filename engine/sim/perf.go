package sim

import "math"

// curve evaluates a knot curve at batch size b: linearly in log2 b between
// knots, flat below the first, and in proportion to b beyond the last (a
// saturated GPU takes twice as long for twice the sequences).
func curve(knots []Knot, b int) float64 {
	if len(knots) == 0 {
		return 0
	}
	if b <= knots[0].Batch {
		return knots[0].Seconds
	}
	x := math.Log2(float64(b))
	for i := 1; i < len(knots); i++ {
		if b <= knots[i].Batch {
			x0, x1 := math.Log2(float64(knots[i-1].Batch)), math.Log2(float64(knots[i].Batch))
			f := (x - x0) / (x1 - x0)
			return knots[i-1].Seconds + f*(knots[i].Seconds-knots[i-1].Seconds)
		}
	}
	last := knots[len(knots)-1]
	return last.Seconds * float64(b) / float64(last.Batch)
}

// WithDecodeFactor is p with every decode step factor times as long (both
// decode curves scaled; prefill and the front end unchanged), as a setting
// that changes the decode kernels does: vLLM without CUDA graphs
// (--enforce-eager) is slower, an FP8 KV cache reads fewer bytes a step.
func (p Perf) WithDecodeFactor(factor float64) Perf {
	p.DecodeBaseS = scaleKnots(p.DecodeBaseS, factor)
	p.DecodeAttnS = scaleKnots(p.DecodeAttnS, factor)
	return p
}

// scaleKnots is a copy of knots with every time times factor.
func scaleKnots(knots []Knot, factor float64) []Knot {
	out := make([]Knot, len(knots))
	for i, k := range knots {
		out[i] = Knot{Batch: k.Batch, Seconds: k.Seconds * factor}
	}
	return out
}

// decodeStepS is the time of a decode step over batch sequences holding
// ctxTokens tokens of context in all.
func (p Perf) decodeStepS(batch, ctxTokens int) float64 {
	if batch == 0 {
		return 0
	}
	return curve(p.DecodeBaseS, batch) + curve(p.DecodeAttnS, batch)*float64(ctxTokens)/float64(batch)
}

// prefillChunkS is the compute time of k new prompt tokens after p cached ones.
func (p Perf) prefillChunkS(done, k int) float64 {
	a, b := float64(done), float64(done+k)
	return p.PrefillPerTokenS*float64(k) + p.PrefillQuadS*(b*b-a*a)
}

// frontendS is the front end's time for a prompt of n tokens.
func (p Perf) frontendS(n int) float64 {
	return p.FrontendS + p.FrontendPerTokenS*float64(n)
}
