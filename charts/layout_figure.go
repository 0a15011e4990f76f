package charts

import "math"

// Sizes of the standalone figures, in logical pixels.
const (
	figureWidth   = 1040.0
	figureMargin  = 32.0
	lineChartH    = 420.0
	figureBottomM = 24.0
	// On screen a line chart's plot fills the pane's height, within these.
	lineChartMinH = 260.0
	lineChartMaxH = 720.0
)

// layoutLineFigure is a line chart on its own: header, then the chart.
func layoutLineFigure(m Model, c LineChart, p palette, f frame) *Drawing {
	d := &Drawing{width: f.width, bg: p.bg}
	margin := f.margin(figureMargin)
	inner := f.width - 2*margin
	y := drawChartHeader(d, p, m, c.Title, c.Subtitle, margin, margin-8, inner)
	plotH := lineChartH
	if f.screen && f.height > 0 {
		notesH := drawChartNotes(&Drawing{}, p, c, margin, 0, inner)
		plotH = math.Max(lineChartMinH, math.Min(lineChartMaxH, math.Floor(f.height-y-8-notesH-figureBottomM)))
	}
	drawLineChart(d, p, c, margin, y+8, inner, plotH)
	y = drawChartNotes(d, p, c, margin, y+8+plotH, inner)
	d.height = y + figureBottomM
	return d
}

// layoutHeatmapFigure is the heatmap on its own.
func layoutHeatmapFigure(m Model, h HeatmapModel, p palette, f frame) *Drawing {
	d := &Drawing{width: f.width, bg: p.bg}
	margin := f.margin(figureMargin)
	inner := f.width - 2*margin
	y := drawChartHeader(d, p, m, h.Title, h.Subtitle, margin, margin-8, inner)
	g := exportHeat
	if f.screen {
		g = screenHeat(p, h, inner, f.height-(y+12)-figureBottomM)
	}
	y = drawHeatmap(d, p, h, margin, y+12, inner, g)
	d.height = y + figureBottomM
	return d
}

// heatFigureMinWidth is the narrowest pane the heatmap figure is laid out
// for: every column at its narrowest.
func heatFigureMinWidth(h HeatmapModel) float64 {
	return 2*16 + heatMinRowHeaderW + float64(max(1, len(h.Cols)))*heatMinCellW
}
