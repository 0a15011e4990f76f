package engine

import (
	"math"
	"strconv"
)

// Drift is how a decode cell's total tok/s moved across its window: the
// slope of its one-second buckets, relative to their mean, per 10 s
// (METHODOLOGY, "A cell's drift"). A cell's rate falls as its streams'
// contexts grow and each step reads more KV cache, and a server's pace
// moves with clocks, temperature and other tenants; a window's mean then
// depends on how long the window was, which its ± does not say.
type Drift struct {
	// RelPer10s is the slope ÷ the window's mean rate, per 10 s: −0.019
	// is falling 1.9 % per 10 s.
	RelPer10s float64 `json:"rel_per_10s"`
	// RelCI95 is the 95 % half-width of RelPer10s, in the same units.
	RelCI95 float64 `json:"rel_ci95"`
	// Batches is how many batches the buckets' long-run variance about
	// the line was estimated over (nominal, as Precision.Batches).
	Batches int `json:"batches"`
}

// MaxDrift bounds a drift a report file may hold: 1,000 % per 10 s. A rate
// that falls from twice its window's mean to nothing in 5 s, the shortest
// window with a drift, moves by 400 %.
const MaxDrift = 10

// minDrift is the smallest slope a cell is said to move by: 0.1 % per
// 10 s, the least the words can say. A window of identical whole steps
// knows a slope below it as well as it knows anything, and below it no
// window of the plan's length moves by a tenth of the tightest target.
const minDrift = 0.001

// Moving reports whether the slope is beyond its noise: its 95 % interval
// leaves out zero, and it is at least minDrift.
func (d *Drift) Moving() bool {
	return d != nil && math.Abs(d.RelPer10s) > d.RelCI95 && math.Abs(d.RelPer10s) >= minDrift
}

// Text says a moving cell's drift as every surface shows it: "falling 1.9 %
// per 10 s", "rising 0.4 % per 10 s"; "" for a cell that is not Moving.
func (d *Drift) Text() string {
	if !d.Moving() {
		return ""
	}
	way := "rising"
	if d.RelPer10s < 0 {
		way = "falling"
	}
	return way + " " + strconv.FormatFloat(math.Abs(d.RelPer10s)*100, 'f', 1, 64) + " % per 10 s"
}

// EstimateDrift fits the slope of a figure's one-second buckets, oldest
// first, and its 95 % interval; nil for fewer than MinAdaptiveWindow's
// buckets or a figure of zero. Buckets are correlated as they are for the
// figure's ±, so the slope's variance is the long-run variance of the
// buckets about their line (overlapping batch means) over the spread of
// their times, with batch means' neighbouring-batch
// correction, Student's t on the batches' degrees of freedom less one for
// the slope, and resolution flooring the buckets' variance as
// EstimatePrecision does. A slope fitted to four batch means instead left
// it two degrees of freedom, and its interval was now and then so narrow
// that a cell at one stream, whose every fifth second dips as a request
// ends, read as moving at a third of its checks.
func EstimateDrift(values []float64, resolution float64) *Drift {
	n := len(values)
	if n < int(MinAdaptiveWindow.Seconds()) {
		return nil
	}
	m := meanOf(values)
	if m <= 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		return nil
	}
	at := make([]float64, n)
	for i := range at {
		at[i] = float64(i) + 0.5
	}
	a, slope, sxx := fitLine(at, values)
	resid := make([]float64, n)
	for i, v := range values {
		resid[i] = v - (a + slope*at[i])
	}
	// Batched by the larger of the buckets' and the residuals' lag-1
	// autocorrelation: a trend is not correlation, but a short window of
	// correlated seconds loses most of its correlation to the line it is
	// fitted to, and its slope then looks surer than it is.
	rho := max(lag1Corrected(values), lag1Corrected(resid))
	b := batchSize(n, rho)
	k := n / b
	lr := max(overlappingBatchVar(resid, b), resolution*resolution/12) * batchBias(rho, b, k)
	half := TQuantile95(max(1, obmDF(n, b)-1)) * math.Sqrt(lr/sxx)
	return &Drift{RelPer10s: slope * 10 / m, RelCI95: half * 10 / m, Batches: k}
}

// fitLine is the least-squares line through (xs, ys): intercept and
// slope, and the spread of xs about their mean (Σ(x − x̄)²) that the
// slope's variance is divided by.
func fitLine(xs, ys []float64) (a, slope, sxx float64) {
	mx, my := meanOf(xs), meanOf(ys)
	var sxy float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return my, 0, 0
	}
	slope = sxy / sxx
	return my - slope*mx, slope, sxx
}
