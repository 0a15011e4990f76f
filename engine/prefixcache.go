package engine

import (
	"fmt"
	"math"
)

// PrefixCache is what the server's prefix cache did for the requests of
// one cell or one load-test rate: the prompt tokens it was asked for and
// found, from the growth of its counters between the scrape before the
// cell and the one after its requests drained (vLLM's
// vllm:prefix_cache_queries_total and _hits_total); for SGLang, which
// keeps no counters, the time-average of its sglang:cache_hit_rate gauge
// over the same span, and no token counts.
//
// The matrix's prompts start uniquely per cell and per prefill repeat, so
// a prefill cell should find nothing (FlagPrefixCacheHit says when it
// did); a decode cell's later requests send the prompt its first one
// sent, and find it.
type PrefixCache struct {
	// ServerHitRate is hit ÷ queried tokens (0..1).
	ServerHitRate float64 `json:"server_hit_rate"`
	// QueriedTokens and HitTokens are the counters' growth; 0 from a gauge.
	QueriedTokens float64 `json:"queried_tokens,omitempty"`
	HitTokens     float64 `json:"hit_tokens,omitempty"`
	// Source names the metrics the figures came from; "" when the server
	// has none, and the figures above are then not measured.
	Source string `json:"source"`
	// TraceHitRate is, for a trace's replay, the share of its prompt
	// tokens an unbounded cache would hold, from its hash ids (0..1).
	TraceHitRate *float64 `json:"trace_hit_rate,omitempty"`
}

// Measured reports whether the server gave the figures: a trace's replay
// on a server without them carries only TraceHitRate.
func (p *PrefixCache) Measured() bool {
	return p != nil && (p.Source != "" || p.QueriedTokens > 0 || p.ServerHitRate > 0)
}

// PrefixCacheHitShare is the share of a prefill cell's prompt tokens the
// server may find in its prefix cache before the cell is flagged: a
// chat template's shared first block is below it, a prompt served from
// the cache far above.
const PrefixCacheHitShare = 0.05

// FlagPrefixCacheHit: the server found part of a prefill cell's prompts in
// its prefix cache, so the time to first token measured less prefill than
// the cell's context.
const FlagPrefixCacheHit FlagKind = "prefix_cache_hit"

// PrefixCacheFlag is the flag a prefill cell gets when its prompts were
// found in the cache beyond PrefixCacheHitShare; ok false otherwise.
func PrefixCacheFlag(p *PrefixCache) (Flag, bool) {
	if !p.Measured() || p.ServerHitRate <= PrefixCacheHitShare {
		return Flag{}, false
	}
	return Flag{Kind: FlagPrefixCacheHit, Message: fmt.Sprintf("the server found %.0f %% of the prompts in its prefix cache: "+
		"the prefill it timed was shorter than the context (was another client sending the same prompts?)", 100*p.ServerHitRate)}, true
}

// Problem says what no server's counters give, for a report read from a
// file: a rate outside 0..1, a count that is negative, not a number or
// above a float's exact integers, or more hits than queries; "" when
// none.
func (p PrefixCache) Problem() string {
	figures := []float64{p.ServerHitRate, p.QueriedTokens, p.HitTokens}
	if p.TraceHitRate != nil {
		figures = append(figures, *p.TraceHitRate)
	}
	for _, v := range figures {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Sprintf("a prefix-cache figure that is not a count (%v)", v)
		}
	}
	switch {
	case p.ServerHitRate > 1:
		return fmt.Sprintf("a prefix-cache hit rate of %v, above 1", p.ServerHitRate)
	case p.TraceHitRate != nil && *p.TraceHitRate > 1:
		return fmt.Sprintf("a trace's implied prefix-cache hit rate of %v, above 1", *p.TraceHitRate)
	case p.QueriedTokens > 1<<53:
		return fmt.Sprintf("%v prefix-cache queries, more than a counter holds", p.QueriedTokens)
	case p.HitTokens > p.QueriedTokens && p.QueriedTokens > 0:
		return fmt.Sprintf("%v prefix-cache hits of %v queried tokens", p.HitTokens, p.QueriedTokens)
	}
	return ""
}
