package engine

import (
	"strings"
	"testing"
	"time"
)

// TestValidatePlan: each setting's problem is found and named, bounds
// included, and a model's length bounds max output.
func TestValidatePlan(t *testing.T) {
	ok := DefaultPlan()
	if err := ValidatePlan(ok, Limits{MaxModelLen: 131072}); err != nil {
		t.Fatalf("the Standard plan: %v", err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(p *Plan)
		l     Limits
		field PlanField
		want  string
	}{
		{"nothing", func(p *Plan) { p.PrefillContexts, p.DecodeContexts = nil, nil }, Limits{}, FieldContexts, "no context to measure"},
		{"prefill 0", func(p *Plan) { p.PrefillContexts = []int{0, K} }, Limits{}, FieldPrefillContexts, "a context of 0 tokens"},
		{"decode past any model", func(p *Plan) { p.DecodeContexts = []int{MaxContextTokens + 1} }, Limits{}, FieldDecodeContexts, "use at most 10240K"},
		{"no level", func(p *Plan) { p.Concurrency = nil }, Limits{}, FieldConcurrency, "no level"},
		{"level 0", func(p *Plan) { p.Concurrency = []int{0, 1} }, Limits{}, FieldConcurrency, "at least 1 request"},
		{"too many at once", func(p *Plan) { p.Concurrency = []int{1, MaxConcurrency + 1} }, Limits{}, FieldConcurrency, "4097 requests at once"},
		{"no window", func(p *Plan) { p.Duration = 0 }, Limits{}, FieldDuration, "must be positive"},
		{"a window of years", func(p *Plan) { p.Duration = 1e9 * time.Second }, Limits{}, FieldDuration, "use at most 1 hour"},
		{"no output", func(p *Plan) { p.MaxOutputTokens = 0 }, Limits{}, FieldMaxOutput, "at least 1 token"},
		{"output past any model", func(p *Plan) { p.MaxOutputTokens = 99999999999 }, Limits{}, FieldMaxOutput, "99999999999 tokens are more than any model's context"},
		{"output past this model", func(p *Plan) { p.MaxOutputTokens = 8192 }, Limits{MaxModelLen: 8192}, FieldMaxOutput, "do not fit the model's max_model_len 8192 with a prompt: use at most 7935"},
		{"api", func(p *Plan) { p.API = "grpc" }, Limits{}, FieldAPI, `"grpc" is not an API`},
		{"kv budget", func(p *Plan) { p.KVBudgetTokens = -1 }, Limits{}, FieldKVBudget, "must be 0"},
		{"negative prefill repeats", func(p *Plan) { p.PrefillRepeats = -1 }, Limits{}, FieldPrefillRepeats, "-1 is not a number of requests per prefill context: use 1 to 20"},
		{"too many prefill repeats", func(p *Plan) { p.PrefillRepeats = MaxPrefillRepeats + 1 }, Limits{}, FieldPrefillRepeats, "21 is not a number"},
	} {
		p := DefaultPlan()
		tc.edit(&p)
		err := ValidatePlan(p, tc.l)
		fields := PlanFields(err)
		if len(fields) != 1 || fields[0] != tc.field || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (fields %v), want %s: %q", tc.name, err, fields, tc.field, tc.want)
		}
	}
	prefillOnly := DefaultPlan()
	prefillOnly.DecodeContexts, prefillOnly.Duration, prefillOnly.MaxOutputTokens = nil, 0, 0
	if err := ValidatePlan(prefillOnly, Limits{MaxModelLen: 4096}); err != nil {
		t.Errorf("a prefill-only plan needs no window or output: %v", err)
	}
}
