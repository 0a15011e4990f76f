package engine

import (
	"slices"
)

// TemplateReserveTokens is kept free of every context for the chat template
// and special tokens: with max_model_len 131,072 and 4,096 output tokens the
// largest decode context is 126,720 tokens, "123K" as in the reference reports.
const TemplateReserveTokens = 256

// Limits are what a server holds, as far as known before a run (0: unknown).
type Limits struct {
	MaxModelLen   int // tokens of prompt and output per request
	KVCacheTokens int // tokens the KV cache holds
	MaxNumSeqs    int // sequences the server runs at once
}

// OverCapacity is OverCapacity with these limits.
func (l Limits) OverCapacity(contextTokens, concurrency, outputTokens int) bool {
	return OverCapacity(l.KVCacheTokens, l.MaxNumSeqs, contextTokens, concurrency, outputTokens)
}

// Overflow is why a cell is over a server's capacity, for the front ends
// to explain a grey cell.
type Overflow int

// The reasons of OverCapacity.
const (
	fits        Overflow = iota // within every known limit
	OverKVCache                 // concurrency × (context + output) is more than the KV cache holds
	OverMaxSeqs                 // more requests than the server runs at once (max_num_seqs)
)

// Overflow says which limit makes a cell over capacity, the KV cache
// first; fits when none does.
func (l Limits) Overflow(contextTokens, concurrency, outputTokens int) Overflow {
	switch {
	case l.KVCacheTokens > 0 && concurrency*(contextTokens+outputTokens) > l.KVCacheTokens:
		return OverKVCache
	case l.MaxNumSeqs > 0 && concurrency > l.MaxNumSeqs:
		return OverMaxSeqs
	}
	return fits
}

// Fit is plan with its contexts fitted to the model length, as a run
// measures them.
func (l Limits) Fit(plan Plan) Plan {
	plan.PrefillContexts = FitContexts(plan.PrefillContexts, l.MaxModelLen, 1)
	plan.DecodeContexts = FitContexts(plan.DecodeContexts, l.MaxModelLen, plan.MaxOutputTokens)
	return plan
}

// fitContext returns the largest context that fits the model with output
// tokens after it, or requested when it fits (or the length is unknown).
func fitContext(requested, maxModelLen, output int) int {
	if maxModelLen <= 0 {
		return requested
	}
	limit := maxModelLen - output - TemplateReserveTokens
	return max(0, min(requested, limit))
}

// FitContexts fits every context to a model of maxModelLen tokens (0:
// unknown, left as they are) with output tokens after it, as a run does,
// then drops duplicates and sorts them: 131,072 tokens with 4,096 output
// turn a requested 128K into 126,720 (123K).
func FitContexts(requested []int, maxModelLen, output int) []int {
	out := make([]int, 0, len(requested))
	for _, c := range requested {
		out = append(out, fitContext(c, maxModelLen, output))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// OverCapacity reports whether concurrency simultaneous requests at this
// context, each with output tokens after it, can't be held by a server: their
// KV cache need exceeds its kvTokens, or concurrency exceeds maxNumSeqs.
// Unknown limits (0) never make a cell over capacity.
func OverCapacity(kvTokens, maxNumSeqs, contextTokens, concurrency, output int) bool {
	return Limits{KVCacheTokens: kvTokens, MaxNumSeqs: maxNumSeqs}.Overflow(contextTokens, concurrency, output) != fits
}
