package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The thresholds below which a plan runs but its figures mislead.
const (
	// minUsefulContext: a shorter prompt is mostly the chat template.
	minUsefulContext = 256
	// minUsefulWindow: a shorter window is mostly ramp-up and drain.
	minUsefulWindow = 5 * time.Second
)

// PlanWarnings lists what in plan will run but measure less than a user
// expects on a server with these limits: contexts under minUsefulContext,
// more requests at once than the server runs, windows under
// minUsefulWindow. Each names its setting, so that a front end says it in
// its own words; none stops the run.
func PlanWarnings(plan Plan, l Limits) []PlanProblem {
	var out []PlanProblem
	for _, c := range []struct {
		field    PlanField
		contexts []int
	}{{FieldPrefillContexts, plan.PrefillContexts}, {FieldDecodeContexts, plan.DecodeContexts}} {
		var short []string
		for _, n := range c.contexts {
			if n < minUsefulContext && !slices.Contains(short, strconv.Itoa(n)) {
				short = append(short, strconv.Itoa(n))
			}
		}
		if len(short) > 0 {
			out = append(out, PlanProblem{c.field, fmt.Sprintf(
				"contexts under %d tokens (%s) measure mostly the chat template, not the prompt", minUsefulContext, strings.Join(short, ", "))})
		}
	}
	if l.MaxNumSeqs > 0 && len(plan.DecodeContexts) > 0 {
		var over []string
		for _, n := range plan.Concurrency {
			if n > l.MaxNumSeqs {
				over = append(over, strconv.Itoa(n))
			}
		}
		if len(over) > 0 {
			out = append(out, PlanProblem{FieldConcurrency, fmt.Sprintf(
				"the server runs at most %d sequences at once (max_num_seqs): %s requests at once are over its capacity and will not run",
				l.MaxNumSeqs, strings.Join(over, ", "))})
		}
	}
	if len(plan.DecodeContexts) > 0 && plan.Duration > 0 && plan.Duration < minUsefulWindow {
		out = append(out, PlanProblem{FieldDuration, fmt.Sprintf(
			"a %s window is mostly ramp-up and drain: its figures vary more between runs than those of %s or longer",
			plan.Duration, minUsefulWindow)})
	}
	if len(plan.DecodeContexts) > 0 && plan.Adaptive() && plan.Duration > 0 && plan.Duration <= MinAdaptiveWindow {
		out = append(out, PlanProblem{FieldPrecision, fmt.Sprintf(
			"a %s window is no longer than the %s an adaptive window lasts at least: every cell runs its whole window",
			plan.Duration, MinAdaptiveWindow)})
	}
	return out
}
