package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Phase says which measurement a cell belongs to.
type Phase string

// The two phases of a speed test matrix.
const (
	PhasePrefill Phase = "prefill"
	PhaseDecode  Phase = "decode"
)

// Title is the phase as the reference reports word it ("Prefill", "Sustained decode").
func (p Phase) Title() string {
	if p == PhasePrefill {
		return "Prefill"
	}
	return "Sustained decode"
}

// Status is the outcome of one cell.
type Status string

// Cell statuses. Only Valid cells carry figures that may be shown as measured.
const (
	StatusPending      Status = "Pending"
	StatusValid        Status = "Valid"
	StatusLooped       Status = "Looped"
	StatusOverCapacity Status = "Over capacity"
	StatusFailed       Status = "Failed"
	StatusCancelled    Status = "Cancelled"
	// StatusNotRun marks a planned cell the run never reached: the server
	// stopped answering, or the run was interrupted before it.
	StatusNotRun Status = "Not run"
)

// Notes explaining the statuses, worded as the reference reports word them.
const (
	NoteLooped       = "Looped: the model kept repeating the same text, so the benchmark discarded this measurement."
	NoteOverCapacity = "Over capacity: not run because this many requests at this context would exceed the server's KV cache."
	NoteFailed       = "Failed: a request of this cell failed, disconnected or stalled while it was measured (or warm-up kept failing); the reason is kept with the cell."
	NoteNotRun       = "Not run: the run ended before this cell (the server stopped answering, or the run was interrupted); resuming the run measures it."
	NoteTTFT         = "TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill."
	NoteLatencies    = "Latencies are medians. Total tok/s is output across all simultaneous requests."
)

// Cell identifies one measurement of the matrix.
type Cell struct {
	Phase         Phase `json:"phase"`
	ContextTokens int   `json:"context_tokens"`
	Concurrency   int   `json:"concurrency"`
}

// Key is a stable identifier of the cell, used to resume runs and compare reports.
func (c Cell) Key() string {
	return fmt.Sprintf("%s/%d/%d", c.Phase, c.ContextTokens, c.Concurrency)
}

// ContextName is the cell's context as every surface writes it:
// ContextLabel of its tokens. A Result's stored ContextLabel is not read
// back: files written before the label stopped rounding down say "3K" for
// 3,840 tokens, and a file's text is not ours to show unbounded.
func (c Cell) ContextName() string { return ContextLabel(c.ContextTokens) }

// Percentiles holds the 50th, 90th and 99th percentile of one figure, and
// how many samples they were computed from. For a latency the high
// percentiles are the slow requests; for a speed (per-request tok/s) the
// low ones are, so a speed also keeps its 10th and 1st.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	// P10 and P1 are a speed's low tail, its slowest requests; 0 for a
	// latency, and in reports written before they were kept.
	P10 float64 `json:"p10,omitempty"`
	P1  float64 `json:"p1,omitempty"`
	// Mean is the samples' mean, for comparing with a server's histograms
	// (sum ÷ count); 0 when unknown.
	Mean float64 `json:"mean,omitempty"`
	// N is the number of samples behind the percentiles; 0 when unknown
	// (reports written before it was recorded, imported files).
	N int `json:"n,omitempty"`
}

// MinP99Samples is the fewest samples a p99 (or a speed's p1) is read from
// without a mark: with fewer, it is one of the few slowest samples, not a
// percentile.
const MinP99Samples = 100

// FewForP99 reports whether the p99, and a speed's p1, rest on fewer than
// MinP99Samples known samples (false when the count is unknown).
func (p Percentiles) FewForP99() bool { return p.N > 0 && p.N < MinP99Samples }

// RequestSample is what one request of a cell did, kept in report.json.
type RequestSample struct {
	PromptTokens int     `json:"prompt_tokens"`
	OutputTokens int     `json:"output_tokens"`    // tokens that arrived inside the window
	TTFTMs       float64 `json:"ttft_ms"`          // time from send to first token
	TokensPerSec float64 `json:"tok_s"`            // this request's own rate inside the window
	Completed    bool    `json:"completed"`        // finished inside the window
	Looped       bool    `json:"looped,omitempty"` // the loop detector fired on its text
	Error        string  `json:"error,omitempty"`  // why it failed, if it did
	FinishReason string  `json:"finish_reason,omitempty"`
}

// Result is one finished cell: its status and, when Valid, its figures.
//
// For a prefill cell TotalTokPerSec is prompt tokens per second (prompt
// tokens ÷ TTFT, the median TTFT of its repeats) and the decode-only
// figures are zero.
type Result struct {
	Cell
	ContextLabel string `json:"context_label"` // "8K", "123K", "0"
	Status       Status `json:"status"`
	Error        string `json:"error,omitempty"`
	// Underfilled is set when the average active requests stayed below 95 %
	// of the requested concurrency: the server could not hold them all.
	// The server's own count decides when /metrics exists.
	Underfilled bool `json:"underfilled,omitempty"`
	// Flags are the trust checks that doubt this cell (see FlagKind).
	Flags []Flag `json:"flags,omitempty"`

	TotalTokPerSec      float64 `json:"total_tok_s"`
	PerRequestTokPerSec float64 `json:"per_request_tok_s"`
	TTFTMs              float64 `json:"ttft_ms"`
	ITLMs               float64 `json:"itl_ms"`
	AvgActive           float64 `json:"avg_active"`
	Completed           int     `json:"completed"`
	OutputTokens        int     `json:"output_tokens"`
	PromptTokens        int     `json:"prompt_tokens"`
	MeasuredS           float64 `json:"measured_s"`

	TTFTPct       Percentiles `json:"ttft_ms_pct"`
	ITLPct        Percentiles `json:"itl_ms_pct"`
	PerRequestPct Percentiles `json:"per_request_tok_s_pct"`

	// PrefillRepeats is how many cold requests a Valid prefill cell's
	// figures are the median of (Plan.PrefillRepeatsAt); 0 in reports from
	// before repeats, which measured one. PrefillSpreadPct is how far its
	// requests' prompt tok/s lay apart, (max − min) ÷ median × 100: the
	// median hides a slow request, the spread says there was one. Zero for
	// one request, which has no spread.
	PrefillRepeats   int     `json:"prefill_repeats,omitempty"`
	PrefillSpreadPct float64 `json:"prefill_spread_pct,omitempty"`

	// Server is the cross-check against the server's /metrics (decode cells).
	Server *ServerCheck `json:"server,omitempty"`
	// PrefixCache is what the server's prefix cache found of the cell's
	// prompts; nil when its /metrics has no prefix-cache figures.
	PrefixCache *PrefixCache `json:"prefix_cache,omitempty"`
	// Reasoning: a decode cell whose replies streamed reasoning (a server
	// with a reasoning parser) splits its output tokens in the window into
	// ReasoningTokens and AnswerTokens, and AnswerTTFTMs is the median time
	// from a request's send to its first answer token; all 0 otherwise.
	Reasoning
	// DrainS is how long the server took, after this cell's streams were
	// closed, to have no request running or waiting (when /metrics exists).
	// Aborted counts the requests still streaming when the window closed
	// that were aborted on the server by their id (SGLang goes on
	// generating after a disconnect); 0 on servers that stop on it.
	Aborted int     `json:"aborted,omitempty"`
	DrainS  float64 `json:"drain_s,omitempty"`
	// Precision is how well a Valid decode cell's headline figures are
	// known from the variation inside its window; nil for other cells.
	Precision *CellPrecision `json:"precision,omitempty"`
	// Partial holds a Failed decode cell's figures, for diagnosis only.
	Partial *PartialFigures `json:"partial,omitempty"`

	Requests  []RequestSample `json:"requests,omitempty"`
	Telemetry *Telemetry      `json:"telemetry,omitempty"`
	// JoulesPerToken is the average power of every GPU serving the model
	// (Telemetry.PowerW), summed, ÷ total tok/s, when telemetry exists.
	JoulesPerToken float64 `json:"joules_per_token,omitempty"`
	// Energy is a Valid cell's energy per token and how it was measured
	// (engine.CellEnergyOf); nil without telemetry of its GPUs' power.
	Energy *CellEnergy `json:"energy,omitempty"`
	// RooflineTokS is a Valid cell's ceiling on this hardware (total tok/s,
	// prompt tok/s for prefill), RooflinePct the share of it reached and
	// RooflineBound what bounds it ("memory bandwidth", "compute"); zero
	// without roofline facts.
	RooflineTokS  float64 `json:"roofline_tok_s,omitempty"`
	RooflinePct   float64 `json:"roofline_pct,omitempty"`
	RooflineBound string  `json:"roofline_bound,omitempty"`

	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// WindowStart is when a Valid decode cell's measurement window opened
	// (the last worker's first token); the window lasts MeasuredS.
	WindowStart time.Time `json:"window_start,omitzero"`
}

// Measured reports whether the cell's figures are real measurements to show.
func (r Result) Measured() bool { return r.Status == StatusValid }

// ContextLabels lists contexts as ContextLabel writes them: "1K, 8K, 32K".
func ContextLabels(ctxs []int) string {
	labels := make([]string, len(ctxs))
	for i, c := range ctxs {
		labels[i] = ContextLabel(c)
	}
	return strings.Join(labels, ", ")
}

// ContextLabel writes a context length for people, the one rule for every
// surface: 0, 1000, 8K, 3.75K, 123.75K. K is 1,024 tokens; a length that is
// not a whole number of K gets up to two decimals, rounded up, so a label
// never understates the context measured (3,840 tokens were once "3K");
// lengths under 1K are written in full.
func ContextLabel(tokens int) string {
	if tokens < K {
		return strconv.Itoa(tokens)
	}
	hundredths := (int64(tokens)*100 + K - 1) / K
	whole, frac := hundredths/100, hundredths%100
	switch {
	case frac == 0:
		return fmt.Sprintf("%dK", whole)
	case frac%10 == 0:
		return fmt.Sprintf("%d.%dK", whole, frac/10)
	}
	return fmt.Sprintf("%d.%02dK", whole, frac)
}

// Final reports whether a cell with this status is done: Valid, Looped,
// Over capacity and Failed are; Pending, Cancelled and Not run still need
// measuring.
func (s Status) Final() bool {
	return s != StatusPending && s != StatusCancelled && s != StatusNotRun
}
