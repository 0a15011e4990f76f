package engine

import "testing"

// TestQualityVerdictWords: each verdict in the words every surface uses,
// found by its context, and a budget read the one way.
func TestQualityVerdictWords(t *testing.T) {
	q := QualityReport{Budget: "kld=0.01,top1=98%", Verdicts: []QualityJudged{
		{ContextTokens: 512}, {ContextTokens: 2048, Floor: true}, {ContextTokens: 8192, Floor: true, Real: true, OverBudget: true}}}
	for ctx, want := range map[int]string{512: "no noise floor to judge it by", 2048: "at the noise floor",
		8192: "real drift, above the noise floor, over the budget kld=0.01,top1=98%"} {
		if v, ok := q.VerdictAt(ctx); !ok || v.Words(q.Budget) != want {
			t.Errorf("%d: %q, %v; want %q", ctx, v.Words(q.Budget), ok, want)
		}
	}
	if _, ok := q.VerdictAt(4096); ok {
		t.Error("a verdict at a context not judged")
	}
	if kld, top1, err := ParseQualityBudget(q.Budget); err != nil || kld != 0.01 || top1 != 98 {
		t.Errorf("ParseQualityBudget(%q) = %v, %v, %v", q.Budget, kld, top1, err)
	}
}
