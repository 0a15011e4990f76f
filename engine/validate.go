package engine

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// PlanField names a setting of a plan, so that front ends can phrase an
// error in their own words: a flag of the CLI, a field of the app.
type PlanField string

// The settings a PlanError can be about.
const (
	FieldContexts    PlanField = "contexts" // prefill and decode contexts
	FieldConcurrency PlanField = "concurrency"
	FieldDuration    PlanField = "duration"
	FieldMaxOutput   PlanField = "max_output"
	FieldAPI         PlanField = "api"
)

// PlanProblem is one thing wrong with one setting of a plan.
type PlanProblem struct {
	Field   PlanField
	Problem string // "must be at least 1"
}

// PlanError is a plan that cannot run, with every problem found.
type PlanError struct {
	Problems []PlanProblem
}

func (e *PlanError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Problem
	}
	return "invalid plan: " + strings.Join(parts, "; ")
}

// Has reports whether the error is about field f.
func (e *PlanError) Has(f PlanField) bool {
	return slices.ContainsFunc(e.Problems, func(p PlanProblem) bool { return p.Field == f })
}

// UnknownModelError: the server doesn't serve the model asked for.
type UnknownModelError struct {
	Want      string
	Available []string
}

func (e *UnknownModelError) Error() string {
	q := make([]string, len(e.Available))
	for i, id := range e.Available {
		q[i] = strconv.Quote(id)
	}
	return fmt.Sprintf("the server has no model %q: it serves %s", e.Want, strings.Join(q, ", "))
}

// ValidatePlan rejects plans that cannot run, saying what is wrong: the
// bounds of CheckPlanBounds, and what a run needs besides.
func ValidatePlan(p Plan) error {
	var bad []PlanProblem
	add := func(f PlanField, problem string) { bad = append(bad, PlanProblem{f, problem}) }
	if len(p.PrefillContexts)+len(p.DecodeContexts) == 0 {
		add(FieldContexts, "no context to measure")
	}
	if len(p.DecodeContexts) > 0 && len(p.Concurrency) == 0 {
		add(FieldConcurrency, "no concurrency level")
	}
	bad = append(bad, planBounds(p)...)
	if len(p.DecodeContexts) > 0 && p.Duration <= 0 {
		add(FieldDuration, "duration must be positive")
	}
	if len(p.DecodeContexts) > 0 && p.MaxOutputTokens < 1 {
		add(FieldMaxOutput, "max output must be at least 1 token")
	}
	if p.API != APIChat && p.API != APICompletions {
		add(FieldAPI, fmt.Sprintf("unknown API %q: use chat or completions", p.API))
	}
	if len(bad) > 0 {
		return &PlanError{Problems: bad}
	}
	return nil
}

// PlanFields are the plan settings an error is about, in order, each once.
func PlanFields(err error) []PlanField {
	var plan *PlanError
	if !errors.As(err, &plan) {
		return nil
	}
	var out []PlanField
	for _, p := range plan.Problems {
		if !slices.Contains(out, p.Field) {
			out = append(out, p.Field)
		}
	}
	return out
}
