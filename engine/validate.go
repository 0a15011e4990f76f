package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// validatePlan rejects plans that cannot run, with what to change.
func validatePlan(p Plan) error {
	var bad []string
	if len(p.PrefillContexts)+len(p.DecodeContexts) == 0 {
		bad = append(bad, "no context to measure: give --contexts or --prefill-contexts")
	}
	if len(p.DecodeContexts) > 0 && len(p.Concurrency) == 0 {
		bad = append(bad, "no concurrency level: give --concurrency")
	}
	if slices.ContainsFunc(p.Concurrency, func(c int) bool { return c < 1 }) {
		bad = append(bad, "concurrency must be at least 1")
	}
	if len(p.DecodeContexts) > 0 && p.Duration <= 0 {
		bad = append(bad, "duration must be positive: give --duration, e.g. 30s")
	}
	if len(p.DecodeContexts) > 0 && p.MaxOutputTokens < 1 {
		bad = append(bad, "max output must be at least 1 token: give --max-output")
	}
	if p.API != APIChat && p.API != APICompletions {
		bad = append(bad, fmt.Sprintf("unknown API %q: use chat or completions", p.API))
	}
	if len(bad) > 0 {
		return errors.New("invalid plan: " + strings.Join(bad, "; "))
	}
	return nil
}
