package charts

import (
	"image/color"
	"math"

	"speedmatrix/engine"
)

// Heatmap geometry, in logical pixels.
const (
	heatRowHeaderW = 64.0
	heatCellH      = 54.0
	heatCellMaxW   = 150.0
	heatBarW       = 14.0
	heatTop        = 42.0 // caption and column header above the cells
)

// drawHeatmap draws the grid, colour bar, legend and notes of h from
// (x, y) in a column w wide; it returns the y below.
func drawHeatmap(d *Drawing, p palette, h HeatmapModel, x, y, w float64) float64 {
	if len(h.Rows) == 0 || len(h.Cols) == 0 {
		d.roundRect(x, y, w, 120, 6, p.panel, p.border, 1)
		d.text(x+w/2, y+65, "No decode measurements in this run.", textStyle{size: 14, anchor: anchorMiddle, color: p.muted})
		return y + 120
	}
	barArea := 0.0
	if len(h.Scale.Ticks) > 0 {
		barArea = 28 + heatBarW + 8 + maxTickWidth(Axis{Ticks: h.Scale.Ticks})
	}
	cols := float64(max(1, len(h.Cols)))
	cw := math.Min(heatCellMaxW, (w-heatRowHeaderW-barArea)/cols)
	gx, gy := x+heatRowHeaderW, y+heatTop
	gridW, gridH := cw*cols, heatCellH*float64(len(h.Rows))
	d.text(gx+gridW/2, y+12, "simultaneous requests", textStyle{size: 11.5, anchor: anchorMiddle, color: p.muted})
	d.text(x, y+32, h.RowHeader, textStyle{size: 12, font: fontBold, color: p.muted})
	for j, c := range h.Cols {
		d.text(gx+cw*(float64(j)+0.5), y+32, c, textStyle{size: 12.5, font: fontBold, anchor: anchorMiddle, color: p.text})
	}
	for i, row := range h.Cells {
		cy := gy + heatCellH*float64(i)
		d.text(gx-12, cy+heatCellH/2+4.5, h.Rows[i], textStyle{size: 12.5, font: fontBold, anchor: anchorEnd, color: p.text})
		for j, cell := range row {
			drawHeatCell(d, p, h.Scale, cell, gx+cw*float64(j), cy, cw, heatCellH)
		}
	}
	if barArea > 0 {
		drawColorBar(d, p, h.Scale, gx+gridW+28, gy, math.Max(gridH, 120))
	}
	return drawHeatLegend(d, p, h, x, gy+math.Max(gridH, 120)+14, w)
}

func scaleStops(s ColorScale) []color.NRGBA {
	if s.Diverging {
		return divergingStops
	}
	return viridisStops
}

// drawHeatCell draws one cell inset by 2 px, so cells read as tiles.
func drawHeatCell(d *Drawing, p palette, s ColorScale, c HeatCell, x, y, w, h float64) {
	x, y, w, h = x+2, y+2, w-4, h-4
	if c.Status == engine.StatusValid {
		fill := colorAt(scaleStops(s), c.Pos)
		fg := TextOn(fill)
		d.roundRect(x, y, w, h, 5, fill, color.NRGBA{}, 0)
		d.text(x+w/2, y+h/2+1, c.Text, textStyle{size: 15, font: fontBold, anchor: anchorMiddle, color: fg})
		d.text(x+w/2, y+h/2+16, c.Detail, textStyle{size: 11, anchor: anchorMiddle, color: withAlpha(fg, 0.86)})
		return
	}
	fg := drawStatusTile(d, p, c.Status, x, y, w, h)
	lines := wrapText(c.Text, fontBold, 12, w-10)
	top := y + h/2 + 4.5 - float64(len(lines)-1)*7.5
	for k, l := range lines {
		d.text(x+w/2, top+float64(k)*15, l, textStyle{size: 12, font: fontBold, anchor: anchorMiddle, color: fg})
	}
}

// drawStatusTile draws the background of a cell without figures: grey for
// Over capacity, hatched for Looped and Failed, outlined for the rest. It
// returns the colour of the text on it.
func drawStatusTile(d *Drawing, p palette, s engine.Status, x, y, w, h float64) color.NRGBA {
	switch s {
	case engine.StatusOverCapacity:
		d.roundRect(x, y, w, h, 5, p.over, color.NRGBA{}, 0)
		return p.overText
	case engine.StatusLooped:
		d.roundRect(x, y, w, h, 5, p.looped, color.NRGBA{}, 0)
		hatch(d, x, y, w, h, 7, p.loopedHatch, 1.5)
		return p.loopedText
	case engine.StatusFailed:
		d.roundRect(x, y, w, h, 5, p.failed, color.NRGBA{}, 0)
		hatch(d, x, y, w, h, 5, p.failedHatch, 1.5)
		return p.failedText
	case engine.StatusCancelled:
		d.roundRect(x, y, w, h, 5, p.panel, color.NRGBA{}, 0)
		d.polyline([]pt{{x + 1, y + 1}, {x + w - 1, y + 1}, {x + w - 1, y + h - 1}, {x + 1, y + h - 1}, {x + 1, y + 1}}, p.axis, 1.2, true)
		return p.pendingText
	}
	d.roundRect(x+0.5, y+0.5, w-1, h-1, 5, p.bg, p.border, 1)
	return p.pendingText
}

// hatch draws 45° stripes every gap px inside a rectangle, inset a little
// so they stay clear of its rounded corners.
func hatch(d *Drawing, x, y, w, h, gap float64, c color.NRGBA, width float64) {
	x, y, w, h = x+2, y+2, w-4, h-4
	for k := -h + math.Mod(w, gap)/2; k < w; k += gap {
		t0, t1 := math.Max(0, -k), math.Min(h, w-k)
		if t1-t0 < 1 {
			continue
		}
		d.line(x+k+t0, y+h-t0, x+k+t1, y+h-t1, c, width)
	}
}

// drawColorBar draws the gradient with its ticks and label.
func drawColorBar(d *Drawing, p palette, s ColorScale, x, y, h float64) {
	d.text(x-4, y-10, s.Label, textStyle{size: 11.5, font: fontBold, color: p.muted})
	d.gradient(x, y, heatBarW, h, scaleStops(s))
	d.roundRect(x, y, heatBarW, h, 0, color.NRGBA{}, withAlpha(p.text, 0.15), 1)
	for _, t := range s.Ticks {
		ty := y + h - s.Pos(t.Value)*h
		d.line(x+heatBarW, ty, x+heatBarW+4, ty, p.muted, 1)
		d.text(x+heatBarW+8, ty+4, t.Label, textStyle{size: 11.5, color: p.muted})
	}
}

// drawHeatLegend explains each status drawn, with a swatch, then the notes
// and the flagged cells.
func drawHeatLegend(d *Drawing, p palette, h HeatmapModel, x, y, w float64) float64 {
	for _, l := range h.Legend {
		fg := drawStatusTile(d, p, l.Status, x, y, 30, 18)
		_ = fg
		lines := wrapText(l.Note, fontRegular, 12.5, w-42)
		for k, line := range lines {
			d.text(x+42, y+13+float64(k)*17, line, textStyle{size: 12.5, color: p.text})
		}
		y += math.Max(26, float64(len(lines))*17+9)
	}
	y = drawNotes(d, p, h.Notes, x, y, w)
	return drawFlags(d, p, h.Flags, x, y, w)
}
