package charts

import "math"

// drawMissMark marks a cell that misses the SLO: a dot in its top right
// corner, in the failure colour with a white ring, so that it reads on
// every colour of the map and without telling colours apart.
func drawMissMark(d *Drawing, p palette, x, y, w, h float64) {
	r := math.Max(2, math.Min(5, math.Min(w, h)/5))
	d.circle(x+w-r-2, y+r+2, r, p.failedText, hex(0xffffff), math.Min(1.5, r/2.5))
}

// drawMissLegend explains the mark of drawMissMark beside a swatch, as the
// legend explains each status; it returns the y below (y when text is "").
func drawMissLegend(d *Drawing, p palette, text string, x, y, w float64) float64 {
	if text == "" {
		return y
	}
	d.roundRect(x, y, 30, 18, 5, p.panel, p.border, 1)
	drawMissMark(d, p, x, y, 30, 18)
	lines := wrapText(text, fontRegular, 12.5, w-42)
	for k, line := range lines {
		d.text(x+42, y+13+float64(k)*17, line, textStyle{size: 12.5, color: p.text})
	}
	return y + math.Max(26, float64(len(lines))*17+9)
}

// drawSLOSection is the sheet's SLO: its heading with the SLO's words,
// then the line per decode context; it returns the y below.
func drawSLOSection(d *Drawing, p palette, m SLOModel, x, y, w float64) float64 {
	y = drawHeading(d, p, "SLO", m.Text+" · the most simultaneous requests that meet it, per context", x, y)
	for _, l := range m.Lines {
		for _, line := range wrapText(l, fontRegular, 14, w) {
			d.text(x, y+16, line, textStyle{size: 14, color: p.text})
			y += 21
		}
		y += 4
	}
	return y
}
