package shell

import (
	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

// previewPlan lays h out afresh for the fitted plan's decode cells, with
// those over the capacity c marked; the caller redraws.
func previewPlan(h *appwidget.Heatmap, fitted engine.Plan, c app.Capacity) {
	h.SetAxes(nil, nil)
	h.SetAxes(fitted.DecodeContexts, fitted.Concurrency)
	for _, ctx := range fitted.DecodeContexts {
		for _, n := range fitted.Concurrency {
			h.SetPlanned(ctx, n, c.OverCapacity(ctx, n, fitted.MaxOutputTokens))
		}
	}
}

// decodeAxes lists the decode contexts and concurrency levels of results.
func decodeAxes(results []engine.Result) (contexts, concurrency []int) {
	for _, res := range results {
		if res.Phase == engine.PhaseDecode {
			contexts = appwidget.SortedUnion(contexts, res.ContextTokens)
			concurrency = appwidget.SortedUnion(concurrency, res.Concurrency)
		}
	}
	return contexts, concurrency
}
