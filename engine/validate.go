package engine

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PlanField names a setting of a plan, so that front ends can phrase an
// error in their own words: a flag of the CLI, a field of the app.
type PlanField string

// The settings a PlanError can be about.
const (
	FieldContexts        PlanField = "contexts" // prefill and decode contexts together
	FieldPrefillContexts PlanField = "prefill_contexts"
	FieldDecodeContexts  PlanField = "decode_contexts"
	FieldConcurrency     PlanField = "concurrency"
	FieldDuration        PlanField = "duration"
	FieldMaxOutput       PlanField = "max_output"
	FieldAPI             PlanField = "api"
	FieldKVBudget        PlanField = "kv_budget"
	FieldPrecision       PlanField = "precision"
	FieldPrefillRepeats  PlanField = "prefill_repeats"
)

// The bounds of a plan that can run. Past them a plan measures nothing a
// plan inside them would not, and runs for days or beyond any server.
const (
	// MaxContextTokens (10240K, 10,485,760 tokens) is the longest context a
	// model serves (Llama 4 Scout's 10M); it bounds max output too.
	MaxContextTokens = 10 * K * K
	// MaxConcurrency is more requests at once than a server runs (vLLM's
	// max_num_seqs defaults to 256 or 1,024); each is a connection here.
	MaxConcurrency = 4096
	// MaxPrefillRepeats is the most cold requests a prefill cell may take:
	// a median of 20 is as steady as it gets, and each repeat of a long
	// context costs seconds to tens of seconds.
	MaxPrefillRepeats = 20
	// maxWindow is the longest measurement window of a decode cell: after
	// minutes, its figures no longer change.
	maxWindow = time.Hour
)

// PlanProblem is one thing wrong with one setting of a plan.
type PlanProblem struct {
	Field   PlanField
	Problem string // what is wrong, after the setting's name: "must be at least 1 token"
}

// PlanError is a plan that cannot run, with every problem found.
type PlanError struct {
	Problems []PlanProblem
}

func (e *PlanError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = strings.ReplaceAll(string(p.Field), "_", " ") + ": " + p.Problem
	}
	return "invalid plan: " + strings.Join(parts, "; ")
}

// has reports whether the error is about field f.
func (e *PlanError) has(f PlanField) bool {
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

// ValidatePlan rejects plans that cannot run on a server with these limits
// (zero: unknown), saying what is wrong with each setting. It is the one
// check of a plan: the Matrix screen's, the CLI's flags' and the run's.
func ValidatePlan(p Plan, l Limits) error {
	var bad []PlanProblem
	add := func(f PlanField, format string, a ...any) {
		bad = append(bad, PlanProblem{f, fmt.Sprintf(format, a...)})
	}
	if len(p.PrefillContexts)+len(p.DecodeContexts) == 0 {
		add(FieldContexts, "no context to measure: give at least one prefill or decode context")
	}
	bad = append(bad, levelProblems(p)...)
	for _, c := range []struct {
		field    PlanField
		contexts []int
	}{{FieldPrefillContexts, p.PrefillContexts}, {FieldDecodeContexts, p.DecodeContexts}} {
		if problem := contextsProblem(c.contexts); problem != "" {
			add(c.field, "%s", problem)
		}
	}
	decode := len(p.DecodeContexts) > 0
	switch {
	case decode && len(p.Concurrency) == 0:
		add(FieldConcurrency, "no level: decode needs at least one, e.g. 1")
	case slices.ContainsFunc(p.Concurrency, func(c int) bool { return c < 1 }):
		add(FieldConcurrency, "must be at least 1 request")
	case slices.ContainsFunc(p.Concurrency, func(c int) bool { return c > MaxConcurrency }):
		add(FieldConcurrency, "%d requests at once are more than any server runs: use at most %d", slices.Max(p.Concurrency), MaxConcurrency)
	}
	switch {
	case decode && p.Duration <= 0:
		add(FieldDuration, "must be positive")
	case decode && p.Duration > maxWindow:
		add(FieldDuration, "%s is longer than a cell needs: use at most %s", p.Duration, "1 hour")
	}
	if problem := maxOutputProblem(p.MaxOutputTokens, decode, l.MaxModelLen); problem != "" {
		add(FieldMaxOutput, "%s", problem)
	}
	if p.API != APIChat && p.API != APICompletions {
		add(FieldAPI, "%q is not an API: use chat or completions", p.API)
	}
	if p.KVBudgetTokens < 0 {
		add(FieldKVBudget, "must be 0 (ask the server) or a number of tokens")
	}
	if problem := precisionProblem(p.Precision); problem != "" {
		add(FieldPrecision, "%s", problem)
	}
	if p.PrefillRepeats != 0 { // 0: one request, as plans before it
		if problem := PrefillRepeatsProblem(p.PrefillRepeats); problem != "" {
			add(FieldPrefillRepeats, "%s", problem)
		}
	}
	bad = append(bad, sloProblems(p.SLO)...)
	if len(bad) > 0 {
		return &PlanError{Problems: bad}
	}
	return nil
}

// contextsProblem is what is wrong with a list of contexts, or "".
func contextsProblem(contexts []int) string {
	switch {
	case slices.ContainsFunc(contexts, func(c int) bool { return c < 1 }):
		return "a context of 0 tokens has no prompt to measure: use 1 token or more (K = 1,024 tokens)"
	case slices.ContainsFunc(contexts, func(c int) bool { return c > MaxContextTokens }):
		return fmt.Sprintf("%s is longer than any model's context: use at most %s",
			FormatContexts([]int{slices.Max(contexts)}), FormatContexts([]int{MaxContextTokens}))
	}
	return ""
}

// PrefillRepeatsProblem is what is wrong with n cold requests per prefill
// cell, or "": the check of a count the user gives (a plan's 0 means one).
func PrefillRepeatsProblem(n int) string {
	if n < 1 || n > MaxPrefillRepeats {
		return fmt.Sprintf("%d is not a number of requests per prefill context: use 1 to %d", n, MaxPrefillRepeats)
	}
	return ""
}

// maxOutputProblem is what is wrong with a max output of n tokens for a
// model of maxModelLen tokens (0: unknown), or "". Only decode cells ask
// for more than one token.
func maxOutputProblem(n int, decode bool, maxModelLen int) string {
	switch {
	case !decode:
		return ""
	case n < 1:
		return "must be at least 1 token"
	case n > MaxContextTokens:
		return fmt.Sprintf("%d tokens are more than any model's context: use at most %d", n, MaxContextTokens)
	case maxModelLen > 0 && n+TemplateReserveTokens+1 > maxModelLen:
		return fmt.Sprintf("%d tokens do not fit the model's max_model_len %d with a prompt: use at most %d",
			n, maxModelLen, max(1, maxModelLen-TemplateReserveTokens-1))
	}
	return ""
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
