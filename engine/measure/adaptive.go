package measure

import (
	"slices"
	"time"

	"speedmatrix/engine"
)

// Adaptive windows (engine.Plan.Precision): a decode cell's window ends at
// the first whole second, from engine.MinAdaptiveWindow on, at which every
// headline figure over the window so far is known to the plan's precision,
// and at the plan's duration otherwise. The figures are then those of the
// window it ended at, counted as a fixed window of that length would count
// them (finish); only the window's length adapts.

// firstCheck is when the window is first checked: MinAdaptiveWindow after
// it opened for an adaptive plan, never after end; end for a fixed one.
func (d *decodeCell) firstCheck(from, end time.Time) time.Time {
	if !d.r.plan.Adaptive() {
		return end
	}
	return minTime(from.Add(engine.MinAdaptiveWindow), end)
}

// known reports whether the window [from, to] already knows every headline
// figure to the plan's precision (engine.CellPrecision.Ends).
func (d *decodeCell) known(from, to time.Time) bool {
	c := cellPrecision(d.snapshot(), from, to, d.concurrency)
	c.Target = d.r.plan.Precision
	return c.Ends()
}

// snapshot copies what the precision estimate reads of the cell's requests
// (their arrivals so far) while the workers go on appending: each record's
// slice as its worker's lock last left it. The arrivals it holds are never
// changed while the cell runs (reconcileAll scales them only after the
// workers stopped), so sharing their array is safe.
func (d *decodeCell) snapshot() []*requestRecord {
	d.mu.Lock()
	recs := slices.Clone(d.recs)
	d.mu.Unlock()
	out := make([]*requestRecord, len(recs))
	for i, r := range recs {
		mu := &d.arrivals[r.Worker]
		mu.Lock()
		out[i] = &requestRecord{Worker: r.Worker, Arrivals: r.Arrivals, arrivalBase: r.arrivalBase}
		mu.Unlock()
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
