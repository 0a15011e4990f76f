package engine

import "fmt"

// Reasoning is what a reasoning server's replies spent thinking before
// they answered (the streamed delta.reasoning, or reasoning_content
// before vLLM 0.16, against delta.content), in a decode cell's window or
// over a load-test rate's completed requests. Every field is 0, and left
// out of report.json, when no reply streamed reasoning.
type Reasoning struct {
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	AnswerTokens    int `json:"answer_tokens,omitempty"`
	// AnswerTTFTMs is the median time to the first answer token, beside
	// TTFT (the first token of either kind).
	AnswerTTFTMs float64 `json:"answer_ttft_ms,omitempty"`
}

// Reasoned reports whether the replies streamed reasoning.
func (r Reasoning) Reasoned() bool { return r.ReasoningTokens > 0 || r.AnswerTTFTMs > 0 }

// ReasoningShare is the share of the output tokens spent reasoning (0..1);
// 0 without any.
func (r Reasoning) ReasoningShare() float64 {
	if total := r.ReasoningTokens + r.AnswerTokens; total > 0 {
		return float64(r.ReasoningTokens) / float64(total)
	}
	return 0
}

// Problem says what no run records, for a report read from a file: more
// reasoning and answer tokens than the output tokens they split (one more
// allowed, for rounding); "" when none.
func (r Reasoning) Problem(outputTokens int) string {
	if r.ReasoningTokens+r.AnswerTokens > max(outputTokens, 0)+1 || r.ReasoningTokens < 0 || r.AnswerTokens < 0 {
		return fmt.Sprintf("%d reasoning and %d answer tokens of %d output tokens", r.ReasoningTokens, r.AnswerTokens, outputTokens)
	}
	return ""
}
