package probe

import (
	"context"
	"testing"

	"speedmatrix/engine/quality"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/sim/simtest"
)

// TestNeedleReasoningModel: a reasoning model (the simulator's gemma
// profile reasons for 128 tokens before it answers) spends the needle's
// 16 tokens reasoning; the trial asks again with room to reason, and the
// key comes back, where it scored 0 of N before.
func TestNeedleReasoningModel(t *testing.T) {
	p, err := sim.LookupProfile("gemma-4-e2b-rtxpro6000")
	if err != nil {
		t.Fatal(err)
	}
	if p.ReasoningParser == "" || p.ReasoningTokens <= needleAnswerTokens {
		t.Fatalf("profile %s reasons for %d tokens: this test needs more than %d", p.Name, p.ReasoningTokens, needleAnswerTokens)
	}
	server := connect(t, simtest.URL(t, p.Name, sim.Options{}))
	n, err := Needle(context.Background(), server, []int{1024}, 4, 1, "", nil, nil, func([]quality.NeedleContext) error { return nil })
	if err != nil || len(n) != 1 || n[0].AccuracyPct != 100 {
		t.Fatalf("needle on a reasoning model: %v, %+v: want 4 of 4", err, n)
	}
}
