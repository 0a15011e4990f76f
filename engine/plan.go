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
	// PrefillRepeats is how many cold requests measure each prefill cell,
	// each with a prefix of its own, so that the cell's figure is their
	// median and one slow request (a compile, a hiccup) cannot be it; 0 or
	// 1 is one request, as every run measured before it existed (an older
	// report.json resumes with one). Read it through PrefillRepeatsAt.
	PrefillRepeats int `json:"prefill_repeats,omitempty"`
	// PrefillSingleFrom is the context from which a prefill cell takes one
	// request whatever PrefillRepeats says (0: none): on a slow GPU a
	// repeat at 64K and above costs tens of seconds.
	PrefillSingleFrom int `json:"prefill_single_from,omitempty"`
	// SLO, when on, is the latency objective each decode cell is judged
	// against (see SLOVerdict); it changes no measurement.
	SLO SLO `json:"slo,omitzero"`
	// Precision, when above 0, makes decode windows adaptive: a cell's
	// window ends once its total tok/s is known to within this relative
	// 95 % half-width (0.01: ±1 %) and is not moving, at two checks in a
	// row (Stopper), after at least MinAdaptiveWindow and at most Duration. 0 is a fixed window of
	// Duration, as every plan before it had (an older report resumes so).
	// Always written: a saved "off" must not read back as a default.
	Precision float64 `json:"precision"`
}

// DefaultPlan is the Standard plan, the reference reports' matrix: prefill
// 8K–128K, the median of 3 cold requests below 64K and one from 64K;
// decode 8K–128K × 1–128 simultaneous requests for up to 30 s each, ending
// a window once its figures are known to ±1 % (Precision), up to 4,096
// output tokens.
func DefaultPlan() Plan {
	p := Plan{
		PrefillContexts: []int{8 * K, 16 * K, 32 * K, 64 * K, 128 * K},
		DecodeContexts:  []int{8 * K, 16 * K, 32 * K, 64 * K, 128 * K},
		Concurrency:     []int{1, 2, 4, 8, 16, 32, 64, 128},
		Duration:        30 * time.Second,
		MaxOutputTokens: 4096,
		API:             APIChat,
		LoopDetection:   true,
		Precision:       DefaultPrecision,
	}
	p.PrefillRepeats, p.PrefillSingleFrom = 3, 64*K
	return p
}

// PrefillRepeatsAt is how many cold requests measure the prefill cell at
// contextTokens: PrefillRepeats (at least one), one from PrefillSingleFrom
// on. The one home of that rule, for the run, its ETA and its estimate.
func (p Plan) PrefillRepeatsAt(contextTokens int) int {
	if p.PrefillSingleFrom > 0 && contextTokens >= p.PrefillSingleFrom {
		return 1
	}
	return max(1, p.PrefillRepeats)
}
