package engine

import "fmt"

// MaxLevels is the most contexts, and the most concurrency levels, a plan
// may list, and so a report file may claim (with MaxContextTokens and
// MaxConcurrency): a run measures no more, and drawing, saving or loading
// a report stays within memory and time whatever a file says. The default
// plan has 5 contexts × 8 levels; 256 × 256 decode cells at the default
// 30 s each would measure for 23 days.
const MaxLevels = 256

// MaxCells is the most cells a plan within the bounds has: a prefill cell
// per context, and a decode cell per context × concurrency level.
const MaxCells = MaxLevels + MaxLevels*MaxLevels

// CheckPlanBounds says whether p claims more than a run measures, or a
// negative size: a *PlanError listing every problem, or nil. Report files
// are held to it when they load; ValidatePlan holds plans about to run to
// the same bounds, and more.
func CheckPlanBounds(p Plan) error {
	if bad := planBounds(p); len(bad) > 0 {
		return &PlanError{Problems: bad}
	}
	return nil
}

// levelProblems are the lists of p longer than MaxLevels.
func levelProblems(p Plan) []PlanProblem {
	var bad []PlanProblem
	for _, list := range []struct {
		name  string
		field PlanField
		n     int
	}{{"prefill contexts", FieldPrefillContexts, len(p.PrefillContexts)}, {"decode contexts", FieldDecodeContexts, len(p.DecodeContexts)},
		{"concurrency levels", FieldConcurrency, len(p.Concurrency)}} {
		if list.n > MaxLevels {
			bad = append(bad, PlanProblem{list.field, fmt.Sprintf("%d %s, more than the %d a plan may have", list.n, list.name, MaxLevels)})
		}
	}
	return bad
}

// planBounds are the problems CheckPlanBounds reports: levelProblems, and
// sizes no run measures.
func planBounds(p Plan) []PlanProblem {
	bad := levelProblems(p)
	add := func(f PlanField, format string, a ...any) {
		bad = append(bad, PlanProblem{f, fmt.Sprintf(format, a...)})
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
	if problem := precisionProblem(p.Precision); problem != "" {
		add(FieldPrecision, "precision %s", problem)
	}
	return append(bad, sloProblems(p.SLO)...)
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
