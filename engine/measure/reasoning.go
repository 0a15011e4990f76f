package measure

import (
	"time"

	"speedmatrix/engine"
)

// reasoningOf splits the output of recs inside [from, to) into reasoning
// and answer tokens (requestRecord.reasoningSplit), and takes the median
// time from since(request) to its first answer token over the requests
// that reached one; the zero Reasoning when no reply reasoned. A zero from
// takes every arrival.
func reasoningOf(recs []*requestRecord, from, to time.Time, since func(*requestRecord) time.Time) engine.Reasoning {
	var reasoning, answer float64
	var toAnswer []float64
	seen := false
	for _, r := range recs {
		re, an, ok := r.reasoningSplit(from, to)
		if !ok {
			continue
		}
		seen = true
		reasoning, answer = reasoning+re, answer+an
		if start := since(r); !r.FirstAnswer.IsZero() && !start.IsZero() && r.FirstAnswer.After(start) {
			toAnswer = append(toAnswer, ms(r.FirstAnswer.Sub(start)))
		}
	}
	if !seen {
		return engine.Reasoning{}
	}
	return engine.Reasoning{ReasoningTokens: int(reasoning + 0.5), AnswerTokens: int(answer + 0.5), AnswerTTFTMs: percentiles(toAnswer).P50}
}

// sentAt is when a matrix request was sent: its TTFT and first answer
// token count from there.
func sentAt(r *requestRecord) time.Time { return r.Sent }
