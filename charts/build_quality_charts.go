package charts

import (
	"math"

	"speedmatrix/engine"
)

// qualityLabelledPoints is the most contexts whose points are all
// labelled with their value; more get only their lines' names.
const qualityLabelledPoints = 8

// qualityDensePoints is the most contexts drawn with a marker and a
// whisker each; more are drawn as lines with bands.
const qualityDensePoints = 24

// qualityKLDSpan is the most decades the KLD axis spans: a smaller
// positive figure is drawn at its foot, like 0.
const qualityKLDSpan = 1e-9

// qualityMaxTicks is the most 1-2-5 ticks the KLD axis has; past it, it
// has one a decade.
const qualityMaxTicks = 8

// qualitySeries are the series of the two drift charts as they are filled.
type qualitySeries struct {
	mean, p99, floorK, agree, floorT Series
	kld, top1                        []float64 // every figure the axes must hold
	zero                             bool      // some KLD is 0
}

// buildQualityCharts is the drift per context as two charts on one
// context axis: the KL divergence (mean and p99, log scale) and the top-1
// agreement, each with its intervals, the noise floor's band and the
// budget's bound (0: none).
func buildQualityCharts(ctxs []engine.ContextDrift, floor engine.NoiseFloor, kldBudget, top1Budget float64) (kld, top1 LineChart) {
	kld = LineChart{Title: "KL divergence from the reference", XLabel: "context length (log scale)"}
	top1 = LineChart{Title: "Top-1 agreement with the reference", XLabel: "context length (log scale)"}
	s := qualitySeries{
		mean:   Series{Name: "KLD mean", Color: colorPrimary},
		p99:    Series{Name: "KLD p99", Color: colorSecondary, Dashed: true},
		floorK: Series{Name: "noise floor (KLD mean)", Color: colorMuted, Dashed: true, Band: true},
		agree:  Series{Name: "top-1 agreement", Color: colorPrimary},
		floorT: Series{Name: "noise floor", Color: colorMuted, Dashed: true, Band: true},
	}
	lo, hi := math.Inf(1), 0.0
	gap := false
	for _, c := range ctxs {
		if c.ContextTokens <= 0 || c.Positions <= 0 {
			continue
		}
		x := float64(c.ContextTokens)
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		s.add(x, c)
		f, ok := floor.At(c.ContextTokens)
		if !ok {
			gap = len(s.floorK.Points) > 0
			continue
		}
		s.addFloor(x, f, gap)
		gap = false
	}
	if len(s.mean.Points)+len(s.p99.Points)+len(s.agree.Points) == 0 {
		kld.Empty = "No context was compared: there is no drift to draw."
		top1.Empty = kld.Empty
		return kld, top1
	}
	xMin, xMax, ticks := contextAxis(s.agree.Points, lo, hi)
	labelled := len(s.agree.Points) <= qualityLabelledPoints && len(s.mean.Points) <= qualityLabelledPoints
	for _, c := range []*LineChart{&kld, &top1} {
		c.XMin, c.XMax, c.XTicks, c.LabelPoints = xMin, xMax, ticks, labelled
	}
	for _, x := range []*Series{&s.mean, &s.p99, &s.agree, &s.floorK, &s.floorT} {
		x.Dense = len(x.Points) > qualityDensePoints
	}
	kld.Series = nonEmptySeries(s.floorK, s.mean, s.p99)
	top1.Series = nonEmptySeries(s.floorT, s.agree)
	if kldBudget > 0 {
		kld.Series = append(kld.Series, budgetLine("budget "+formatNats(kldBudget), xMin, xMax, kldBudget))
		s.kld = append(s.kld, kldBudget)
	}
	if top1Budget > 0 {
		top1.Series = append(top1.Series, budgetLine("budget "+formatQualityPct(top1Budget), xMin, xMax, top1Budget))
		s.top1 = append(s.top1, top1Budget)
	}
	kld.Axes = []Axis{kldAxis(s.kld, s.zero)}
	top1.Axes = []Axis{top1Axis(s.top1)}
	return kld, top1
}

// add puts one context's drift on the charts, each figure that can be
// drawn with its interval.
func (s *qualitySeries) add(x float64, c engine.ContextDrift) {
	for _, f := range []struct {
		s  *Series
		v  float64
		ci engine.QualityInterval
	}{{&s.mean, c.KLDMean, c.CI.KLDMean}, {&s.p99, c.KLDP99, c.CI.KLDP99}} {
		if !usable(f.v) {
			continue
		}
		lo, hi := interval(f.v, f.ci)
		f.s.Points = append(f.s.Points, Point{X: x, Y: f.v, Label: formatNats(f.v), Lo: lo, Hi: hi})
		s.kld = append(s.kld, f.v, lo, hi)
		s.zero = s.zero || f.v == 0
	}
	if usable(c.Top1Pct) && c.Top1Pct <= 100 {
		lo, hi := interval(c.Top1Pct, c.CI.Top1Pct)
		s.agree.Points = append(s.agree.Points, Point{X: x, Y: c.Top1Pct, Label: formatQualityPct(c.Top1Pct), Lo: lo, Hi: hi})
		s.top1 = append(s.top1, c.Top1Pct, lo)
	}
}

// addFloor puts the noise floor at one context on the charts, its line
// and band broken after a context without one (gap).
func (s *qualitySeries) addFloor(x float64, f engine.ContextDrift, gap bool) {
	if usable(f.KLDMean) {
		lo, hi := interval(f.KLDMean, f.CI.KLDMean)
		s.floorK.Points = append(s.floorK.Points, Point{X: x, Y: f.KLDMean, Lo: lo, Hi: hi, Gap: gap})
		s.kld = append(s.kld, f.KLDMean, lo, hi)
	}
	if usable(f.Top1Pct) && f.Top1Pct <= 100 {
		lo, hi := interval(f.Top1Pct, f.CI.Top1Pct)
		s.floorT.Points = append(s.floorT.Points, Point{X: x, Y: f.Top1Pct, Lo: lo, Hi: hi, Gap: gap})
		s.top1 = append(s.top1, f.Top1Pct, lo)
	}
}

// qualityContextTicks is the most contexts the x axis names one by one.
const qualityContextTicks = 12

// contextAxis is the context axis from lo to hi: a tick at each context
// compared (pts), named as every surface names it, when they are few and
// far enough apart to read; else a tick at each power of two.
func contextAxis(pts []Point, lo, hi float64) (minV, maxV float64, ticks []Tick) {
	label := func(v float64) string { return engine.ContextLabel(int(v)) }
	minV, maxV, ticks = log2Range(lo, hi, label)
	if len(pts) == 0 || len(pts) > qualityContextTicks {
		return minV, maxV, ticks
	}
	own := make([]Tick, 0, len(pts))
	for i, q := range pts {
		if i > 0 && q.X < pts[i-1].X*1.4 {
			return minV, maxV, ticks // too close: the labels would overlap
		}
		own = append(own, Tick{Value: q.X, Label: label(q.X)})
	}
	return minV, maxV, own
}

// nonEmptySeries is the series that have points, in order.
func nonEmptySeries(ss ...Series) []Series {
	var out []Series
	for _, s := range ss {
		if len(s.Points) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// budgetLine is a budget's bound across the chart, as a guide.
func budgetLine(name string, xMin, xMax, v float64) Series {
	return Series{Name: name, Guide: true, Color: colorWarning, Points: []Point{{X: xMin, Y: v}, {X: xMax, Y: v}}}
}

// kldAxis is the KL divergence's log axis over the positive figures of
// vs; when some figure is 0 (or all are), the axis reaches a decade below
// the smallest positive one, so that 0, drawn at its foot, stands apart.
func kldAxis(vs []float64, zero bool) Axis {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		if v > 0 && usable(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == 0 {
		lo, hi = 1e-4, 1e-2
	}
	if zero {
		lo /= 10
	}
	lo = math.Max(lo, hi*qualityKLDSpan)
	a := logAxis("KLD, nats (log scale)", lo, hi, formatNats)
	if len(a.Ticks) > qualityMaxTicks {
		// Over many decades 1-2-5 crowds the axis: keep the powers of ten.
		decades := a.Ticks[:0]
		for _, t := range a.Ticks {
			if m := t.Value / math.Pow(10, math.Floor(math.Log10(t.Value)+1e-9)); m < 1.5 {
				decades = append(decades, t)
			}
		}
		a.Ticks = decades
	}
	return a
}

// top1Axis is the top-1 agreement's axis: from a round figure below the
// lowest of vs (two points below 100 at least) to 100 %, with room above
// for the points' labels.
func top1Axis(vs []float64) Axis {
	lo := 98.0
	for _, v := range vs {
		if usable(v) && v <= 100 {
			lo = math.Min(lo, v)
		}
	}
	step := niceStep(100-lo, 4)
	bottom := math.Max(0, math.Floor(lo/step-1e-9)*step)
	a := Axis{Label: "top-1 agreement, %", Min: bottom, Max: 100 + step/2}
	for v := bottom; v <= 100+step/1e6; v += step {
		a.Ticks = append(a.Ticks, Tick{Value: v, Label: formatQualityPct(v)})
	}
	return a
}
