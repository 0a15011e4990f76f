package app

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
	status  engine.Status // "" while waiting
	value   float64       // total tok/s when Valid
	ttftMs  float64
	running bool
	result  engine.Result // the finished cell, for its flags
	bg      *canvas.Rectangle
	main    *canvas.Text
	detail  *canvas.Text
	text    *fyne.Container // main over detail (cellText)
}

// heatmap is the decode matrix drawn live with Fyne objects: one row per
// context, one column per concurrency level, coloured by total tok/s on
// the exported heatmap's colour map and scale, with its colour key under
// the grid.
// A flagged cell carries report.FlagMarker; the flags are listed under the
// key.
type heatmap struct {
	contexts, concurrency []int
	cells                 map[[2]int]*heatCell // [context, concurrency]
	box                   *fyne.Container
	legend                *colorLegend
	flags                 *widget.Label // one line per flagged cell
	idleText              string        // what a cell waiting to run shows
	// mode chooses the colouring: total tok/s, % of roofline (heatroofline.go)
	// or the SLO (slo_view.go).
	mode *widget.RadioGroup
	// slo judges the cells (off: the zero SLO); sloKey says what the SLO
	// view shows.
	slo    engine.SLO
	sloKey *widget.Label
	// details are the figures of the cell last tapped (chosen), under the grid.
	details *widget.Label
	chosen  [2]int
}

func newHeatmap(idleText string) *heatmap {
	flags := widget.NewLabel("")
	flags.Wrapping = fyne.TextWrapWord
	flags.Hide()
	details := widget.NewLabel("")
	details.Wrapping = fyne.TextWrapWord
	details.Hide()
	h := &heatmap{box: container.NewStack(), cells: map[[2]int]*heatCell{}, legend: newColorLegend(), flags: flags, idleText: idleText,
		sloKey: sloKeyLabel(), details: details}
	h.mode = newHeatMode(h.redraw)
	return h
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
				hc.status, hc.value, hc.ttftMs, hc.running, hc.result = o.status, o.value, o.ttftMs, o.running, o.result
			}
			hc.bg.CornerRadius = 4
			hc.main = canvas.NewText("", theme.Color(theme.ColorNameForeground))
			hc.main.Alignment = fyne.TextAlignCenter
			hc.main.TextStyle = fyne.TextStyle{Bold: true}
			hc.main.TextSize = theme.TextSize() + 1
			hc.detail = canvas.NewText("", theme.Color(theme.ColorNameForeground))
			hc.detail.Alignment = fyne.TextAlignCenter
			hc.detail.TextSize = theme.CaptionTextSize()
			hc.text = container.New(&cellText{size: hc.main.TextSize}, hc.main, hc.detail)
			key := [2]int{ctx, c}
			h.cells[key] = hc
			grid.Add(newTapArea(container.NewStack(hc.bg, hc.text), func() { h.showDetails(key) }))
		}
	}
	below := container.NewVBox(h.legend.object(), h.sloKey, h.flags, h.details)
	body := container.New(&underGrid{grid: grid.Layout.(*gridLayout)}, grid, below)
	h.box.Objects = []fyne.CanvasObject{container.NewBorder(container.NewVBox(h.mode, head), nil, nil, nil, body)}
	h.box.Refresh()
}

func axisText(s string, align fyne.TextAlign) fyne.CanvasObject {
	t := newThemedText(s, theme.ColorNameForeground)
	t.Text.Alignment = align
	t.Text.TextStyle = fyne.TextStyle{Bold: true}
	return container.NewVBox(layout.NewSpacer(), t, layout.NewSpacer())
}

// cell returns the cell at ctx × concurrency, or nil.
func (h *heatmap) cell(ctx, concurrency int) *heatCell { return h.cells[[2]int{ctx, concurrency}] }

// setPlanned marks a cell as waiting, or as Over capacity before the run.
func (h *heatmap) setPlanned(ctx, concurrency int, over bool) {
	hc := h.cell(ctx, concurrency)
	if hc == nil {
		return
	}
	hc.status, hc.value, hc.running, hc.result = "", 0, false, engine.Result{}
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
	hc.status, hc.value, hc.ttftMs, hc.running, hc.result = r.Status, r.TotalTokPerSec, r.TTFTMs, false, r
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

// redraw recolours every cell on the colour scale of every decode heatmap
// (charts.DecodeScale of the cells shown), and refreshes the texts, the
// colour key and the list of flags.
func (h *heatmap) redraw() {
	mode := h.viewMode()
	scale := h.colorScale()
	switch mode {
	case heatModeRoofline:
		scale = charts.RooflineScale()
	case heatModeSLO:
		scale = charts.ColorScale{} // no colour key: the line under the grid says what the colours mean
	}
	h.legend.set(scale)
	h.sloKey.Hidden = mode != heatModeSLO
	h.sloKey.Refresh()
	for _, hc := range h.cells {
		look, detail := h.look(hc, mode, scale)
		hc.bg.FillColor, hc.bg.StrokeColor, hc.bg.StrokeWidth = look.fill, look.stroke, look.strokeW
		hc.main.Text, hc.main.Color, hc.detail.Color = look.text, look.ink, look.ink
		hc.detail.Text = ""
		switch hc.status {
		case engine.StatusValid:
			hc.detail.Text = detail
		case engine.StatusOverCapacity:
			// Two lines keep the columns narrow enough for 8 levels at 1280 px.
			hc.main.Text, hc.detail.Text = "Over", "capacity"
		}
		hc.bg.Refresh()
		hc.text.Refresh() // lays the texts out again: a longer one is drawn smaller
	}
	h.showFlags()
	h.refreshDetails()
}

// look is a cell's style and detail line in a view: a Valid cell by its
// roofline or SLO in those views, outlined when it misses the SLO in the
// others.
func (h *heatmap) look(hc *heatCell, mode string, scale charts.ColorScale) (cellStyle, string) {
	look := cellLook(hc, scale, h.idleText)
	detail := report.Mark(report.Millis(hc.ttftMs)+" TTFT", hc.result)
	if hc.status != engine.StatusValid {
		return look, detail
	}
	if mode == heatModeSLO {
		if l, d, ok := sloLook(hc, h.slo); ok {
			return l, d
		}
	}
	if mode == heatModeRoofline {
		look, detail = rooflineLook(hc)
	}
	if h.missesSLO(hc) {
		return markMiss(look, hc.result)
	}
	return look, detail
}

// colorScale is the scale the cells are coloured by: the export's for the
// same cells, live or not.
func (h *heatmap) colorScale() charts.ColorScale {
	var values []float64
	for _, hc := range h.cells {
		if hc.status == engine.StatusValid && hc.value > 0 {
			values = append(values, hc.value)
		}
	}
	return charts.DecodeScale(values)
}

// flagLines lists the flagged cells, row by row, as report.md does.
func (h *heatmap) flagLines() []string {
	var done []engine.Result
	for _, ctx := range h.contexts {
		for _, c := range h.concurrency {
			if hc := h.cell(ctx, c); hc.status != "" {
				done = append(done, hc.result)
			}
		}
	}
	return report.FlagLines(done)
}

// showFlags puts the flag lines under the grid, or hides them when none.
func (h *heatmap) showFlags() { showFlagLines(h.flags, h.flagLines()) }

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

// label is the text a cell shows, both lines joined (tests read it).
func (hc *heatCell) label() string {
	if hc.detail.Text == "" {
		return hc.main.Text
	}
	return hc.main.Text + " " + hc.detail.Text
}
