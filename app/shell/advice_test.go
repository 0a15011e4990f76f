package shell

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
)

// TestAdviceNamesScreens: engine errors get advice in the app's words,
// screens and fields, never a command-line flag.
func TestAdviceNamesScreens(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&engine.PlanError{Problems: []engine.PlanProblem{{Field: engine.FieldMaxOutput, Problem: "max output 9000 tokens does not fit"}}}, "Max output tokens on the Matrix screen"},
		{&engine.UnknownModelError{Want: "x", Available: []string{"y"}}, "Model on the Server screen"},
		{fmt.Errorf("list models: %w", &openai.APIError{StatusCode: 401}), "API key on the Server screen"},
		{&measure.BusyError{Running: 2}, "Stop the other client's requests"},
		{fmt.Errorf("%w: gone", measure.ErrServerStopped), "start the server again"},
		{fmt.Errorf("list models: %w", openai.ErrUnreachable), "URL on the Server screen"},
	} {
		got := explain(tc.err)
		if !strings.Contains(got, tc.want) || strings.Contains(got, "--") {
			t.Errorf("explain(%v) = %q, want it to name %q and no flag", tc.err, got, tc.want)
		}
	}
	if got := explain(errors.New("plain")); got != "plain" {
		t.Errorf("explain(plain) = %q, want it unchanged", got)
	}
}
