package engine

import "math"

// Precision is how well one headline figure of a cell is known: the
// half-width of its 95 % confidence interval relative to the figure, from
// the variation of the figure between the window's one-second buckets. A
// figure without it can't say whether a second run would agree.
type Precision struct {
	// RelCI95 is the 95 % half-width ÷ the figure (0.004 is ±0.4 %); 0
	// with Unknown set when it couldn't be estimated.
	RelCI95 float64 `json:"rel_ci95"`
	// Buckets is how many whole one-second buckets of the window it rests
	// on; Batches how many batch means those were grouped into.
	Buckets int `json:"buckets"`
	Batches int `json:"batches,omitempty"`
	// Method names the estimator ("batch means").
	Method string `json:"method,omitempty"`
	// Unknown says why there is no estimate ("3 one-second buckets: too
	// few to estimate"); "" when RelCI95 is known.
	Unknown string `json:"unknown,omitempty"`
}

// Known reports whether RelCI95 is an estimate rather than a placeholder:
// a finite, non-negative width (an infinite one says nothing, and
// report.json can't hold it).
func (p Precision) Known() bool {
	return p.Unknown == "" && p.Method != "" && p.RelCI95 >= 0 && !math.IsInf(p.RelCI95, 1)
}

// CellPrecision is the precision of a Valid decode cell's headline figures,
// over its window (MeasuredS).
type CellPrecision struct {
	TotalTokPerSec      Precision `json:"total_tok_s"`
	PerRequestTokPerSec Precision `json:"per_request_tok_s"`
	ITLMs               Precision `json:"itl_ms"`
}
