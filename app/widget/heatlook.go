package widget

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// cellStyle is how a heatmap cell draws: fill, outline, text colour and
// main text.
type cellStyle struct {
	fill, stroke, ink color.Color
	strokeW           float32
	text              string
}

// cellLook is a cell's style. Waiting cells are tinted with the primary
// colour, Cancelled ones solid grey; a Not run cell, which the run
// never reached, is an empty outline; the cell being measured is outlined
// in the primary colour.
func cellLook(hc *heatCell, scale charts.ColorScale, idle string) cellStyle {
	fg := theme.Color(theme.ColorNameForeground)
	plain := func(fill, ink color.Color, text string) cellStyle { return cellStyle{fill: fill, ink: ink, text: text} }
	switch hc.Status {
	case engine.StatusValid:
		c := charts.Viridis(scale.Pos(hc.value))
		return plain(c, charts.TextOn(c), report.TokPerSec(hc.value))
	case engine.StatusOverCapacity:
		return plain(color.NRGBA{R: 0x9c, G: 0xa3, B: 0xaf, A: 0x40}, theme.Color(theme.ColorNamePlaceHolder), string(hc.Status))
	case engine.StatusLooped:
		return plain(color.NRGBA{R: 0xf5, G: 0x9e, B: 0x0b, A: 0x66}, fg, string(hc.Status))
	case engine.StatusFailed:
		return plain(color.NRGBA{R: 0xdc, G: 0x26, B: 0x26, A: 0x66}, fg, string(hc.Status))
	case engine.StatusCancelled:
		// Cut short by the user: a solid grey, as readable as a result.
		return plain(color.NRGBA{R: 0x6b, G: 0x72, B: 0x80, A: 0x99}, fg, string(hc.Status))
	case engine.StatusNotRun:
		ink := theme.Color(theme.ColorNamePlaceHolder)
		return cellStyle{fill: color.Transparent, stroke: ink, strokeW: 1, ink: ink, text: string(hc.Status)}
	}
	if hc.Running {
		return cellStyle{fill: pendingColor(), stroke: theme.Color(theme.ColorNamePrimary), strokeW: 2, ink: fg, text: "measuring…"}
	}
	return plain(pendingColor(), theme.Color(theme.ColorNamePlaceHolder), idle)
}

// pendingColor is a faint tint of the primary colour: a cell still to run.
func pendingColor() color.Color {
	r, g, b, _ := theme.Color(theme.ColorNamePrimary).RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x30}
}

// gridLayout is a grid of equal columns whose rows share the height, up to
// maxRowHeight each (a one-row matrix does not become a wall of colour).
type gridLayout struct {
	cols         int
	maxRowHeight float32
}

func (g *gridLayout) rows(n int) int { return (n + g.cols - 1) / g.cols }

// Layout places the objects row by row from the top.
func (g *gridLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	rows := g.rows(len(objs))
	if rows == 0 {
		return
	}
	pad := theme.Padding()
	w := (size.Width - pad*float32(g.cols-1)) / float32(g.cols)
	h := min((size.Height-pad*float32(rows-1))/float32(rows), g.maxRowHeight)
	for i, o := range objs {
		r, c := i/g.cols, i%g.cols
		o.Move(fyne.NewPos(float32(c)*(w+pad), float32(r)*(h+pad)))
		o.Resize(fyne.NewSize(w, h))
	}
}

// CellText centres a cell's figure (objs[0]) over its detail line
// (objs[1]); a figure wider than the cell is drawn smaller until it fits,
// down to the detail's size: cells at heatCellMinWidth are narrower than
// "will run" or "measuring…" at the figure's size (a Standard plan's eight
// columns at 1,024 px).
type CellText struct {
	Size float32 // the figure's size when it fits
}

// Layout fits the figure to the width, then centres both lines.
func (l *CellText) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	main, detail := objs[0].(*canvas.Text), objs[1].(*canvas.Text)
	room, fit := size.Width-2*theme.Padding(), l.Size
	if w := fyne.MeasureText(main.Text, l.Size, main.TextStyle).Width; w > room && room > 0 {
		fit = max(detail.TextSize, l.Size*room/w)
	}
	if main.TextSize != fit {
		main.TextSize = fit
		main.Refresh() // drawn again at its new size
	}
	mh, dh := main.MinSize().Height, detail.MinSize().Height
	if detail.Text == "" {
		dh = 0
	}
	y := max(0, (size.Height-mh-dh)/2)
	main.Move(fyne.NewPos(0, y))
	main.Resize(fyne.NewSize(size.Width, mh))
	detail.Move(fyne.NewPos(0, y+mh))
	detail.Resize(fyne.NewSize(size.Width, dh))
}

// MinSize is both lines at the figure's own size, one above the other.
func (l *CellText) MinSize(objs []fyne.CanvasObject) fyne.Size {
	main, detail := objs[0].(*canvas.Text), objs[1].(*canvas.Text)
	m := fyne.MeasureText(main.Text, l.Size, main.TextStyle)
	d := detail.MinSize()
	return fyne.NewSize(max(m.Width, d.Width), m.Height+d.Height)
}

// heatCellMinWidth caps what a cell asks for: a matrix of eight columns
// then fits a window 1,000 px wide, where its labels are still whole.
const heatCellMinWidth = 64

// MinSize is the widest (up to heatCellMinWidth) and tallest cell times
// the grid's dimensions.
func (g *gridLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var cell fyne.Size
	for _, o := range objs {
		cell = cell.Max(o.MinSize())
	}
	cell.Width = min(cell.Width, heatCellMinWidth)
	rows := g.rows(len(objs))
	pad := theme.Padding()
	return fyne.NewSize(cell.Width*float32(g.cols)+pad*float32(g.cols-1), cell.Height*float32(rows)+pad*float32(max(rows-1, 0)))
}

// underGrid lays a grid out from the top, no taller than its rows need
// (gridLayout caps them), with the objects below it (the colour key and
// the flags) right under its last row rather than at the bottom of the area.
type underGrid struct{ grid *gridLayout }

// Layout places objs[0], the grid, then objs[1], what goes under it.
func (l *underGrid) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	grid, below := objs[0], objs[1]
	pad := theme.Padding()
	belowH := below.MinSize().Height
	rows := l.grid.rows(len(grid.(*fyne.Container).Objects))
	need := float32(rows)*l.grid.maxRowHeight + pad*float32(max(rows-1, 0))
	gridH := max(min(size.Height-belowH-pad, need), grid.MinSize().Height)
	grid.Move(fyne.NewPos(0, 0))
	grid.Resize(fyne.NewSize(size.Width, gridH))
	below.Move(fyne.NewPos(0, gridH+pad))
	below.Resize(fyne.NewSize(size.Width, belowH))
}

// MinSize is the grid's and what is under it, one above the other.
func (l *underGrid) MinSize(objs []fyne.CanvasObject) fyne.Size {
	g, b := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(max(g.Width, b.Width), g.Height+theme.Padding()+b.Height)
}
