package roofline

import "math"

// Bounds say what limits a ceiling.
const (
	BoundMemory  = "memory bandwidth"
	BoundCompute = "compute"
)

// Ceiling is the most a cell can reach on the hardware: TokS is the lower
// of MemoryTokS and ComputeTokS, Bound says which.
type Ceiling struct {
	TokS        float64
	Bound       string
	MemoryTokS  float64
	ComputeTokS float64
}

func ceiling(tokens, memS, computeS float64) Ceiling {
	c := Ceiling{MemoryTokS: finite(tokens, memS), ComputeTokS: finite(tokens, computeS)}
	c.TokS, c.Bound = c.MemoryTokS, BoundMemory
	if c.ComputeTokS < c.MemoryTokS {
		c.TokS, c.Bound = c.ComputeTokS, BoundCompute
	}
	return c
}

// DistinctExperts is how many of e experts, k chosen per token, c tokens
// touch on average when each token's choice is uniform and independent:
// e·(1−(1−k/e)^c).
func DistinctExperts(e, k, c int) float64 {
	if e <= 0 || k <= 0 || c <= 0 {
		return 0
	}
	return float64(e) * (1 - math.Pow(1-float64(k)/float64(e), float64(c)))
}

// StepBytesAt is what one decode step of c requests reads from memory
// when they share a cached prompt of promptTokens and each holds
// outputTokens of its own: the step's weights, the distinct experts its
// tokens choose, the shared prompt's KV cache once (vLLM's prefix cache
// holds one copy) and every request's own. Sliding-window layers read each
// request's last SlidingWindow tokens.
func (m Model) StepBytesAt(promptTokens, outputTokens, c int) float64 {
	b := m.StepBytes + float64(m.MoELayers)*DistinctExperts(m.Experts, m.ExpertsPerToken, c)*m.ExpertBytes
	b += m.KVBytesPerToken * float64(promptTokens+c*outputTokens)
	return b + float64(c)*m.SlidingKVBytesPerToken*float64(m.window(promptTokens+outputTokens))
}

// window is how many of contextTokens a sliding-window layer attends to.
func (m Model) window(contextTokens int) int {
	if m.SlidingWindow > 0 {
		return min(contextTokens, m.SlidingWindow)
	}
	return contextTokens
}

// attnFLOPs is attention's FLOPs for one query at position contextTokens.
func (m Model) attnFLOPs(contextTokens int) float64 {
	return m.AttnFLOPsPerPair*float64(contextTokens) + m.SlidingAttnFLOPsPerPair*float64(m.window(contextTokens))
}

// Decode is the ceiling of total tok/s of c requests decoding at once that
// share a cached prompt of promptTokens and each hold outputTokens of their
// own: c tokens per step, a step taking at least its bytes ÷ bandwidth and
// its FLOPs ÷ peak.
func (f *Facts) Decode(promptTokens, outputTokens, c int) Ceiling {
	if !f.Available() || c < 1 {
		return Ceiling{}
	}
	m := f.Model
	memS := m.StepBytesAt(promptTokens, outputTokens, c) / f.GPU.bytesPerSecond()
	linear, _ := f.GPU.tflops(m.ComputeDType)
	attn, _ := f.GPU.tflops(BF16)
	computeS := float64(c) * (2*m.ActiveParams/(linear*1e12) + m.attnFLOPs(promptTokens+outputTokens)/(attn*1e12))
	if m.ActiveParams <= 0 {
		computeS = 0 // FLOPs unknown (facts from vLLM's log alone): no compute bound
	}
	return ceiling(float64(c), memS, computeS)
}

// Prefill is the ceiling of prompt tok/s of one prompt of n tokens: its
// FLOPs (the LM head once, causal attention over every earlier token) ÷
// the peak, or reading every weight once (all experts), whichever takes longer.
func (f *Facts) Prefill(n int) Ceiling {
	if !f.Available() || n < 1 || f.Model.ActiveParams <= 0 {
		return Ceiling{}
	}
	m := f.Model
	linear, _ := f.GPU.tflops(m.ComputeDType)
	attn, _ := f.GPU.tflops(BF16)
	body := m.ActiveParams - m.LMHeadParams
	linearFLOPs := 2*body*float64(n) + 2*m.LMHeadParams
	full := float64(n) * float64(n+1) / 2
	slide := full
	if w := m.SlidingWindow; w > 0 && n > w {
		slide = float64(w)*float64(w+1)/2 + float64(n-w)*float64(w)
	}
	attnFLOPs := m.AttnFLOPsPerPair*full + m.SlidingAttnFLOPsPerPair*slide
	computeS := linearFLOPs/(linear*1e12) + attnFLOPs/(attn*1e12)
	memS := (m.StepBytes + float64(m.MoELayers*m.Experts)*m.ExpertBytes) / f.GPU.bytesPerSecond()
	return ceiling(float64(n), memS, computeS)
}
