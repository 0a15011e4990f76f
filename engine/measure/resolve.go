package measure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"speedmatrix/engine"

	"speedmatrix/engine/openai"
	"speedmatrix/engine/servers"
)

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
	e := &engine.UnknownModelError{Want: want}
	for _, m := range models {
		if m.ID == want {
			return m, nil
		}
		e.Available = append(e.Available, m.ID)
	}
	return openai.Model{}, e
}

// overCapacity is OverCapacity with the limits the server reported.
func (s setup) overCapacity(contextTokens, concurrency, output int) bool {
	return engine.OverCapacity(s.KVTokens, s.MaxNumSeqs, contextTokens, concurrency, output)
}

// resolve asks the server for its model, context length and KV cache, and
// fits the plan to them. kind gives the limits its engine reports beside
// /v1/models (vLLM's KV cache from /metrics, SGLang's server info); the
// note says which it should have given and did not.
func resolve(ctx context.Context, c *openai.Client, plan engine.Plan, target Subject, kind servers.Kind) (setup, string, error) {
	s, note, err := resolveServer(ctx, c, target, kind, plan.KVBudgetTokens)
	if err != nil {
		return s, "", err
	}
	if err := engine.ValidatePlan(plan, engine.Limits{MaxModelLen: s.MaxModelLen}); err != nil {
		return s, "", err
	}
	s.Prefill = engine.FitContexts(plan.PrefillContexts, s.MaxModelLen, 1)
	s.Decode = engine.FitContexts(plan.DecodeContexts, s.MaxModelLen, plan.MaxOutputTokens)
	return s, note, nil
}

// resolveServer asks the server for its model, context length, KV cache
// (kvBudget, when set, instead) and max_num_seqs, with no plan to fit: a
// load test's setup, and the start of a run's.
func resolveServer(ctx context.Context, c *openai.Client, target Subject, kind servers.Kind, kvBudget int) (setup, string, error) {
	var s setup
	models, err := c.Models(ctx)
	if err != nil {
		return s, "", fmt.Errorf("list models: %w", err)
	}
	m, err := resolveModel(models, target.Model)
	if err != nil {
		return s, "", err
	}
	lim, note := kind.Limits()
	s.Model, s.Root, s.MaxModelLen = m.ID, m.Root, m.MaxModelLen
	if s.MaxModelLen == 0 {
		s.MaxModelLen = cmp.Or(target.Header.Server.MaxModelLen, lim.ContextLength)
	}
	s.KVTokens = cmp.Or(kvBudget, lim.KVTokens)
	if s.KVTokens == 0 {
		s.KVTokens = target.Header.Server.KVCacheTokens
	}
	if s.KVTokens > 0 {
		note = ""
	}
	s.MaxNumSeqs = cmp.Or(target.Header.Server.MaxNumSeqs, lim.MaxRunning)
	return s, note, nil
}

// cells lists the matrix in the order it is measured: for each context,
// its prefill cell (which warms the prefix cache) then its decode cells.
func (s setup) cells(plan engine.Plan) []engine.Cell {
	contexts := slices.Concat(s.Prefill, s.Decode)
	slices.Sort(contexts)
	contexts = slices.Compact(contexts)
	concurrency := slices.Clone(plan.Concurrency)
	slices.Sort(concurrency)
	concurrency = slices.Compact(concurrency)
	var out []engine.Cell
	for _, c := range contexts {
		if slices.Contains(s.Prefill, c) {
			out = append(out, engine.Cell{Phase: engine.PhasePrefill, ContextTokens: c, Concurrency: 1})
		}
		if slices.Contains(s.Decode, c) {
			for _, n := range concurrency {
				out = append(out, engine.Cell{Phase: engine.PhaseDecode, ContextTokens: c, Concurrency: n})
			}
		}
	}
	return out
}

// sortResults puts results in the reference reports' order: prefill cells by context,
// then decode cells by context and concurrency.
func sortResults(rs []engine.Result) {
	slices.SortStableFunc(rs, func(a, b engine.Result) int {
		if a.Phase != b.Phase {
			if a.Phase == engine.PhasePrefill {
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
