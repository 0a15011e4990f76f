package charts

import (
	"image/color"
	"math"
	"strconv"
	"strings"
)

// seriesColor resolves a Series.Color name in a palette.
func seriesColor(p palette, name string) (line, label color.NRGBA) {
	switch {
	case name == colorPrimary:
		return p.primary, p.primaryText
	case name == colorSecondary:
		return p.secondary, p.secondaryText
	case name == colorMuted:
		return p.muted, p.muted
	case name == colorWarning:
		return p.failedText, p.failedText
	case strings.HasPrefix(name, "ramp:"):
		f, _ := strconv.ParseFloat(strings.TrimPrefix(name, "ramp:"), 64)
		c := colorAt(viridisStops, p.rampLo+(p.rampHi-p.rampLo)*f)
		return c, p.text
	}
	return p.text, p.text
}

// plotArea maps data to pixels for a LineChart.
type plotArea struct {
	box
	m   LineChart
	pad float64 // inner horizontal padding, so end points are not on the frame
}

func (a plotArea) x(v float64) float64 {
	if a.m.XLinear {
		return a.x0 + a.pad + (v-a.m.XMin)/(a.m.XMax-a.m.XMin)*(a.x1-a.x0-2*a.pad)
	}
	lo, hi := math.Log2(a.m.XMin), math.Log2(a.m.XMax)
	return a.x0 + a.pad + (math.Log2(v)-lo)/(hi-lo)*(a.x1-a.x0-2*a.pad)
}

func (a plotArea) y(axis int, v float64) float64 {
	ax := a.m.Axes[axis]
	lo, hi := ax.Min, ax.Max
	if ax.Log {
		lo, hi, v = math.Log(lo), math.Log(hi), math.Log(math.Max(v, ax.Min))
	}
	return a.y1 - (v-lo)/(hi-lo)*(a.y1-a.y0)
}

var (
	tickStyle  = textStyle{size: 11.5}
	labelStyle = textStyle{size: 11.5}
)

// drawLineChart draws the legend, axes, series and point labels of m in
// the box (x, y, w, h); it returns where the labels went.
func drawLineChart(d *Drawing, p palette, m LineChart, x, y, w, h float64) []placedLabel {
	if m.Empty != "" || len(m.Axes) == 0 {
		d.roundRect(x, y, w, h, 6, p.panel, p.border, 1)
		d.text(x+w/2, y+h/2+5, m.Empty, textStyle{size: 14, anchor: anchorMiddle, color: p.muted})
		return nil
	}
	drawLegend(d, p, m.Series, x, y+12)
	leftW := math.Max(maxTickWidth(m.Axes[0])+12, m.leftW)
	rightW := 16.0
	if len(m.Axes) > 1 {
		rightW = maxTickWidth(m.Axes[1]) + 12
	}
	if !m.LabelPoints {
		rightW += 40 // room for the end-of-line labels
	}
	a := plotArea{box: box{x + leftW, y + 48, x + w - rightW, y + h - 42}, m: m, pad: 22}
	drawAxes(d, p, a)
	var obstacles []box
	var labels []pointLabel
	for _, s := range m.Series {
		obs, ls := drawSeries(d, p, a, s)
		obstacles, labels = append(obstacles, obs...), append(labels, ls...)
	}
	var placed []placedLabel
	if m.LabelPoints {
		for _, t := range m.XTicks {
			obstacles = append(obstacles, box{a.x(t.Value) - 20, a.y1, a.x(t.Value) + 20, a.y1 + 24})
		}
		placed = placeLabels(labels, obstacles, box{a.x0, y + 40, a.x1, a.y1})
	} else {
		placed = dodgeEndLabels(labels, a.y0, a.y1)
	}
	drawLabels(d, p, placed)
	return placed
}

// drawSeries draws one series' line (broken at gaps) and markers; it
// returns what labels must avoid and the labels it asks for: every point's
// value, or only the line's name at its end.
func drawSeries(d *Drawing, p palette, a plotArea, s Series) ([]box, []pointLabel) {
	lineC, textC := seriesColor(p, s.Color)
	var ps []pt
	for _, pnt := range s.Points {
		ps = append(ps, pt{a.x(pnt.X), a.y(s.Axis, pnt.Y)})
	}
	if s.Guide {
		d.polyline(ps, withAlpha(lineC, 0.8), 1.5, true)
		return lineObstacles(ps, 1), nil
	}
	if s.Band || s.Dense {
		drawBand(d, a, s, withAlpha(lineC, 0.16))
	} else {
		drawWhiskers(d, a, s, lineC)
	}
	var obstacles []box
	start := 0
	for i := 1; i <= len(ps); i++ {
		if i < len(ps) && !s.Points[i].Gap {
			continue
		}
		if i-start > 1 {
			d.polyline(ps[start:i], lineC, 2.5, s.Dashed)
			obstacles = append(obstacles, lineObstacles(ps[start:i], 2)...)
		}
		start = i
	}
	var labels []pointLabel
	st := labelStyle
	st.color = textC
	for i, q := range ps {
		if s.Dense && i < len(ps)-1 {
			continue
		}
		if s.Dashed || s.Points[i].Hollow {
			d.circle(q.X, q.Y, 4, p.bg, lineC, 2)
		} else {
			d.circle(q.X, q.Y, 4.5, lineC, p.bg, 1.5)
		}
		obstacles = append(obstacles, box{q.X - 6, q.Y - 6, q.X + 6, q.Y + 6})
		switch {
		case a.m.LabelPoints && s.Points[i].Label == "":
			// an unlabelled point: no empty box over the line
		case a.m.LabelPoints:
			labels = append(labels, pointLabel{px: q.X, py: q.Y, text: s.Points[i].Label, style: st, below: s.Axis == 1})
		case i == len(ps)-1:
			labels = append(labels, pointLabel{px: q.X, py: q.Y, text: strings.TrimSuffix(s.Name, " context"), style: st})
		}
	}
	return obstacles, labels
}

// drawWhiskers draws each point's interval (Lo–Hi) as a vertical line
// with short caps.
func drawWhiskers(d *Drawing, a plotArea, s Series, c color.NRGBA) {
	for _, q := range s.Points {
		if !(q.Hi > q.Lo) {
			continue
		}
		x, lo, hi := a.x(q.X), a.y(s.Axis, q.Lo), a.y(s.Axis, q.Hi)
		d.line(x, lo, x, hi, withAlpha(c, 0.75), 1.5)
		d.line(x-4, lo, x+4, lo, withAlpha(c, 0.75), 1.5)
		d.line(x-4, hi, x+4, hi, withAlpha(c, 0.75), 1.5)
	}
}

// drawBand shades the intervals of a series' points as one band, broken
// where a point has none; a lone point's band is a short bar.
func drawBand(d *Drawing, a plotArea, s Series, fill color.NRGBA) {
	var run []Point
	flush := func() {
		if len(run) == 1 {
			x := a.x(run[0].X)
			d.rect(x-6, a.y(s.Axis, run[0].Hi), 12, a.y(s.Axis, run[0].Lo)-a.y(s.Axis, run[0].Hi), fill)
		}
		if len(run) > 1 {
			poly := make([]pt, 0, 2*len(run))
			for _, q := range run {
				poly = append(poly, pt{a.x(q.X), a.y(s.Axis, q.Hi)})
			}
			for i := len(run) - 1; i >= 0; i-- {
				poly = append(poly, pt{a.x(run[i].X), a.y(s.Axis, run[i].Lo)})
			}
			d.area(poly, fill)
		}
		run = run[:0]
	}
	for _, q := range s.Points {
		if !(q.Hi > q.Lo) || q.Gap {
			flush()
		}
		if q.Hi > q.Lo {
			run = append(run, q)
		}
	}
	flush()
}

func maxTickWidth(a Axis) float64 {
	w := 0.0
	for _, t := range a.Ticks {
		w = math.Max(w, textWidth(t.Label, tickStyle.font, tickStyle.size))
	}
	return w
}

// drawAxes draws the grid, the tick labels and the axis titles.
func drawAxes(d *Drawing, p palette, a plotArea) {
	m := a.m
	left, right := p.muted, p.muted
	if len(m.Axes) > 1 {
		left, right = p.primaryText, p.secondaryText
	}
	for _, t := range m.XTicks {
		x := a.x(t.Value)
		d.line(x, a.y0, x, a.y1, p.grid, 1)
		d.text(x, a.y1+18, t.Label, textStyle{size: 11.5, anchor: anchorMiddle, color: p.muted})
	}
	for i, t := range m.Axes[0].Ticks {
		ty := a.y(0, t.Value)
		if i > 0 {
			d.line(a.x0, ty, a.x1, ty, p.grid, 1)
		}
		d.text(a.x0-8, ty+4, t.Label, textStyle{size: 11.5, anchor: anchorEnd, color: p.muted})
		if len(m.Axes) > 1 && i < len(m.Axes[1].Ticks) {
			t2 := m.Axes[1].Ticks[i]
			d.text(a.x1+8, a.y(1, t2.Value)+4, t2.Label, textStyle{size: 11.5, color: p.muted})
		}
	}
	d.line(a.x0, a.y1, a.x1, a.y1, p.axis, 1)
	d.text(a.x0-8, a.y0-14, m.Axes[0].Label, textStyle{size: 12, font: fontBold, color: left})
	if len(m.Axes) > 1 {
		d.text(a.x1+8, a.y0-14, m.Axes[1].Label, textStyle{size: 12, font: fontBold, anchor: anchorEnd, color: right})
	}
	d.text((a.x0+a.x1)/2, a.y1+36, m.XLabel, textStyle{size: 12, anchor: anchorMiddle, color: p.muted})
}

// drawLegend draws a swatch and the name of each series in a row.
func drawLegend(d *Drawing, p palette, series []Series, x, y float64) {
	for _, s := range series {
		if s.Name == "" {
			continue // a guide the subtitle explains (the Pareto chart's frontiers)
		}
		c, _ := seriesColor(p, s.Color)
		if s.Guide {
			d.polyline([]pt{{x, y - 4}, {x + 22, y - 4}}, withAlpha(c, 0.8), 1.5, true)
			x += 30 + d.text(x+30, y, s.Name, textStyle{size: 12, color: p.text}) + 22
			continue
		}
		d.polyline([]pt{{x, y - 4}, {x + 22, y - 4}}, c, 2.5, s.Dashed)
		if s.Dashed {
			d.circle(x+11, y-4, 3.5, p.bg, c, 2)
		} else {
			d.circle(x+11, y-4, 4, c, p.bg, 1.5)
		}
		w := d.text(x+30, y, s.Name, textStyle{size: 12, color: p.text})
		x += 30 + w + 22
	}
}
