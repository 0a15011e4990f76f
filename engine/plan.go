package engine

import "time"

// API selects the OpenAI-compatible endpoint used for the measurements.
type API string

// The two APIs a plan can use.
const (
	APIChat        API = "chat"
	APICompletions API = "completions"
)

// K is one "K" of context as the reference reports count it.
const K = 1024

// Plan is what a run measures: prefill at each prefill context, then
// sustained decode at each decode context × concurrency level.
type Plan struct {
	PrefillContexts []int         `json:"prefill_contexts"`
	DecodeContexts  []int         `json:"decode_contexts"`
	Concurrency     []int         `json:"concurrency"`
	Duration        time.Duration `json:"duration_ns"`
	MaxOutputTokens int           `json:"max_output_tokens"`
	API             API           `json:"api"`
	// KVBudgetTokens overrides the server's KV cache size for capacity checks (0: ask the server).
	KVBudgetTokens int  `json:"kv_budget_tokens,omitempty"`
	LoopDetection  bool `json:"loop_detection"`
	// SLO, when on, is the latency objective each decode cell is judged
	// against (see SLOVerdict); it changes no measurement.
	SLO SLO `json:"slo,omitzero"`
	// Precision, when above 0, makes decode windows adaptive: a cell's
	// window ends once each headline figure is known to within this
	// relative 95 % half-width (0.01: ±1 %), after at least
	// MinAdaptiveWindow and at most Duration. 0 is a fixed window of
	// Duration, as every plan before it had (an older report resumes so).
	// Always written: a saved "off" must not read back as a default.
	Precision float64 `json:"precision"`
}

// DefaultPlan is the Standard plan, the reference reports' matrix: prefill
// 8K–128K; decode 8K–128K × 1–128 simultaneous requests for up to 30 s
// each, ending a window once its figures are known to ±1 % (Precision),
// up to 4,096 output tokens.
func DefaultPlan() Plan {
	return Plan{
		PrefillContexts: []int{8 * K, 16 * K, 32 * K, 64 * K, 128 * K},
		DecodeContexts:  []int{8 * K, 16 * K, 32 * K, 64 * K, 128 * K},
		Concurrency:     []int{1, 2, 4, 8, 16, 32, 64, 128},
		Duration:        30 * time.Second,
		MaxOutputTokens: 4096,
		API:             APIChat,
		LoopDetection:   true,
		Precision:       DefaultPrecision,
	}
}
