package charts

import "math"

// niceStep is a 1-2-2.5-5 × 10ⁿ step that splits span into about n parts.
func niceStep(span float64, n int) float64 {
	if span <= 0 || n <= 0 {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag*1.0000001 {
			return m * mag
		}
	}
	return 10 * mag
}

// linearAxis returns an axis from 0 to a round number at or above maxV
// with about n ticks, each labelled by format.
func linearAxis(label string, maxV float64, n int, format func(float64) string) Axis {
	if maxV <= 0 {
		maxV = 1
	}
	step := niceStep(maxV, n)
	top := math.Ceil(maxV/step-1e-9) * step
	// Leave head-room for the point labels above the highest point.
	if top < maxV*1.08 {
		top += step
	}
	a := Axis{Label: label, Min: 0, Max: top}
	for i := 0; float64(i)*step <= top+step/1e6; i++ {
		v := float64(i) * step
		a.Ticks = append(a.Ticks, Tick{Value: v, Label: format(v)})
	}
	return a
}

// log2Range returns the powers of two around [lo, hi] and a tick at each.
func log2Range(lo, hi float64, format func(float64) string) (minV, maxV float64, ticks []Tick) {
	if lo <= 0 {
		lo = 1
	}
	if hi < lo {
		hi = lo
	}
	minV = math.Exp2(math.Floor(math.Log2(lo) + 1e-9))
	maxV = math.Exp2(math.Ceil(math.Log2(hi) - 1e-9))
	if maxV <= minV {
		maxV = minV * 2
	}
	for v := minV; v <= maxV*1.0000001; v *= 2 {
		ticks = append(ticks, Tick{Value: v, Label: format(v)})
	}
	return minV, maxV, ticks
}

// logTicks returns 1-2-5 × 10ⁿ ticks inside [lo, hi].
func logTicks(lo, hi float64, format func(float64) string) []Tick {
	var ticks []Tick
	if lo <= 0 || hi <= lo {
		return ticks
	}
	start := math.Pow(10, math.Floor(math.Log10(lo)))
	for dec := start; dec <= hi; dec *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := m * dec
			if v >= lo*0.9999 && v <= hi*1.0001 {
				ticks = append(ticks, Tick{Value: v, Label: format(v)})
			}
		}
	}
	return ticks
}

// formatMsTick labels a TTFT axis: milliseconds below 10 s, seconds above.
func formatMsTick(maxMs float64) func(float64) string {
	if maxMs >= 10000 {
		return func(v float64) string { return wholeNumber(v/1000) + " s" }
	}
	return func(v float64) string { return wholeNumber(v) + " ms" }
}

// niceCeil is the smallest 1-2-2.5-5 × 10ⁿ number at or above v.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*mag*1.0000001 {
			return m * mag
		}
	}
	return 10 * mag
}

// alignedAxis returns an axis from 0 with the same number of ticks as
// another, so both share the grid lines.
func alignedAxis(label string, maxV float64, ticks int, format func(float64) string) Axis {
	if ticks < 2 {
		ticks = 2
	}
	step := niceCeil(math.Max(maxV, 1e-9) * 1.08 / float64(ticks-1))
	a := Axis{Label: label, Max: step * float64(ticks-1)}
	for i := 0; i < ticks; i++ {
		v := float64(i) * step
		a.Ticks = append(a.Ticks, Tick{Value: v, Label: format(v)})
	}
	return a
}

// logAxis spans [lo, hi] on a logarithmic scale with 1-2-5 ticks, from the
// tick at or below lo to the one at or above hi.
func logAxis(label string, lo, hi float64, format func(float64) string) Axis {
	steps := logTicks(lo/10, hi*10, format)
	a := Axis{Label: label, Log: true, Min: lo, Max: hi}
	for _, t := range steps {
		if t.Value <= lo/1.1 {
			a.Min = t.Value
		}
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Value >= hi*1.1 {
			a.Max = steps[i].Value
		}
	}
	for _, t := range steps {
		if t.Value >= a.Min && t.Value <= a.Max {
			a.Ticks = append(a.Ticks, t)
		}
	}
	return a
}
