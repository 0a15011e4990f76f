package charts

import "speedmatrix/engine/report"

// drawNotes draws lines of prose under a chart, wrapped to w, in the muted
// colour; it returns the y below.
func drawNotes(d *Drawing, p palette, notes []string, x, y, w float64) float64 {
	for _, n := range notes {
		for _, line := range wrapText(n, fontRegular, 12.5, w) {
			d.text(x, y+13, line, textStyle{size: 12.5, color: p.muted})
			y += 17
		}
		y += 6
	}
	return y
}

// drawFlags lists the flagged cells of a chart (report.FlagLines), each
// line after the flag marker in the warning colour; it returns the y below.
func drawFlags(d *Drawing, p palette, flags []string, x, y, w float64) float64 {
	const indent = 16.0
	for _, f := range flags {
		d.text(x, y+13, report.FlagMarker, textStyle{size: 12.5, font: fontBold, color: p.loopedText})
		for _, line := range wrapText(f, fontRegular, 12.5, w-indent) {
			d.text(x+indent, y+13, line, textStyle{size: 12.5, color: p.text})
			y += 17
		}
		y += 4
	}
	return y
}

// drawChartNotes draws a line chart's notes and flags below it, from y;
// it returns the y below, or y when there are none.
func drawChartNotes(d *Drawing, p palette, c LineChart, x, y, w float64) float64 {
	if len(c.Notes) == 0 && len(c.Flags) == 0 {
		return y
	}
	y = drawNotes(d, p, c.Notes, x, y+10, w)
	return drawFlags(d, p, c.Flags, x, y, w)
}
