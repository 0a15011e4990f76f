package charts

import (
	"image/color"
	"math"
	"strings"

	"speedmatrix/engine"
)

// Heatmap geometry, in logical pixels.
const (
	heatRowHeaderW = 64.0
	heatCellH      = 54.0
	heatCellMaxW   = 150.0
	heatBarW       = 14.0
	heatTop        = 42.0 // caption and column header above the cells
	// The smallest sizes at which a cell that fits its text (fitText)
	// draws its figure and its detail: what must fit a cell's width.
	heatTextMinSize   = 11.0
	heatDetailMinSize = 9.5
)

// heatGeom is how a heatmap's grid is sized, in logical pixels.
type heatGeom struct {
	rowHeaderW float64 // the column of row labels
	cellH      float64
	cellMaxW   float64
	// barBelow lays the colour bar under the grid, across it: a narrow
	// pane has no room for it beside the grid.
	barBelow bool
	// fitText shrinks a cell's text, or breaks its detail after the arrow,
	// where it is wider than the cell. On screen only: exports keep the
	// reference layout.
	fitText bool
	// bare draws each cell as a tile of colour without its text, the
	// export of a grid whose cells are too narrow for it (see tilesFor).
	bare bool
}

// heatTileMinH is the shortest row of a bare grid: its label still fits.
const heatTileMinH = 14.0

// tilesFor is g for an export grid of cells cw wide: one too narrow for
// a cell's figure (more than about 16 concurrency levels) is drawn bare,
// its rows as tall as its cells are wide, at least heatTileMinH, so that a
// matrix of many cells reads as a heatmap; report.md has every figure.
func (g heatGeom) tilesFor(cw float64) heatGeom {
	if g.fitText || cw >= heatMinCellW {
		return g
	}
	g.bare = true
	g.cellH = math.Max(heatTileMinH, math.Min(g.cellH, cw))
	return g
}

// exportHeat is the geometry of every exported heatmap.
var exportHeat = heatGeom{rowHeaderW: heatRowHeaderW, cellH: heatCellH, cellMaxW: heatCellMaxW}

// Limits of the heatmap's geometry on screen.
const (
	heatMinRowHeaderW  = 48.0
	heatMinCellW       = 52.0
	heatWideCellW      = 84.0 // narrower cells move the colour bar under the grid
	heatScreenCellMaxW = 170.0
	heatMinCellH       = 40.0
	heatWrapCellH      = 54.0 // a cell whose detail takes two lines
	heatBarBelowH      = 50.0 // caption, bar and tick labels under the grid
)

// screenHeat sizes h's grid for a column w wide on screen, its rows
// sharing availH (0: the export's row height).
func screenHeat(p palette, h HeatmapModel, w, availH float64) heatGeom {
	g := heatGeom{rowHeaderW: heatRowHeaderW, cellH: heatCellH, cellMaxW: heatScreenCellMaxW, fitText: true}
	cols := float64(max(1, len(h.Cols)))
	if (w-heatRowHeaderW-colorBarArea(h.Scale))/cols < heatWideCellW {
		g.barBelow = true
		g.rowHeaderW = heatMinRowHeaderW
		for _, r := range h.Rows {
			g.rowHeaderW = math.Max(g.rowHeaderW, textWidth(r, fontBold, 12.5)+16)
		}
	}
	cw := math.Min(g.cellMaxW, (w-g.rowHeaderW-g.barArea(h.Scale))/cols)
	minH := heatMinCellH
	for _, row := range h.Cells {
		for _, c := range row {
			if len(detailLines(c.Detail, cw-10)) > 1 {
				minH = heatWrapCellH
			}
		}
	}
	if availH > 0 && len(h.Rows) > 0 {
		other := heatTop + drawHeatLegend(&Drawing{}, p, h, 0, 0, w) + 14
		if g.barBelow {
			other += heatBarBelowH
		}
		g.cellH = math.Max(minH, math.Min(heatCellH, math.Floor((availH-other)/float64(len(h.Rows)))))
	}
	return g
}

// colorBarArea is the width the colour bar takes beside the grid.
func colorBarArea(s ColorScale) float64 {
	if len(s.Ticks) == 0 {
		return 0
	}
	return 28 + heatBarW + 8 + maxTickWidth(Axis{Ticks: s.Ticks})
}

// cellWidth is how wide drawHeatmap draws each cell of h in a column w
// wide: the grid shares what the row labels and the colour bar leave.
func (g heatGeom) cellWidth(h HeatmapModel, w float64) float64 {
	return math.Min(g.cellMaxW, (w-g.rowHeaderW-g.barArea(h.Scale))/float64(max(1, len(h.Cols))))
}

func (g heatGeom) barArea(s ColorScale) float64 {
	if g.barBelow {
		return 0
	}
	return colorBarArea(s)
}

// drawHeatmap draws the grid, colour bar, legend and notes of h from
// (x, y) in a column w wide; it returns the y below.
func drawHeatmap(d *Drawing, p palette, h HeatmapModel, x, y, w float64, g heatGeom) float64 {
	if len(h.Rows) == 0 || len(h.Cols) == 0 {
		d.roundRect(x, y, w, 120, 6, p.panel, p.border, 1)
		d.text(x+w/2, y+65, "No decode measurements in this run.", textStyle{size: 14, anchor: anchorMiddle, color: p.muted})
		return y + 120
	}
	barArea := g.barArea(h.Scale)
	cols := float64(max(1, len(h.Cols)))
	cw := g.cellWidth(h, w)
	g = g.tilesFor(cw)
	gx, gy := x+g.rowHeaderW, y+heatTop
	gridW, gridH := cw*cols, g.cellH*float64(len(h.Rows))
	d.text(gx+gridW/2, y+12, "simultaneous requests", textStyle{size: 11.5, anchor: anchorMiddle, color: p.muted})
	d.text(x, y+32, h.RowHeader, textStyle{size: 12, font: fontBold, color: p.muted})
	every := labelEvery(h.Cols, cw)
	for j, c := range h.Cols {
		if j%every == 0 {
			d.text(gx+cw*(float64(j)+0.5), y+32, c, textStyle{size: 12.5, font: fontBold, anchor: anchorMiddle, color: p.text})
		}
	}
	for i, row := range h.Cells {
		cy := gy + g.cellH*float64(i)
		d.text(gx-12, cy+g.cellH/2+4.5, h.Rows[i], textStyle{size: 12.5, font: fontBold, anchor: anchorEnd, color: p.text})
		for j, cell := range row {
			drawHeatCell(d, p, h.Scale, cell, gx+cw*float64(j), cy, cw, g.cellH, g)
		}
	}
	if g.barBelow {
		bottom := gy + gridH
		if len(h.Scale.Ticks) > 0 {
			bottom = drawColorBarBelow(d, p, h.Scale, gx, bottom+12, math.Min(gridW, 420))
		}
		return drawHeatLegend(d, p, h, x, bottom+14, w)
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

// labelEvery is how many columns apart the labels of columns cw wide are
// drawn, so that none overlaps the next: 1 when every one fits.
func labelEvery(labels []string, cw float64) int {
	widest := 0.0
	for _, l := range labels {
		widest = math.Max(widest, textWidth(l, fontBold, 12.5))
	}
	return max(1, int(math.Ceil((widest+6)/cw)))
}

// drawHeatCell draws one cell inset by 2 px, so cells read as tiles: bare,
// or with its text, which shrinks to the cell with fitText (see heatGeom).
func drawHeatCell(d *Drawing, p palette, s ColorScale, c HeatCell, x, y, w, h float64, g heatGeom) {
	if g.bare {
		inset := math.Min(2, w/8)
		x, y, w, h = x+inset, y+inset, w-2*inset, h-2*inset
		if c.Status != engine.StatusValid {
			drawStatusTile(d, p, c.Status, x, y, w, h)
			return
		}
		d.roundRect(x, y, w, h, math.Min(5, w/3), colorAt(scaleStops(s), c.Pos), color.NRGBA{}, 0)
		if c.Miss {
			drawMissMark(d, p, x, y, w, h)
		}
		return
	}
	fit := g.fitText
	x, y, w, h = x+2, y+2, w-4, h-4
	if c.Status == engine.StatusValid {
		fill := colorAt(scaleStops(s), c.Pos)
		fg := TextOn(fill)
		d.roundRect(x, y, w, h, 5, fill, color.NRGBA{}, 0)
		if c.Miss {
			drawMissMark(d, p, x, y, w, h)
		}
		if !fit {
			d.text(x+w/2, y+h/2+1, c.Text, textStyle{size: 15, font: fontBold, anchor: anchorMiddle, color: fg})
			d.text(x+w/2, y+h/2+16, c.Detail, textStyle{size: 11, anchor: anchorMiddle, color: withAlpha(fg, 0.86)})
			return
		}
		details := detailLines(c.Detail, w-6)
		detailSize := 11.0
		for _, l := range details {
			detailSize = math.Min(detailSize, fitSize(l, fontRegular, 11, heatDetailMinSize, w-6))
		}
		top := y + h/2 + 1 - 6.5*float64(len(details)-1)
		d.text(x+w/2, top, c.Text, textStyle{size: fitSize(c.Text, fontBold, 15, heatTextMinSize, w-8), font: fontBold, anchor: anchorMiddle, color: fg})
		for k, l := range details {
			d.text(x+w/2, top+15+float64(k)*(detailSize+2), l, textStyle{size: detailSize, anchor: anchorMiddle, color: withAlpha(fg, 0.86)})
		}
		return
	}
	fg := drawStatusTile(d, p, c.Status, x, y, w, h)
	size := 12.0
	if fit {
		for _, word := range strings.Fields(c.Text) {
			size = math.Min(size, fitSize(word, fontBold, 12, 9.5, w-6))
		}
	}
	width := w - 10
	if fit {
		width = w - 6
	}
	lines := wrapText(c.Text, fontBold, size, width)
	lh := size * 1.25
	// A status cell's detail (a sweep's "no difference": who led, by how
	// little) goes under its words, smaller.
	var details []string
	if c.Detail != "" {
		details = detailLines(c.Detail, width)
	}
	const detailLH = 13.0
	top := y + h/2 + size*0.375 - float64(len(lines)-1)*lh/2 - float64(len(details))*detailLH/2
	for k, l := range lines {
		d.text(x+w/2, top+float64(k)*lh, l, textStyle{size: size, font: fontBold, anchor: anchorMiddle, color: fg})
	}
	for k, l := range details {
		ds := fitSize(l, fontRegular, 10.5, heatDetailMinSize, width)
		d.text(x+w/2, top+float64(len(lines)-1)*lh+detailLH*float64(k+1), l, textStyle{size: ds, anchor: anchorMiddle, color: withAlpha(fg, 0.8)})
	}
}

// detailLines is a cell's detail as drawn in width w: one line, or two
// broken after the arrow of "195.5 → 201.0" or the colon of "baseline:
// Over capacity" when one is too wide.
func detailLines(detail string, w float64) []string {
	if detail == "" {
		return nil
	}
	if textWidth(detail, fontRegular, 11) > w {
		for _, sep := range []string{" → ", ": "} {
			if a, b, ok := strings.Cut(detail, sep); ok {
				return []string{a + strings.TrimRight(sep, " "), b}
			}
		}
	}
	return []string{detail}
}

// fitSize is the largest font size from size down to minSize at which s
// fits in w (minSize when none does).
func fitSize(s string, kind fontKind, size, minSize, w float64) float64 {
	tw := textWidth(s, kind, size)
	if tw <= w || tw == 0 {
		return size
	}
	return math.Max(minSize, math.Floor(size*w/tw*2)/2)
}

// drawStatusTile draws the background of a cell without figures: grey for
// Over capacity, hatched for Looped and Failed, the key's middle outlined
// for a sweep's No difference, outlined for the rest. It
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
	case statusNoDifference:
		// The middle of the comparison's key, "no change", outlined: a
		// neutral tile that no gain colours.
		fill := colorAt(divergingStops, 0.5)
		d.roundRect(x+0.5, y+0.5, w-1, h-1, 5, fill, p.axis, 1.2)
		return TextOn(fill)
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

// drawColorBarBelow draws the gradient across w from (x, y), under a
// grid: its label, the bar, then the ticks; it returns the y below.
func drawColorBarBelow(d *Drawing, p palette, s ColorScale, x, y, w float64) float64 {
	const barH = 10.0
	lw := d.text(x, y+barH-1, s.Label, textStyle{size: 11.5, font: fontBold, color: p.muted})
	bx := x + lw + 10
	// The last tick's label is centred on the bar's end: it needs half its
	// width beyond, inside w.
	last := 0.0
	if n := len(s.Ticks); n > 0 {
		last = textWidth(s.Ticks[n-1].Label, fontRegular, 11.5) / 2
	}
	bw := math.Max(80, w-lw-10-last)
	// Bands of 2 px: every renderer draws rectangles (see the SVG gradient).
	n := max(2, int(bw/2))
	stops := scaleStops(s)
	for k := 0; k < n; k++ {
		x0, x1 := bx+bw*float64(k)/float64(n), bx+bw*float64(k+1)/float64(n)
		d.rect(x0, y, x1-x0, barH, colorAt(stops, (float64(k)+0.5)/float64(n)))
	}
	d.roundRect(bx, y, bw, barH, 0, color.NRGBA{}, withAlpha(p.text, 0.15), 1)
	for _, t := range s.Ticks {
		tx := bx + s.Pos(t.Value)*bw
		d.line(tx, y+barH, tx, y+barH+4, p.muted, 1)
		d.text(tx, y+barH+17, t.Label, textStyle{size: 11.5, anchor: anchorMiddle, color: p.muted})
	}
	return y + barH + 22
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
	y = drawMissLegend(d, p, h.SLOMiss, x, y, w)
	y = drawNotes(d, p, h.Notes, x, y, w)
	return drawFlags(d, p, h.Flags, x, y, w)
}
