package measure

import (
	"speedmatrix/engine"
	"speedmatrix/engine/servers"
	"time"
)

// What only the tests use: helpers that read a value back, and entry
// points the product reaches another way.

// crossCheck compares a decode cell with what the server said about it.
// samples run from before the cell to after its drain (preemptions count
// over all of them); from and to are its window. Rates and averages are read between the first and the last
// sample inside the window, where the cell is in its steady state: the
// ramp of warm-up and the stop at the window's end stay out.
func crossCheck(samples []metricSample, from, to time.Time, gotTokens func(a, b time.Time) bool) *engine.ServerCheck {
	return crossCheckWith(servers.Generic.Checks(), samples, from, to, gotTokens)
}
