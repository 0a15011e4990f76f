package charts

import (
	"fmt"
	"math"
)

// Sizes of a load test's pictures, in logical pixels.
const (
	loadPanelH      = 330.0 // each latency panel of the standalone figure
	loadPanelGap    = 20.0
	loadSheetChartH = 360.0
)

// drawLoadModel lays out one of a load test's pictures; m must have Load.
func drawLoadModel(kind Kind, m Model, p palette, opts Options) (*Drawing, error) {
	if m.Load == nil {
		return nil, fmt.Errorf("chart %s: this report is not a load test: draw it from a report of speedmatrix load", kind)
	}
	switch kind {
	case KindLoadLatency:
		return layoutLoadLatency(m, p, frameFor(opts, figureWidth, lineMinWidth)), nil
	case KindLoadGoodput:
		return layoutLineFigure(m, m.Load.Goodput, p, frameFor(opts, figureWidth, lineMinWidth)), nil
	}
	return layoutLoadSheet(m, p, frameFor(opts, sheetWidth, sheetMinWidth)), nil
}

// layoutLoadLatency is the latency chart on its own: TTFT above ITL, on
// the same throughput axis, then the flagged rates.
func layoutLoadLatency(m Model, p palette, f frame) *Drawing {
	d := &Drawing{width: f.width, bg: p.bg}
	l := m.Load
	margin := f.margin(figureMargin)
	inner := f.width - 2*margin
	y := drawChartHeader(d, p, m, "Latency against throughput",
		"p50 and p99 at the request throughput each rate reached · one point per rate, labelled with its offered rate", margin, margin-8, inner)
	panelH := loadPanelH
	if f.screen && f.height > 0 {
		notesH := drawFlags(&Drawing{}, p, l.Flags, margin, drawNotes(&Drawing{}, p, nonEmpty(l.NotDrawn), margin, 0, inner), inner)
		panelH = math.Max(lineChartMinH, math.Min(lineChartMaxH, math.Floor((f.height-y-notesH-figureBottomM-loadPanelGap)/2)))
	}
	for _, c := range alignLeftAxes(l.TTFT, l.ITL) {
		d.text(margin, y+22, c.Title, textStyle{size: 15, font: fontBold, color: p.text})
		drawLineChart(d, p, c, margin, y+32, inner, panelH)
		y += 32 + panelH + loadPanelGap
	}
	y = drawNotes(d, p, nonEmpty(l.NotDrawn), margin, y, inner)
	y = drawFlags(d, p, l.Flags, margin, y, inner)
	d.height = y + figureBottomM
	return d
}

// layoutLoadSheet is a load test's report sheet: the header, Hardware,
// Engine and Run, the launch command, the plan, both latency panels side
// by side, the goodput chart, and the per-rate table.
func layoutLoadSheet(m Model, p palette, f frame) *Drawing {
	d := &Drawing{width: f.width, bg: p.bg}
	l := m.Load
	margin := sheetMargin
	if f.screen && f.width < sheetWidth {
		margin = figureMargin
	}
	x, w := margin, f.width-2*margin
	y := drawSheetHeader(d, p, m.Header, x, margin, w)
	y = drawSections(d, p, m.Sections, x, y+sheetGap-8, w)
	if len(m.Launch) > 0 {
		y = drawLaunch(d, p, m.Launch, x, y+sheetGap-12, w)
	}
	y = drawHeading(d, p, "Load test", "", x, y+sheetGap)
	y = drawNotes(d, p, append([]string{"Plan: " + l.Plan}, nonEmpty(l.Limit)...), x, y, w)
	y = drawHeading(d, p, "Latency against throughput", "p50 and p99 at the request throughput each rate reached · labelled with the offered rate", x, y+sheetGap-16)
	y = drawPanelPair(d, p, l.TTFT, l.ITL, x, y, w, loadSheetChartH)
	y = drawHeading(d, p, l.Goodput.Title, l.Goodput.Subtitle, x, y+sheetGap-8)
	drawLineChart(d, p, l.Goodput, x, y, w, loadSheetChartH-40)
	y += loadSheetChartH - 40
	y = drawHeading(d, p, l.Table.Title, "", x, y+sheetGap)
	y = drawTable(d, p, l.Table, x, y, w)
	y = drawFlags(d, p, l.Flags, x, y+8, w)
	d.height = math.Ceil(y + margin)
	return d
}

// drawPanelPair draws two charts side by side on the same left axis
// width, each under its title, h tall; it returns the y below.
func drawPanelPair(d *Drawing, p palette, a, b LineChart, x, y, w, h float64) float64 {
	const gap = 32.0
	half := (w - gap) / 2
	for i, c := range alignLeftAxes(a, b) {
		cx := x + float64(i)*(half+gap)
		d.text(cx, y+16, c.Title, textStyle{size: 15, font: fontBold, color: p.text})
		drawLineChart(d, p, c, cx, y+24, half, h)
	}
	return y + 24 + h
}

// nonEmpty is s as a list, empty when s is "".
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// alignLeftAxes gives charts drawn one above the other, or side by side,
// the same left axis width, so that their plots line up.
func alignLeftAxes(cs ...LineChart) []LineChart {
	w := 0.0
	for _, c := range cs {
		if len(c.Axes) > 0 {
			w = math.Max(w, maxTickWidth(c.Axes[0])+12)
		}
	}
	for i := range cs {
		cs[i].leftW = w
	}
	return cs
}
