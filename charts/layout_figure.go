package charts

// Sizes of the standalone figures, in logical pixels.
const (
	figureWidth   = 1040.0
	figureMargin  = 32.0
	lineChartH    = 420.0
	figureBottomM = 24.0
)

// layoutLineFigure is a line chart on its own: header, then the chart.
func layoutLineFigure(m Model, c LineChart, p palette) *Drawing {
	d := &Drawing{width: figureWidth, bg: p.bg}
	inner := figureWidth - 2*figureMargin
	y := drawChartHeader(d, p, m, c.Title, c.Subtitle, figureMargin, figureMargin-8, inner)
	drawLineChart(d, p, c, figureMargin, y+8, inner, lineChartH)
	y = drawChartNotes(d, p, c, figureMargin, y+8+lineChartH, inner)
	d.height = y + figureBottomM
	return d
}

// layoutHeatmapFigure is the heatmap on its own.
func layoutHeatmapFigure(m Model, h HeatmapModel, p palette) *Drawing {
	d := &Drawing{width: figureWidth, bg: p.bg}
	inner := figureWidth - 2*figureMargin
	y := drawChartHeader(d, p, m, h.Title, h.Subtitle, figureMargin, figureMargin-8, inner)
	y = drawHeatmap(d, p, h, figureMargin, y+12, inner)
	d.height = y + figureBottomM
	return d
}
