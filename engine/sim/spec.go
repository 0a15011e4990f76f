package sim

import (
	"fmt"
	"strings"
)

// SpecDecode is speculative decoding as the simulator models it: in every
// decode step each sequence drafts NumSpeculativeTokens tokens, which the
// model verifies along with its own next token. Drafts are accepted in
// order, each with probability AcceptanceRate, up to the first rejection,
// so a step yields one token plus the accepted drafts. Drafts never run past
// a request's last token. The draws are pseudo-random but fixed by the
// request and its output position, so runs are reproducible.
type SpecDecode struct {
	// NumSpeculativeTokens is how many tokens a sequence drafts per step
	// (vLLM's num_speculative_tokens).
	NumSpeculativeTokens int
	// AcceptanceRate is the probability that a draft position is accepted
	// when the one before it was.
	AcceptanceRate float64
	// DraftTokenS is how much longer a decode step takes, in model seconds,
	// per draft position: the drafter's pass and the wider verification.
	DraftTokenS float64
}

// maxSpecTokens bounds NumSpeculativeTokens.
const maxSpecTokens = 16

func (sd *SpecDecode) validate() error {
	switch {
	case sd == nil:
		return nil
	case sd.NumSpeculativeTokens < 1 || sd.NumSpeculativeTokens > maxSpecTokens:
		return fmt.Errorf("speculative decoding drafts %d tokens a step: use 1 to %d", sd.NumSpeculativeTokens, maxSpecTokens)
	case !(sd.AcceptanceRate >= 0 && sd.AcceptanceRate <= 1):
		return fmt.Errorf("speculative acceptance rate %g is not a fraction from 0 to 1", sd.AcceptanceRate)
	case sd.DraftTokenS < 0:
		return fmt.Errorf("speculative draft cost %g s is negative", sd.DraftTokenS)
	}
	return nil
}

// specStats are vLLM v1's speculative decoding counters.
type specStats struct {
	drafts, draftTokens, accepted int64
	acceptedPerPos                []int64 // by draft position
}

func (st specStats) clone() specStats {
	st.acceptedPerPos = append([]int64(nil), st.acceptedPerPos...)
	return st
}

// draftLen is how many tokens q drafts in its next decode step.
func (c *core) draftLen(q *seq) int {
	if c.prof.SpecDecode == nil {
		return 0
	}
	return max(0, min(c.prof.SpecDecode.NumSpeculativeTokens, q.stopAt-q.generated-1))
}

// accept draws how many of the k tokens q drafted this step are accepted,
// and counts them.
func (c *core) accept(q *seq, k int) int {
	if k == 0 {
		return 0
	}
	rate := c.prof.SpecDecode.AcceptanceRate
	r := mix64(q.specKey ^ uint64(q.generated)*0x9e3779b97f4a7c15)
	n := 0
	for n < k && float64(mix64(r+uint64(n))>>11)/(1<<53) < rate {
		n++
	}
	st := &c.stats.spec
	st.drafts++
	st.draftTokens += int64(k)
	st.accepted += int64(n)
	for i := range n {
		st.acceptedPerPos[i]++
	}
	return n
}

// writeSpecMetrics writes vLLM v1's speculative decoding counters.
func writeSpecMetrics(b *strings.Builder, lbl string, st specStats) {
	writeMetric(b, "vllm:spec_decode_num_drafts_total", "counter", "Number of spec decoding drafts.", lbl, float64(st.drafts))
	writeMetric(b, "vllm:spec_decode_num_draft_tokens_total", "counter", "Number of draft tokens.", lbl, float64(st.draftTokens))
	writeMetric(b, "vllm:spec_decode_num_accepted_tokens_total", "counter", "Number of accepted tokens.", lbl, float64(st.accepted))
	const name = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
	fmt.Fprintf(b, "# HELP %s Accepted tokens per draft position.\n# TYPE %s counter\n", name, name)
	for i, n := range st.acceptedPerPos {
		fmt.Fprintf(b, "%s{%s,position=\"%d\"} %s\n", name, lbl, i, promFloat(float64(n)))
	}
}
