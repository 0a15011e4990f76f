package telemetry

import (
	"fmt"
	"time"

	"speedmatrix/engine"
)

// counterAcc follows one GPU's total-energy counter over a window: its
// first and last readings, and whatever makes it untrustworthy there.
type counterAcc struct {
	source      string
	first, last counterPoint
	n, missing  int
	backwards   bool
}

type counterPoint struct {
	t  time.Time
	mJ float64
}

// add takes one sample's reading of the counter, in time order.
func (c *counterAcc) add(at time.Time, g engine.GPUSample) {
	if g.EnergySource == "" {
		c.missing++
		return
	}
	p := counterPoint{at, g.EnergyMJ}
	if c.n > 0 && p.mJ < c.last.mJ {
		c.backwards = true
	}
	if c.n == 0 {
		c.first = p
	}
	c.source, c.last = g.EnergySource, p
	c.n++
}

// watts is the average power the counter says over its readings, or 0
// and why it can't be trusted ("" when the GPU has no counter at all).
// sampledW is the power samples' average, against which a counter that
// does not move is caught.
func (c *counterAcc) watts(sampledW float64) (float64, string) {
	switch {
	case c.n == 0:
		return 0, ""
	case c.backwards:
		return 0, "energy counter went backwards in the window (reset or wrapped)"
	case c.missing > 0:
		return 0, "energy counter was not read in every sample"
	case c.n < 2 || !c.last.t.After(c.first.t):
		return 0, "energy counter was read only once around the window"
	}
	w := (c.last.mJ - c.first.mJ) / 1000 / c.last.t.Sub(c.first.t).Seconds()
	switch {
	case w > engine.MaxGPUPowerW:
		return 0, fmt.Sprintf("energy counter jumped (%.3g W)", w)
	case w <= 0 && sampledW > 1:
		return 0, "energy counter did not move"
	case w <= 0:
		return 0, ""
	}
	return w, ""
}
