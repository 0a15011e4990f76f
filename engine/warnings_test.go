package engine

import (
	"strings"
	"testing"
	"time"
)

func TestPlanWarnings(t *testing.T) {
	plan := Plan{PrefillContexts: []int{128}, DecodeContexts: []int{100, 4 * K}, Concurrency: []int{1, 64, 128},
		Duration: 2 * time.Second, MaxOutputTokens: 256}
	got := PlanWarnings(plan, Limits{MaxNumSeqs: 32})
	want := []struct {
		field PlanField
		text  string
	}{
		{FieldPrefillContexts, "(128)"},
		{FieldDecodeContexts, "(100)"},
		{FieldConcurrency, "at most 32 sequences at once (max_num_seqs): 64, 128 requests at once"},
		{FieldDuration, "a 2s window"},
	}
	if len(got) != len(want) {
		t.Fatalf("warnings = %+v, want %d", got, len(want))
	}
	for i, w := range want {
		if got[i].Field != w.field || !strings.Contains(got[i].Problem, w.text) {
			t.Errorf("warning %d = %+v, want %s with %q", i, got[i], w.field, w.text)
		}
	}
	if w := PlanWarnings(DefaultPlan(), Limits{MaxNumSeqs: 256}); len(w) != 0 {
		t.Errorf("the Standard plan warns: %+v", w)
	}
	if w := PlanWarnings(plan, Limits{}); len(w) != 3 {
		t.Errorf("with unknown limits: %+v, want the context and window warnings only", w)
	}
}
