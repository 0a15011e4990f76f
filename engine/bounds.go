package engine

import "fmt"

// The most a plan may hold, and so the most a report file may claim: a
// run measures no more, and drawing, saving or loading a report stays
// within memory and time whatever a file says.
//
//   - MaxLevels: each list of contexts and of concurrency levels. The
//     default plan has 5 contexts × 8 levels; 256 × 256 decode cells at
//     the default 30 s each would measure for 23 days.
//   - MaxContextTokens: 16,384K tokens, above the longest context any
//     served model reads (10M tokens, Llama 4 Scout).
//   - MaxConcurrency: 16,384 requests at once, 16 times vLLM's largest
//     default max_num_seqs (1,024); the client holds one stream each.
const (
	MaxLevels        = 256
	MaxContextTokens = 16 * K * K
	MaxConcurrency   = 16 * K
)

// MaxCells is the most cells a plan within the bounds has: a prefill cell
// per context, and a decode cell per context × concurrency level.
const MaxCells = MaxLevels + MaxLevels*MaxLevels

// CheckPlanBounds says whether p claims more than a run measures, or a
// negative size: a *PlanError listing every problem, or nil. ValidatePlan
// applies it to plans about to run; report files are held to it when
// they load.
func CheckPlanBounds(p Plan) error {
	if bad := planBounds(p); len(bad) > 0 {
		return &PlanError{Problems: bad}
	}
	return nil
}

// planBounds are the problems CheckPlanBounds reports.
func planBounds(p Plan) []PlanProblem {
	var bad []PlanProblem
	add := func(f PlanField, format string, a ...any) {
		bad = append(bad, PlanProblem{f, fmt.Sprintf(format, a...)})
	}
	for _, list := range []struct {
		name  string
		field PlanField
		n     int
	}{{"prefill contexts", FieldContexts, len(p.PrefillContexts)}, {"decode contexts", FieldContexts, len(p.DecodeContexts)},
		{"concurrency levels", FieldConcurrency, len(p.Concurrency)}} {
		if list.n > MaxLevels {
			add(list.field, "%d %s, more than the %d a plan may have", list.n, list.name, MaxLevels)
		}
	}
	if c, ok := outside(append(append([]int(nil), p.PrefillContexts...), p.DecodeContexts...), 0, MaxContextTokens); ok {
		add(FieldContexts, "context %d tokens is outside 0–%d (%s), the contexts a model can read", c, MaxContextTokens, ContextLabel(MaxContextTokens))
	}
	if c, ok := outside(p.Concurrency, 1, MaxConcurrency); ok {
		add(FieldConcurrency, "concurrency %d is outside 1–%d, the requests at once a plan may have", c, MaxConcurrency)
	}
	if p.Duration < 0 {
		add(FieldDuration, "duration %s is negative", p.Duration)
	}
	if p.MaxOutputTokens < 0 || p.MaxOutputTokens > MaxContextTokens {
		add(FieldMaxOutput, "max output %d tokens is outside 0–%d", p.MaxOutputTokens, MaxContextTokens)
	}
	return bad
}

// outside returns the first value of v outside lo–hi.
func outside(v []int, lo, hi int) (int, bool) {
	for _, n := range v {
		if n < lo || n > hi {
			return n, true
		}
	}
	return 0, false
}
