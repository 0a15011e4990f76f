package runner

import "speedmatrix/engine"

// decodeCell is a decode result of total tok/s v (0: status st) with a
// 95 % half-width of ci (a fraction; 0: unknown), as engine/sweep's tests
// make them.
func decodeCell(ctx, conc int, st engine.Status, v, ci float64) engine.Result {
	r := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: conc}, Status: st, TotalTokPerSec: v, TTFTMs: float64(ctx) / 100}
	if ci > 0 {
		r.Precision = &engine.CellPrecision{TotalTokPerSec: engine.Precision{RelCI95: ci, Buckets: 10, Batches: 5, Method: "batch means"}}
	}
	return r
}
