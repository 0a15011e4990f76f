package widget

import (
	"speedmatrix/app"
	"speedmatrix/engine"
)

// PreviewPlan lays h out afresh for the fitted plan's decode cells, with
// those over the capacity c marked; the caller redraws.
func PreviewPlan(h *Heatmap, fitted engine.Plan, c app.Capacity) {
	h.SetAxes(nil, nil)
	h.SetAxes(fitted.DecodeContexts, fitted.Concurrency)
	for _, ctx := range fitted.DecodeContexts {
		for _, n := range fitted.Concurrency {
			h.SetPlanned(ctx, n, c.OverCapacity(ctx, n, fitted.MaxOutputTokens))
		}
	}
}

// DecodeAxes lists the decode contexts and concurrency levels of results.
func DecodeAxes(results []engine.Result) (contexts, concurrency []int) {
	for _, res := range results {
		if res.Phase == engine.PhaseDecode {
			contexts = SortedUnion(contexts, res.ContextTokens)
			concurrency = SortedUnion(concurrency, res.Concurrency)
		}
	}
	return contexts, concurrency
}
