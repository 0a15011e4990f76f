package measure

import (
	"time"

	"speedmatrix/engine"
)

// reasoningTally sums what requests spent reasoning: their output inside a
// window split into reasoning and answer tokens (requestRecord.
// reasoningSplit), and the time from each request's start to its first
// answer token, whose median is engine.Reasoning's AnswerTTFTMs.
type reasoningTally struct {
	reasoning, answer float64
	toAnswer          []float64
	seen              bool // a reply reasoned
}

// add counts r's arrivals inside (from, to], all of them for a zero from;
// start is when its latencies count from (its send in the matrix, its
// schedule in a load test).
func (t *reasoningTally) add(r *requestRecord, from, to, start time.Time) {
	re, an, ok := r.reasoningSplit(from, to)
	if !ok {
		return
	}
	t.seen = true
	t.reasoning, t.answer = t.reasoning+re, t.answer+an
	if !r.FirstAnswer.IsZero() && !start.IsZero() && r.FirstAnswer.After(start) {
		t.toAnswer = append(t.toAnswer, ms(r.FirstAnswer.Sub(start)))
	}
}

// result is the tally as report.json keeps it; the zero Reasoning when no
// reply reasoned.
func (t *reasoningTally) result() engine.Reasoning {
	if !t.seen {
		return engine.Reasoning{}
	}
	return engine.Reasoning{ReasoningTokens: int(t.reasoning + 0.5), AnswerTokens: int(t.answer + 0.5), AnswerTTFTMs: percentiles(t.toAnswer).P50}
}
