package measure

import (
	"fmt"
	"slices"
	"speedmatrix/engine"
	"testing"

	"speedmatrix/engine/openai"
)

func TestProblemOf(t *testing.T) {
	t.Parallel()
	plan := &engine.PlanError{Problems: []engine.PlanProblem{{Field: engine.FieldDuration, Problem: "a"}, {Field: engine.FieldConcurrency, Problem: "b"}, {Field: engine.FieldDuration, Problem: "c"}}}
	for _, tc := range []struct {
		err  error
		want Problem
	}{
		{nil, problemOther},
		{fmt.Errorf("x"), problemOther},
		{fmt.Errorf("run: %w", plan), ProblemPlan},
		{&engine.UnknownModelError{Want: "m"}, ProblemModel},
		{fmt.Errorf("list models: %w", &openai.APIError{StatusCode: 401}), ProblemAuth},
		{&openai.APIError{StatusCode: 400, Message: "maximum context length is 8"}, ProblemContextTooLong},
		{&BusyError{Running: 1}, ProblemBusy},
		{&ServerChangedError{Changes: []string{"x"}}, ProblemServerChanged},
		{fmt.Errorf("%w: %w", ErrServerStopped, openai.ErrUnreachable), ProblemServerStopped},
		{fmt.Errorf("list models: %w", openai.ErrUnreachable), ProblemUnreachable},
		{fmt.Errorf("x: %w", openai.ErrMalformed), ProblemNotOpenAI},
		{&openai.TimeoutError{Endpoint: "GET /metrics"}, ProblemTimeout},
	} {
		if got := ProblemOf(tc.err); got != tc.want {
			t.Errorf("ProblemOf(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if got := engine.PlanFields(plan); !slices.Equal(got, []engine.PlanField{engine.FieldDuration, engine.FieldConcurrency}) {
		t.Errorf("PlanFields = %v, want duration then concurrency, each once", got)
	}
}
