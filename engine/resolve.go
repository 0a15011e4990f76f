package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"speedmatrix/engine/openai"
)

// templateReserveTokens is kept free of every context for the chat template
// and special tokens: with max_model_len 131,072 and 4,096 output tokens the
// largest decode context is 126,720 tokens, "123K" as in the reference reports.
const templateReserveTokens = 256

// setup is a plan resolved against a server: the model, the contexts that
// fit, and what the server can hold.
type setup struct {
	Model       string
	Root        string // what the server loaded Model from; "" when not said
	MaxModelLen int    // 0: unknown
	// KVTokens is the KV cache size the capacity check uses; 0: unknown.
	KVTokens   int
	MaxNumSeqs int // 0: unknown
	Prefill    []int
	Decode     []int
}

// resolveModel picks the model to measure: the target's, which must be
// listed, or the first one listed.
func resolveModel(models []openai.Model, want string) (openai.Model, error) {
	if len(models) == 0 {
		return openai.Model{}, errors.New("the server lists no model at /v1/models: has it finished loading?")
	}
	if want == "" {
		return models[0], nil
	}
	e := &UnknownModelError{Want: want}
	for _, m := range models {
		if m.ID == want {
			return m, nil
		}
		e.Available = append(e.Available, m.ID)
	}
	return openai.Model{}, e
}

// fitContext returns the largest context that fits the model with output
// tokens after it, or requested when it fits (or the length is unknown).
func fitContext(requested, maxModelLen, output int) int {
	if maxModelLen <= 0 {
		return requested
	}
	limit := maxModelLen - output - templateReserveTokens
	return max(0, min(requested, limit))
}

// FitContexts fits every context to a model of maxModelLen tokens (0:
// unknown, left as they are) with output tokens after it, as a run does,
// then drops duplicates and sorts them: 131,072 tokens with 4,096 output
// turn a requested 128K into 126,720 (123K).
func FitContexts(requested []int, maxModelLen, output int) []int {
	out := make([]int, 0, len(requested))
	for _, c := range requested {
		out = append(out, fitContext(c, maxModelLen, output))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// OverCapacity reports whether concurrency simultaneous requests at this
// context, each with output tokens after it, can't be held by a server: their
// KV cache need exceeds its kvTokens, or concurrency exceeds maxNumSeqs.
// Unknown limits (0) never make a cell over capacity.
func OverCapacity(kvTokens, maxNumSeqs, contextTokens, concurrency, output int) bool {
	if kvTokens > 0 && concurrency*(contextTokens+output) > kvTokens {
		return true
	}
	return maxNumSeqs > 0 && concurrency > maxNumSeqs
}

// overCapacity is OverCapacity with the limits the server reported.
func (s setup) overCapacity(contextTokens, concurrency, output int) bool {
	return OverCapacity(s.KVTokens, s.MaxNumSeqs, contextTokens, concurrency, output)
}

// resolve asks the server for its model, context length and KV cache, and
// fits the plan to them. kind gives the limits its engine reports beside
// /v1/models (vLLM's KV cache from /metrics, SGLang's server info); the
// note says which it should have given and did not.
func resolve(ctx context.Context, c *openai.Client, plan Plan, target Subject, kind serverKind) (setup, string, error) {
	var s setup
	models, err := c.Models(ctx)
	if err != nil {
		return s, "", fmt.Errorf("list models: %w", err)
	}
	m, err := resolveModel(models, target.Model)
	if err != nil {
		return s, "", err
	}
	lim, note := kind.limits()
	s.Model, s.Root, s.MaxModelLen = m.ID, m.Root, m.MaxModelLen
	if s.MaxModelLen == 0 {
		s.MaxModelLen = cmp.Or(target.Header.Engine.MaxModelLen, lim.ContextLength)
	}
	if s.MaxModelLen > 0 && plan.MaxOutputTokens+templateReserveTokens+1 > s.MaxModelLen && len(plan.DecodeContexts) > 0 {
		return s, "", &PlanError{Problems: []PlanProblem{{FieldMaxOutput,
			fmt.Sprintf("max output %d tokens does not fit the model's max_model_len %d", plan.MaxOutputTokens, s.MaxModelLen)}}}
	}
	s.Prefill = FitContexts(plan.PrefillContexts, s.MaxModelLen, 1)
	s.Decode = FitContexts(plan.DecodeContexts, s.MaxModelLen, plan.MaxOutputTokens)
	s.KVTokens = cmp.Or(plan.KVBudgetTokens, lim.KVTokens)
	if s.KVTokens == 0 {
		s.KVTokens = target.Header.Engine.KVCacheTokens
	}
	if s.KVTokens > 0 {
		note = ""
	}
	s.MaxNumSeqs = cmp.Or(target.Header.Engine.MaxNumSeqs, lim.MaxRunning)
	return s, note, nil
}

// cells lists the matrix in the order it is measured: for each context,
// its prefill cell (which warms the prefix cache) then its decode cells.
func (s setup) cells(plan Plan) []Cell {
	contexts := slices.Concat(s.Prefill, s.Decode)
	slices.Sort(contexts)
	contexts = slices.Compact(contexts)
	concurrency := slices.Clone(plan.Concurrency)
	slices.Sort(concurrency)
	concurrency = slices.Compact(concurrency)
	var out []Cell
	for _, c := range contexts {
		if slices.Contains(s.Prefill, c) {
			out = append(out, Cell{Phase: PhasePrefill, ContextTokens: c, Concurrency: 1})
		}
		if slices.Contains(s.Decode, c) {
			for _, n := range concurrency {
				out = append(out, Cell{Phase: PhaseDecode, ContextTokens: c, Concurrency: n})
			}
		}
	}
	return out
}

// sortResults puts results in the reference reports' order: prefill cells by context,
// then decode cells by context and concurrency.
func sortResults(rs []Result) {
	slices.SortStableFunc(rs, func(a, b Result) int {
		if a.Phase != b.Phase {
			if a.Phase == PhasePrefill {
				return -1
			}
			return 1
		}
		if a.ContextTokens != b.ContextTokens {
			return a.ContextTokens - b.ContextTokens
		}
		return a.Concurrency - b.Concurrency
	})
}
