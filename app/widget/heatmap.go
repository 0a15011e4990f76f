package widget

import (
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// heatCell is one square of a heatmap: its state and what it draws.
type heatCell struct {
	Status  engine.Status // "" while waiting
	value   float64       // total tok/s when Valid
	ttftMs  float64
	Running bool
	result  engine.Result // the finished cell, for its flags
	Bg      *canvas.Rectangle
	Main    *canvas.Text
	Detail  *canvas.Text
	Text    *fyne.Container // main over detail (cellText)
}

// Heatmap is the decode matrix drawn live with Fyne objects: one row per
// context, one column per concurrency level, coloured by total tok/s on
// the exported Heatmap's colour map and scale, with its colour key under
// the grid.
// A flagged cell carries report.FlagMarker; the flags are listed under the
// key.
type Heatmap struct {
	Contexts, Concurrency []int
	Cells                 map[[2]int]*heatCell // [context, concurrency]
	box                   *fyne.Container
	Legend                *colorLegend
	Flags                 *widget.Label // one line per flagged cell
	IdleText              string        // what a cell waiting to run shows
	// Mode chooses the colouring: total tok/s, % of roofline (heatroofline.go)
	// or the SLO (slo_view.go).
	Mode *widget.RadioGroup
	// Slo judges the cells (off: the zero SLO); sloKey says what the SLO
	// view shows.
	Slo    engine.SLO
	SloKey *widget.Label
	// Details are the figures of the cell last tapped (chosen), under the grid.
	Details *widget.Label
	chosen  [2]int
}

// NewHeatmap is a heatmap without cells; idleText is what a cell waiting
// to run shows.
func NewHeatmap(idleText string) *Heatmap {
	flags := widget.NewLabel("")
	flags.Wrapping = fyne.TextWrapWord
	flags.Hide()
	details := widget.NewLabel("")
	details.Wrapping = fyne.TextWrapWord
	details.Hide()
	h := &Heatmap{box: container.NewStack(), Cells: map[[2]int]*heatCell{}, Legend: newColorLegend(), Flags: flags, IdleText: idleText,
		SloKey: sloKeyLabel(), Details: details}
	h.Mode = NewHeatMode(h.Redraw)
	return h
}

// Object is the heatmap's canvas object.
func (h *Heatmap) Object() fyne.CanvasObject { return h.box }

// SetAxes lays the grid out again for these contexts and concurrency
// levels, keeping the state of the cells that remain.
func (h *Heatmap) SetAxes(contexts, concurrency []int) {
	h.Contexts, h.Concurrency = slices.Clone(contexts), slices.Clone(concurrency)
	old := h.Cells
	h.Cells = map[[2]int]*heatCell{}
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
			hc := &heatCell{Bg: canvas.NewRectangle(pendingColor())}
			if o := old[[2]int{ctx, c}]; o != nil {
				hc.Status, hc.value, hc.ttftMs, hc.Running, hc.result = o.Status, o.value, o.ttftMs, o.Running, o.result
			}
			hc.Bg.CornerRadius = 4
			hc.Main = canvas.NewText("", theme.Color(theme.ColorNameForeground))
			hc.Main.Alignment = fyne.TextAlignCenter
			hc.Main.TextStyle = fyne.TextStyle{Bold: true}
			hc.Main.TextSize = theme.TextSize() + 1
			hc.Detail = canvas.NewText("", theme.Color(theme.ColorNameForeground))
			hc.Detail.Alignment = fyne.TextAlignCenter
			hc.Detail.TextSize = theme.CaptionTextSize()
			hc.Text = container.New(&CellText{Size: hc.Main.TextSize}, hc.Main, hc.Detail)
			key := [2]int{ctx, c}
			h.Cells[key] = hc
			grid.Add(newTapArea(container.NewStack(hc.Bg, hc.Text), func() { h.ShowDetails(key) }))
		}
	}
	below := container.NewVBox(h.Legend.Object(), h.SloKey, h.Flags, h.Details)
	body := container.New(&underGrid{grid: grid.Layout.(*gridLayout)}, grid, below)
	h.box.Objects = []fyne.CanvasObject{container.NewBorder(container.NewVBox(h.Mode, head), nil, nil, nil, body)}
	h.box.Refresh()
}

func axisText(s string, align fyne.TextAlign) fyne.CanvasObject {
	t := NewThemedText(s, theme.ColorNameForeground)
	t.Text.Alignment = align
	t.Text.TextStyle = fyne.TextStyle{Bold: true}
	return container.NewVBox(layout.NewSpacer(), t, layout.NewSpacer())
}

// Cell returns the cell at ctx × concurrency, or nil.
func (h *Heatmap) Cell(ctx, concurrency int) *heatCell { return h.Cells[[2]int{ctx, concurrency}] }

// SetPlanned marks a cell as waiting, or as Over capacity before the run.
func (h *Heatmap) SetPlanned(ctx, concurrency int, over bool) {
	hc := h.Cell(ctx, concurrency)
	if hc == nil {
		return
	}
	hc.Status, hc.value, hc.Running, hc.result = "", 0, false, engine.Result{}
	if over {
		hc.Status = engine.StatusOverCapacity
	}
}

// SetRunning highlights the cell being measured (and no other).
func (h *Heatmap) SetRunning(ctx, concurrency int) {
	for k, hc := range h.Cells {
		hc.Running = k == [2]int{ctx, concurrency} && hc.Status == ""
	}
}

// SetResult records a finished decode cell, adding its row or column when
// the engine fitted the plan to the server (128K measured as 123K).
func (h *Heatmap) SetResult(r engine.Result) {
	if r.Phase != engine.PhaseDecode {
		return
	}
	if h.Cell(r.ContextTokens, r.Concurrency) == nil {
		h.SetAxes(SortedUnion(h.Contexts, r.ContextTokens), SortedUnion(h.Concurrency, r.Concurrency))
	}
	hc := h.Cell(r.ContextTokens, r.Concurrency)
	hc.Status, hc.value, hc.ttftMs, hc.Running, hc.result = r.Status, r.TotalTokPerSec, r.TTFTMs, false, r
}

// DropEmptyRows removes the rows without any finished cell (contexts the
// engine replaced by a fitted one).
func (h *Heatmap) DropEmptyRows() {
	var keep []int
	for _, ctx := range h.Contexts {
		for _, c := range h.Concurrency {
			if st := h.Cell(ctx, c).Status; st != "" {
				keep = append(keep, ctx)
				break
			}
		}
	}
	if len(keep) > 0 && len(keep) != len(h.Contexts) {
		h.SetAxes(keep, h.Concurrency)
	}
}

// SortedUnion is v with n added, sorted, each value once.
func SortedUnion(v []int, n int) []int {
	out := append(slices.Clone(v), n)
	slices.Sort(out)
	return slices.Compact(out)
}

// Redraw recolours every cell on the colour scale of every decode heatmap
// (charts.DecodeScale of the cells shown), and refreshes the texts, the
// colour key and the list of flags.
func (h *Heatmap) Redraw() {
	mode := h.viewMode()
	scale := h.ColorScale()
	switch mode {
	case HeatModeRoofline:
		scale = charts.RooflineScale()
	case HeatModeSLO:
		scale = charts.ColorScale{} // no colour key: the line under the grid says what the colours mean
	}
	h.Legend.Set(scale)
	h.SloKey.Hidden = mode != HeatModeSLO
	h.SloKey.Refresh()
	for _, hc := range h.Cells {
		look, detail := h.look(hc, mode, scale)
		hc.Bg.FillColor, hc.Bg.StrokeColor, hc.Bg.StrokeWidth = look.fill, look.stroke, look.strokeW
		hc.Main.Text, hc.Main.Color, hc.Detail.Color = look.text, look.ink, look.ink
		hc.Detail.Text = ""
		switch hc.Status {
		case engine.StatusValid:
			hc.Detail.Text = detail
		case engine.StatusOverCapacity:
			// Two lines keep the columns narrow enough for 8 levels at 1280 px.
			hc.Main.Text, hc.Detail.Text = "Over", "capacity"
		}
		hc.Bg.Refresh()
		hc.Text.Refresh() // lays the texts out again: a longer one is drawn smaller
	}
	h.showFlags()
	h.refreshDetails()
}

// look is a cell's style and detail line in a view: a Valid cell by its
// roofline or SLO in those views, outlined when it misses the SLO in the
// others.
func (h *Heatmap) look(hc *heatCell, mode string, scale charts.ColorScale) (cellStyle, string) {
	look := cellLook(hc, scale, h.IdleText)
	detail := report.Mark(report.Millis(hc.ttftMs)+" TTFT", hc.result)
	if hc.Status != engine.StatusValid {
		return look, detail
	}
	if mode == HeatModeSLO {
		if l, d, ok := sloLook(hc, h.Slo); ok {
			return l, d
		}
	}
	if mode == HeatModeRoofline {
		look, detail = rooflineLook(hc)
	}
	if h.missesSLO(hc) {
		return markMiss(look, hc.result)
	}
	return look, detail
}

// ColorScale is the scale the cells are coloured by: the export's for the
// same cells, live or not.
func (h *Heatmap) ColorScale() charts.ColorScale {
	var values []float64
	for _, hc := range h.Cells {
		if hc.Status == engine.StatusValid && hc.value > 0 {
			values = append(values, hc.value)
		}
	}
	return charts.DecodeScale(values)
}

// flagLines lists the flagged cells, row by row, as report.md does.
func (h *Heatmap) flagLines() []string {
	var done []engine.Result
	for _, ctx := range h.Contexts {
		for _, c := range h.Concurrency {
			if hc := h.Cell(ctx, c); hc.Status != "" {
				done = append(done, hc.result)
			}
		}
	}
	return report.FlagLines(done)
}

// showFlags puts the flag lines under the grid, or hides them when none.
func (h *Heatmap) showFlags() { showFlagLines(h.Flags, h.flagLines()) }

// showFlagLines shows report.FlagLines in l, each after the flag marker as
// the charts draw them, and hides l when there are none.
func showFlagLines(l *widget.Label, lines []string) {
	if len(lines) == 0 {
		l.SetText("")
		l.Hide()
		return
	}
	marked := make([]string, len(lines))
	for i, line := range lines {
		marked[i] = report.FlagMarker + " " + line
	}
	l.SetText(strings.Join(marked, "\n"))
	l.Show()
}

// Label is the text a cell shows, both lines joined (tests read it).
func (hc *heatCell) Label() string {
	if hc.Detail.Text == "" {
		return hc.Main.Text
	}
	return hc.Main.Text + " " + hc.Detail.Text
}
