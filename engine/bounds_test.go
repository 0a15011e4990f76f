package engine

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// levels returns n distinct values from first, step apart.
func levels(n, first, step int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = first + i*step
	}
	return v
}

func TestCheckPlanBoundsKeepsTheDefaultAndTheLargestPlan(t *testing.T) {
	largest := Plan{PrefillContexts: levels(MaxLevels, 0, K), DecodeContexts: levels(MaxLevels, MaxContextTokens-MaxLevels+1, 1),
		Concurrency: levels(MaxLevels, MaxConcurrency-MaxLevels+1, 1), Duration: time.Second, MaxOutputTokens: MaxContextTokens}
	for name, p := range map[string]Plan{"default": DefaultPlan(), "largest": largest, "empty": {}} {
		if err := CheckPlanBounds(p); err != nil {
			t.Errorf("%s plan: %v, want nil", name, err)
		}
	}
}

func TestCheckPlanBoundsNamesEachProblem(t *testing.T) {
	for _, c := range []struct {
		name  string
		plan  Plan
		field PlanField
		want  string
	}{
		{"too many decode contexts", Plan{DecodeContexts: levels(31623, K, K)}, FieldDecodeContexts, "31623 decode contexts, more than the 256 a plan may have"},
		{"too many prefill contexts", Plan{PrefillContexts: levels(MaxLevels+1, K, K)}, FieldPrefillContexts, "257 prefill contexts"},
		{"too many levels", Plan{Concurrency: levels(100000, 1, 1)}, FieldConcurrency, "100000 concurrency levels, more than the 256"},
		{"negative context", Plan{DecodeContexts: []int{-8192}}, FieldContexts, "context -8192 tokens is outside 0–10485760 (10240K)"},
		{"context too long", Plan{PrefillContexts: []int{MaxContextTokens + 1}}, FieldContexts, "context 10485761 tokens is outside"},
		{"negative concurrency", Plan{Concurrency: []int{-4}}, FieldConcurrency, "concurrency -4 is outside 1–4096"},
		{"zero concurrency", Plan{Concurrency: []int{0}}, FieldConcurrency, "concurrency 0 is outside"},
		{"concurrency too high", Plan{Concurrency: []int{MaxConcurrency + 1}}, FieldConcurrency, "concurrency 4097 is outside"},
		{"negative duration", Plan{Duration: -time.Second}, FieldDuration, "duration -1s is negative"},
		{"negative max output", Plan{MaxOutputTokens: -1}, FieldMaxOutput, "max output -1 tokens is outside 0–10485760"},
	} {
		err := CheckPlanBounds(c.plan)
		var pe *PlanError
		if !errors.As(err, &pe) || !pe.has(c.field) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: CheckPlanBounds = %v, want a PlanError about %s saying %q", c.name, err, c.field, c.want)
		}
	}
}

func TestValidatePlanHoldsPlansToTheBounds(t *testing.T) {
	p := DefaultPlan()
	p.Concurrency = []int{1, MaxConcurrency + 1}
	err := ValidatePlan(p, Limits{})
	if fields := PlanFields(err); len(fields) != 1 || fields[0] != FieldConcurrency {
		t.Errorf("ValidatePlan(concurrency above the bound) = %v, want a problem with the concurrency only", err)
	}
	if err := ValidatePlan(DefaultPlan(), Limits{}); err != nil {
		t.Errorf("ValidatePlan(DefaultPlan()) = %v", err)
	}
}
