package roofline

import (
	"errors"
	"fmt"
)

// ErrUnknownGPU says the GPU table has no row for the GPU: its compute
// peaks are unknown, and the roofline is not guessed.
var ErrUnknownGPU = errors.New("roofline unavailable: unknown GPU")

// GPU is what the roofline knows of the GPUs serving the model.
type GPU struct {
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

// NewGPU gives the facts of count GPUs named name: the compute peaks from
// the table, the bandwidth from NVML when nvmlGBs > 0, else from the table.
// A GPU the table lacks is ErrUnknownGPU.
func NewGPU(name string, count int, nvmlGBs float64) (GPU, error) {
	p, ok := LookupPeak(name)
	if !ok {
		return GPU{}, fmt.Errorf("%w (%s)", ErrUnknownGPU, name)
	}
	if count < 1 {
		count = 1
	}
	g := GPU{Name: name, Count: count, BandwidthGBs: p.BandwidthGBs, BandwidthSource: "table: " + p.Row,
		BF16TFLOPs: p.BF16TFLOPs, FP8TFLOPs: p.FP8TFLOPs, FP4TFLOPs: p.FP4TFLOPs,
		ComputeSource: "table: " + p.Row + " (" + p.Source + ")"}
	if nvmlGBs > 0 {
		g.BandwidthGBs, g.BandwidthSource = nvmlGBs, "nvml"
	}
	return g, nil
}

// tflops is the dense peak of all the GPUs for dtype, falling back to BF16
// when the GPU has no tensor cores for it (FP4 weights on an RTX 3090 are
// dequantized to BF16).
func (g GPU) tflops(dtype string) (float64, string) {
	v := map[string]float64{BF16: g.BF16TFLOPs, FP8: g.FP8TFLOPs, FP4: g.FP4TFLOPs}[dtype]
	if v <= 0 {
		v, dtype = g.BF16TFLOPs, BF16
	}
	return v * float64(max(g.Count, 1)), dtype
}

func (g GPU) bytesPerSecond() float64 { return g.BandwidthGBs * 1e9 * float64(max(g.Count, 1)) }

// Model is what the roofline knows of the model: the bytes one decode step
// reads and the FLOPs of a token.
type Model struct {
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

// Facts are the roofline section of report.json: the GPU and model facts
// every ceiling is computed from, and the assumptions made. Unavailable,
// when set, says why there is no roofline.
type Facts struct {
	GPU         GPU      `json:"gpu"`
	Model       Model    `json:"model"`
	Assumptions []string `json:"assumptions,omitempty"`
	Unavailable string   `json:"unavailable,omitempty"`
}

// Available reports whether f can compute ceilings.
func (f *Facts) Available() bool {
	return f != nil && f.Unavailable == "" && f.GPU.BandwidthGBs > 0 && f.GPU.BF16TFLOPs > 0 && f.Model.StepBytes > 0
}

// Unavailable is the facts of a run without a roofline, saying why.
func Unavailable(err error) *Facts { return &Facts{Unavailable: err.Error()} }

// New puts the GPU and model facts together with the assumptions every
// ceiling makes.
func New(g GPU, m Model) *Facts {
	f := &Facts{GPU: g, Model: m, Assumptions: []string{
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
