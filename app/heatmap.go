package app

import (
	"image/color"
	"math"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// heatCell is one square of a heatmap: its state and what it draws.
type heatCell struct {
	status  engine.Status // "" while waiting
	value   float64       // total tok/s when Valid
	ttftMs  float64
	running bool
	bg      *canvas.Rectangle
	main    *canvas.Text
	detail  *canvas.Text
}

// heatmap is the decode matrix drawn live with Fyne objects: one row per
// context, one column per concurrency level, coloured by total tok/s.
type heatmap struct {
	contexts, concurrency []int
	cells                 map[[2]int]*heatCell // [context, concurrency]
	box                   *fyne.Container
	idleText              string // what a cell waiting to run shows
}

func newHeatmap(idleText string) *heatmap {
	return &heatmap{box: container.NewStack(), cells: map[[2]int]*heatCell{}, idleText: idleText}
}

// object is the heatmap's canvas object.
func (h *heatmap) object() fyne.CanvasObject { return h.box }

// setAxes lays the grid out again for these contexts and concurrency
// levels, keeping the state of the cells that remain.
func (h *heatmap) setAxes(contexts, concurrency []int) {
	h.contexts, h.concurrency = slices.Clone(contexts), slices.Clone(concurrency)
	old := h.cells
	h.cells = map[[2]int]*heatCell{}
	if len(contexts) == 0 || len(concurrency) == 0 {
		h.box.Objects = nil
		h.box.Refresh()
		return
	}
	head := container.NewGridWithColumns(len(concurrency) + 1)
	head.Add(axisText("Context", fyne.TextAlignCenter))
	for _, c := range concurrency {
		head.Add(axisText(strconv.Itoa(c), fyne.TextAlignCenter))
	}
	grid := container.New(&gridLayout{cols: len(concurrency) + 1, maxRowHeight: 96})
	for _, ctx := range contexts {
		grid.Add(axisText(engine.ContextLabel(ctx), fyne.TextAlignCenter))
		for _, c := range concurrency {
			hc := &heatCell{bg: canvas.NewRectangle(pendingColor())}
			if o := old[[2]int{ctx, c}]; o != nil {
				hc.status, hc.value, hc.ttftMs, hc.running = o.status, o.value, o.ttftMs, o.running
			}
			hc.bg.CornerRadius = 4
			hc.main = canvas.NewText("", theme.Color(theme.ColorNameForeground))
			hc.main.Alignment = fyne.TextAlignCenter
			hc.main.TextStyle = fyne.TextStyle{Bold: true}
			hc.main.TextSize = theme.TextSize() + 1
			hc.detail = canvas.NewText("", theme.Color(theme.ColorNameForeground))
			hc.detail.Alignment = fyne.TextAlignCenter
			hc.detail.TextSize = theme.CaptionTextSize()
			text := container.NewVBox(layout.NewSpacer(), hc.main, hc.detail, layout.NewSpacer())
			h.cells[[2]int{ctx, c}] = hc
			grid.Add(container.NewStack(hc.bg, text))
		}
	}
	h.box.Objects = []fyne.CanvasObject{container.NewBorder(head, nil, nil, nil, grid)}
	h.box.Refresh()
}

func axisText(s string, align fyne.TextAlign) fyne.CanvasObject {
	t := canvas.NewText(s, theme.Color(theme.ColorNameForeground))
	t.Alignment = align
	t.TextStyle = fyne.TextStyle{Bold: true}
	return container.NewVBox(layout.NewSpacer(), t, layout.NewSpacer())
}

// label is the text a cell shows, both lines joined (tests read it).
func (hc *heatCell) label() string {
	if hc.detail.Text == "" {
		return hc.main.Text
	}
	return hc.main.Text + " " + hc.detail.Text
}

// cell returns the cell at ctx × concurrency, or nil.
func (h *heatmap) cell(ctx, concurrency int) *heatCell { return h.cells[[2]int{ctx, concurrency}] }

// setPlanned marks a cell as waiting, or as Over capacity before the run.
func (h *heatmap) setPlanned(ctx, concurrency int, over bool) {
	hc := h.cell(ctx, concurrency)
	if hc == nil {
		return
	}
	hc.status, hc.value, hc.running = "", 0, false
	if over {
		hc.status = engine.StatusOverCapacity
	}
}

// setRunning highlights the cell being measured (and no other).
func (h *heatmap) setRunning(ctx, concurrency int) {
	for k, hc := range h.cells {
		hc.running = k == [2]int{ctx, concurrency} && hc.status == ""
	}
}

// setResult records a finished decode cell, adding its row or column when
// the engine fitted the plan to the server (128K measured as 123K).
func (h *heatmap) setResult(r engine.Result) {
	if r.Phase != engine.PhaseDecode {
		return
	}
	if h.cell(r.ContextTokens, r.Concurrency) == nil {
		h.setAxes(sortedUnion(h.contexts, r.ContextTokens), sortedUnion(h.concurrency, r.Concurrency))
	}
	hc := h.cell(r.ContextTokens, r.Concurrency)
	hc.status, hc.value, hc.ttftMs, hc.running = r.Status, r.TotalTokPerSec, r.TTFTMs, false
}

// dropEmptyRows removes the rows without any finished cell (contexts the
// engine replaced by a fitted one).
func (h *heatmap) dropEmptyRows() {
	var keep []int
	for _, ctx := range h.contexts {
		for _, c := range h.concurrency {
			if st := h.cell(ctx, c).status; st != "" {
				keep = append(keep, ctx)
				break
			}
		}
	}
	if len(keep) > 0 && len(keep) != len(h.contexts) {
		h.setAxes(keep, h.concurrency)
	}
}

func sortedUnion(v []int, n int) []int {
	out := append(slices.Clone(v), n)
	slices.Sort(out)
	return slices.Compact(out)
}

// redraw recolours every cell on a scale from the slowest to the fastest
// valid cell, and refreshes the texts.
func (h *heatmap) redraw() {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, hc := range h.cells {
		if hc.status == engine.StatusValid && hc.value > 0 {
			lo, hi = math.Min(lo, hc.value), math.Max(hi, hc.value)
		}
	}
	for _, hc := range h.cells {
		fill, ink, text := cellLook(hc, lo, hi, h.idleText)
		hc.bg.FillColor = fill
		hc.bg.StrokeWidth = 0
		if hc.running {
			hc.bg.StrokeWidth = 2
			hc.bg.StrokeColor = theme.Color(theme.ColorNamePrimary)
		}
		hc.main.Text, hc.main.Color, hc.detail.Color = text, ink, ink
		hc.detail.Text = ""
		switch hc.status {
		case engine.StatusValid:
			hc.detail.Text = report.Millis(hc.ttftMs) + " TTFT"
		case engine.StatusOverCapacity:
			// Two lines keep the columns narrow enough for 8 levels at 1280 px.
			hc.main.Text, hc.detail.Text = "Over", "capacity"
		}
		hc.bg.Refresh()
		hc.main.Refresh()
		hc.detail.Refresh()
	}
}

// cellLook is a cell's fill, text colour and main text.
func cellLook(hc *heatCell, lo, hi float64, idle string) (fill, ink color.Color, text string) {
	fg := theme.Color(theme.ColorNameForeground)
	switch hc.status {
	case engine.StatusValid:
		pos := 1.0
		if hi > lo {
			pos = (math.Log(hc.value) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
		}
		c := viridis(pos)
		return c, inkOn(c), report.TokPerSec(hc.value)
	case engine.StatusOverCapacity:
		return color.NRGBA{R: 0x9c, G: 0xa3, B: 0xaf, A: 0x40}, theme.Color(theme.ColorNamePlaceHolder), string(hc.status)
	case engine.StatusLooped:
		return color.NRGBA{R: 0xf5, G: 0x9e, B: 0x0b, A: 0x66}, fg, string(hc.status)
	case engine.StatusFailed:
		return color.NRGBA{R: 0xdc, G: 0x26, B: 0x26, A: 0x66}, fg, string(hc.status)
	case engine.StatusCancelled:
		return pendingColor(), theme.Color(theme.ColorNameDisabled), string(hc.status)
	}
	if hc.running {
		return pendingColor(), fg, "measuring…"
	}
	return pendingColor(), theme.Color(theme.ColorNamePlaceHolder), idle
}

// pendingColor is a faint tint of the primary colour: a cell still to run.
func pendingColor() color.Color {
	r, g, b, _ := theme.Color(theme.ColorNamePrimary).RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x30}
}

// viridisStops are matplotlib's viridis at 0, 0.125, …, 1.
var viridisStops = [...]color.NRGBA{
	{0x44, 0x01, 0x54, 0xff}, {0x47, 0x2d, 0x7b, 0xff}, {0x3b, 0x52, 0x8b, 0xff},
	{0x2c, 0x72, 0x8e, 0xff}, {0x21, 0x91, 0x8c, 0xff}, {0x28, 0xae, 0x80, 0xff},
	{0x5e, 0xc9, 0x62, 0xff}, {0xad, 0xdc, 0x30, 0xff}, {0xfd, 0xe7, 0x25, 0xff},
}

// viridis maps pos in [0, 1] onto the viridis colour map.
func viridis(pos float64) color.NRGBA {
	pos = math.Max(0, math.Min(1, pos))
	f := pos * float64(len(viridisStops)-1)
	i := int(f)
	if i >= len(viridisStops)-1 {
		return viridisStops[len(viridisStops)-1]
	}
	a, b, t := viridisStops[i], viridisStops[i+1], f-float64(i)
	mix := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*t + 0.5) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 0xff}
}

// inkOn is black or white, whichever reads better on c.
func inkOn(c color.NRGBA) color.Color {
	lum := 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
	if lum > 140 {
		return color.Black
	}
	return color.White
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

// MinSize is the widest and tallest cell times the grid's dimensions.
func (g *gridLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var cell fyne.Size
	for _, o := range objs {
		cell = cell.Max(o.MinSize())
	}
	rows := g.rows(len(objs))
	pad := theme.Padding()
	return fyne.NewSize(cell.Width*float32(g.cols)+pad*float32(g.cols-1), cell.Height*float32(rows)+pad*float32(max(rows-1, 0)))
}
