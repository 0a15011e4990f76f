package measure

import (
	"net/http/httptest"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
)

// reasoningServer is the simulator's tiny profile behind a reasoning
// parser: every chat reply thinks for thought tokens, then answers.
func reasoningServer(t *testing.T, thought int, old bool) *httptest.Server {
	t.Helper()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	p.ReasoningParser, p.ReasoningTokens = "gemma4", thought
	return simServer(t, sim.Options{Profile: p, TimeScale: 20, OldReasoningField: old})
}

// TestReasoningApartFromTheAnswer: against a server that streams its
// thought (delta.reasoning, or reasoning_content as vLLM before 0.16
// did), a decode cell's output splits into reasoning and answer tokens
// that add up to it, and its first answer token comes after its first
// token; a load-test rate counts each completed reply's thought exactly.
// Completions, which carry no reasoning, split nothing.
func TestReasoningApartFromTheAnswer(t *testing.T) {
	t.Parallel()
	const thought = 48
	for _, old := range []bool{false, true} {
		srv := reasoningServer(t, thought, old)
		plan := engine.Plan{DecodeContexts: []int{engine.K}, Concurrency: []int{4}, Duration: 500 * time.Millisecond,
			MaxOutputTokens: 96, API: engine.APIChat}
		rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Results[0]
		if r.Status != engine.StatusValid {
			t.Fatalf("old field %v: %s %s", old, r.Status, r.Error)
		}
		if sum := r.ReasoningTokens + r.AnswerTokens; r.ReasoningTokens == 0 || r.AnswerTokens == 0 || sum < r.OutputTokens-1 || sum > r.OutputTokens+1 {
			t.Errorf("old field %v: %d reasoning + %d answer tokens, want both, adding up to the window's %d", old, r.ReasoningTokens, r.AnswerTokens, r.OutputTokens)
		}
		if r.AnswerTTFTMs <= r.TTFTMs {
			t.Errorf("old field %v: first answer token at %.1f ms, not after the first token at %.1f ms", old, r.AnswerTTFTMs, r.TTFTMs)
		}
		t.Logf("old field %v: 1K × 4: %d reasoning + %d answer tokens (window %d), TTFT %.1f ms, first answer token %.1f ms",
			old, r.ReasoningTokens, r.AnswerTokens, r.OutputTokens, r.TTFTMs, r.AnswerTTFTMs)
		if share := r.ReasoningShare(); share < 0.2 || share > 0.8 {
			t.Errorf("old field %v: reasoning share %.2f, want near %d of 96 tokens a reply", old, share, thought)
		}

		lp := loadPlan(engine.APIChat)
		lp.OutputTokens = engine.TokenRange{Min: 96, Max: 96}
		lrep, _, err := runLoadAll(t, t.Context(), lp, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, rate := range lrep.Load.Results {
			if rate.ReasoningTokens != thought*rate.Completed || rate.AnswerTokens != rate.OutputTokens-thought*rate.Completed || rate.AnswerTTFTMs <= rate.TTFTMs.P50 {
				t.Errorf("old field %v, rate %g: %d reasoning, %d answer of %d output tokens over %d replies, answer TTFT %.1f ms against TTFT %.1f ms",
					old, rate.RateRPS, rate.ReasoningTokens, rate.AnswerTokens, rate.OutputTokens, rate.Completed, rate.AnswerTTFTMs, rate.TTFTMs.P50)
			}
		}
	}
	srv := reasoningServer(t, thought, false)
	lrep, _, err := runLoadAll(t, t.Context(), loadPlan(engine.APICompletions), Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r := lrep.Load.Results[0]; r.Reasoned() {
		t.Errorf("completions: %+v, want no reasoning", r.Reasoning)
	}
}
