package measure

import (
	"slices"
	"time"

	"speedmatrix/engine"
)

// Adaptive windows (engine.Plan.Precision): a decode cell's window is
// checked at each whole second from a second before
// engine.MinAdaptiveWindow, and ends at the second of two checks in a row
// that find its figures known to the plan's precision and its rate not
// moving (engine.CellPrecision.Ends), so never before MinAdaptiveWindow;
// at the plan's duration otherwise (engine.Stopper). The figures are then
// those of the window it ended at, counted as a fixed window of that
// length would count them (finish); only the window's length adapts.

// firstCheck is when the window is first checked: a second before
// MinAdaptiveWindow after it opened for an adaptive plan, never after end;
// end for a fixed one.
func (d *decodeCell) firstCheck(from, end time.Time) time.Time {
	if !d.r.plan.Adaptive() {
		return end
	}
	return minTime(from.Add(engine.MinAdaptiveWindow-precisionBucket), end)
}

// known reports whether the window [from, to] knows every figure the
// window waits for to the plan's precision, and did at the check a second
// before (engine.Stopper).
func (d *decodeCell) known(from, to time.Time) bool {
	c := cellPrecision(d.snapshot(), from, to, d.concurrency, false)
	c.Target = d.r.plan.Precision
	return d.stopper.Done(*c)
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
