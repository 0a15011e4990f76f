package engine

import (
	"fmt"
	"math"
)

// The compute dtypes a peak is quoted for.
const (
	BF16 = "BF16"
	FP8  = "FP8"
	FP4  = "FP4"
)

// RooflineGPU is what the roofline knows of the GPUs serving the model.
type RooflineGPU struct {
	Name string `json:"name"`
	// Count is how many GPUs share the model (tensor parallel): their
	// bandwidth and compute add up.
	Count int `json:"count"`
	// BandwidthGBs is one GPU's peak memory bandwidth, GB/s.
	BandwidthGBs    float64 `json:"bandwidth_gb_s"`
	BandwidthSource string  `json:"bandwidth_source"` // "nvml" or "table: H100 SXM"
	// BF16TFLOPs, FP8TFLOPs and FP4TFLOPs are one GPU's dense peaks.
	BF16TFLOPs    float64 `json:"bf16_tflops"`
	FP8TFLOPs     float64 `json:"fp8_tflops,omitempty"`
	FP4TFLOPs     float64 `json:"fp4_tflops,omitempty"`
	ComputeSource string  `json:"compute_source"` // "table: H100 SXM (data sheet …)"
}

// tflops is the dense peak of all the GPUs for dtype, falling back to BF16
// when the GPU has no tensor cores for it (FP4 weights on an RTX 3090 are
// dequantized to BF16).
func (g RooflineGPU) tflops(dtype string) (float64, string) {
	v := map[string]float64{BF16: g.BF16TFLOPs, FP8: g.FP8TFLOPs, FP4: g.FP4TFLOPs}[dtype]
	if v <= 0 {
		v, dtype = g.BF16TFLOPs, BF16
	}
	return v * float64(max(g.Count, 1)), dtype
}

func (g RooflineGPU) bytesPerSecond() float64 { return g.BandwidthGBs * 1e9 * float64(max(g.Count, 1)) }

// RooflineModel is what the roofline knows of the model: the bytes one decode step
// reads and the FLOPs of a token.
type RooflineModel struct {
	Name         string `json:"name,omitempty"`
	WeightDType  string `json:"weight_dtype"`             // BF16, FP8, NVFP4, …
	ComputeDType string `json:"compute_dtype"`            // the tensor-core dtype of the matrix products
	KVCacheDType string `json:"kv_cache_dtype,omitempty"` // vLLM's --kv-cache-dtype; "" for the model's
	// WeightBytes is every weight on the GPUs (all experts, embedding tables).
	WeightBytes float64 `json:"weight_bytes"`
	// StepBytes is what every decode step reads besides routed experts:
	// attention, dense MLPs, routers, the LM head. Embedding tables are
	// looked up, not read.
	StepBytes float64 `json:"step_bytes"`
	// Experts routed per layer, ExpertsPerToken of them chosen per token, in
	// MoELayers layers; ExpertBytes is one expert of one layer.
	Experts         int     `json:"experts,omitempty"`
	ExpertsPerToken int     `json:"experts_per_token,omitempty"`
	MoELayers       int     `json:"moe_layers,omitempty"`
	ExpertBytes     float64 `json:"expert_bytes,omitempty"`
	// KVBytesPerToken is the KV cache of one token of context in the
	// full-attention layers; SlidingKVBytesPerToken in the sliding-window
	// layers, which keep only the last SlidingWindow tokens.
	KVBytesPerToken        float64 `json:"kv_bytes_per_token"`
	SlidingKVBytesPerToken float64 `json:"sliding_kv_bytes_per_token,omitempty"`
	SlidingWindow          int     `json:"sliding_window,omitempty"`
	// ActiveParams are the parameters one token multiplies (the chosen
	// experts only, the LM head included): 2 FLOPs each.
	ActiveParams float64 `json:"active_params"`
	LMHeadParams float64 `json:"lm_head_params"`
	// AttnFLOPsPerPair is attention's FLOPs per (query, key) pair summed
	// over the full-attention layers (4 × heads × head dim each);
	// SlidingAttnFLOPsPerPair over the sliding ones.
	AttnFLOPsPerPair        float64 `json:"attn_flops_per_pair"`
	SlidingAttnFLOPsPerPair float64 `json:"sliding_attn_flops_per_pair,omitempty"`
	// Sources says where each group of facts came from: "vllm log",
	// "config.json", "simulated profile".
	Sources map[string]string `json:"sources"`
}

// RooflineFacts are the roofline section of report.json: the GPU and model facts
// every ceiling is computed from, and the assumptions made. Unavailable,
// when set, says why there is no roofline.
type RooflineFacts struct {
	GPU         RooflineGPU   `json:"gpu"`
	Model       RooflineModel `json:"model"`
	Assumptions []string      `json:"assumptions,omitempty"`
	Unavailable string        `json:"unavailable,omitempty"`
}

// Available reports whether f can compute ceilings.
func (f *RooflineFacts) Available() bool {
	return f != nil && f.Unavailable == "" && f.GPU.BandwidthGBs > 0 && f.GPU.BF16TFLOPs > 0 && f.Model.StepBytes > 0
}

// RooflineUnavailable is the facts of a run without a roofline, saying why.
func RooflineUnavailable(err error) *RooflineFacts { return &RooflineFacts{Unavailable: err.Error()} }

// NewRoofline puts the GPU and model facts together with the assumptions every
// ceiling makes.
func NewRoofline(g RooflineGPU, m RooflineModel) *RooflineFacts {
	f := &RooflineFacts{GPU: g, Model: m, Assumptions: []string{
		"decode: each step reads the step's weights once (for MoE the distinct experts its tokens choose, E·(1−(1−k/E)^C) per layer), the cell's shared prompt's KV cache once (its C requests share one cached prompt) and each request's own output, half the max output on average",
		"compute: 2 FLOPs per active parameter per token plus 4 × heads × head dim per (query, key) pair of attention, at the GPU's dense tensor-core peak",
		"prefill: the LM head runs for the last prompt token only; a cell's ceiling is the lower of the memory and compute bounds",
	}}
	if _, dt := g.tflops(m.ComputeDType); dt != m.ComputeDType {
		f.Assumptions = append(f.Assumptions, fmt.Sprintf("%s has no %s tensor cores: %s weights are multiplied in %s", g.Name, m.ComputeDType, m.WeightDType, dt))
	}
	if g.Count > 1 {
		f.Assumptions = append(f.Assumptions, fmt.Sprintf("the %d GPUs' bandwidth and compute add up (tensor parallel, communication not counted)", g.Count))
	}
	return f
}

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

// stepBytesAt is what one decode step of c requests reads from memory
// when they share a cached prompt of promptTokens and each holds
// outputTokens of its own: the step's weights, the distinct experts its
// tokens choose, the shared prompt's KV cache once (vLLM's prefix cache
// holds one copy) and every request's own. Sliding-window layers read each
// request's last SlidingWindow tokens.
func (m RooflineModel) stepBytesAt(promptTokens, outputTokens, c int) float64 {
	b := m.StepBytes + float64(m.MoELayers)*DistinctExperts(m.Experts, m.ExpertsPerToken, c)*m.ExpertBytes
	b += m.KVBytesPerToken * float64(promptTokens+c*outputTokens)
	return b + float64(c)*m.SlidingKVBytesPerToken*float64(m.window(promptTokens+outputTokens))
}

// window is how many of contextTokens a sliding-window layer attends to.
func (m RooflineModel) window(contextTokens int) int {
	if m.SlidingWindow > 0 {
		return min(contextTokens, m.SlidingWindow)
	}
	return contextTokens
}

// attnFLOPs is attention's FLOPs for one query at position contextTokens.
func (m RooflineModel) attnFLOPs(contextTokens int) float64 {
	return m.AttnFLOPsPerPair*float64(contextTokens) + m.SlidingAttnFLOPsPerPair*float64(m.window(contextTokens))
}

// Decode is the ceiling of total tok/s of c requests decoding at once that
// share a cached prompt of promptTokens and each hold outputTokens of their
// own: c tokens per step, a step taking at least its bytes ÷ bandwidth and
// its FLOPs ÷ peak.
func (f *RooflineFacts) Decode(promptTokens, outputTokens, c int) Ceiling {
	if !f.Available() || c < 1 {
		return Ceiling{}
	}
	m := f.Model
	memS := m.stepBytesAt(promptTokens, outputTokens, c) / f.GPU.bytesPerSecond()
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
func (f *RooflineFacts) Prefill(n int) Ceiling {
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

// finite is x, or +Inf for a bound that could not be computed (0 s).
func finite(tokens, seconds float64) float64 {
	if seconds <= 0 {
		return math.Inf(1)
	}
	return tokens / seconds
}
