package app

import (
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// heatModeSLO colours each Valid cell by whether it meets the SLO, with
// its margin.
const heatModeSLO = "SLO"

// The SLO view's colours: a cell that meets the SLO, and one that misses
// it (also the outline that marks a miss in the other views).
var (
	sloPassColor = color.NRGBA{R: 0x16, G: 0xa3, B: 0x4a, A: 0xb0}
	sloMissColor = color.NRGBA{R: 0xdc, G: 0x26, B: 0x26, A: 0xe0}
)

// heatModeOptions are the colourings a heatmap offers: total tok/s always,
// % of roofline once a cell has one, SLO while one is on.
func heatModeOptions(roofline, slo bool) []string {
	opts := []string{heatModeTotal}
	if roofline {
		opts = append(opts, heatModeRoofline)
	}
	if slo {
		opts = append(opts, heatModeSLO)
	}
	return opts
}

// offerModes gives the selector these options, hidden when there is only
// one to choose; a choice no longer offered falls back to total tok/s.
func offerModes(g *widget.RadioGroup, options []string) {
	if !slices.Equal(g.Options, options) {
		g.Options = options
		if !slices.Contains(options, g.Selected) {
			g.Selected = heatModeTotal
		}
		g.Refresh()
	}
	if len(options) < 2 {
		g.Hide()
	} else {
		g.Show()
	}
}

// setSLO judges the cells against s from the next redraw on (the zero SLO:
// none), and offers the SLO view while s is on.
func (h *heatmap) setSLO(s engine.SLO) {
	h.slo = s
	if s.On() && h.sloKey != nil {
		h.sloKey.SetText("SLO: " + onScreen(report.SLOText(s)) + ". Green meets it, red misses it (outlined red in the other views); " +
			"the figure is the bound with the least to spare, or the one missed by the most. Tap a cell for its figures.")
	}
}

// viewMode offers the colourings the cells allow and is the one chosen.
func (h *heatmap) viewMode() string {
	offerModes(h.mode, heatModeOptions(h.hasRoofline(), h.slo.On()))
	return h.mode.Selected
}

// sloLook is a Valid cell's style in the SLO view: green when it meets
// the SLO, red when it misses, with its margin; ok is false for a cell the
// SLO does not judge.
func sloLook(hc *heatCell, s engine.SLO) (look cellStyle, detail string, ok bool) {
	c, ok := s.Judge(hc.result)
	if !ok {
		return cellStyle{}, "", false
	}
	fill := color.Color(sloPassColor)
	if !c.Pass {
		fill = sloMissColor
	}
	return cellStyle{fill: fill, ink: color.White, text: report.SLOVerdict(c)}, report.Mark(marginWords(s, c), hc.result), true
}

// missesSLO reports whether a finished cell misses the heatmap's SLO.
func (h *heatmap) missesSLO(hc *heatCell) bool {
	c, ok := h.slo.Judge(hc.result)
	return ok && !c.Pass
}

// markMiss outlines a cell that misses the SLO in the views that colour by
// something else, and says so under its figure (flagged as the figure was).
func markMiss(look cellStyle, r engine.Result) (cellStyle, string) {
	look.stroke, look.strokeW = sloMissColor, 3
	return look, report.Mark("misses SLO", r)
}

// showDetails shows under the grid the figures of the cell at key, or
// hides them when it was already shown (a second tap) or has no result.
func (h *heatmap) showDetails(key [2]int) {
	hc := h.cells[key]
	if hc == nil || hc.status == "" || hc.result.Phase != engine.PhaseDecode || (h.chosen == key && h.details.Visible()) {
		h.chosen = [2]int{}
		h.details.Hide()
		return
	}
	h.chosen = key
	h.details.SetText(cellDetails(hc.result, h.slo))
	h.details.Show()
}

// refreshDetails shows the chosen cell's figures again (its result or the
// SLO changed).
func (h *heatmap) refreshDetails() {
	if hc := h.cells[h.chosen]; hc != nil && h.details.Visible() && hc.status != "" {
		h.details.SetText(cellDetails(hc.result, h.slo))
	}
}

// tapArea is a heatmap cell that shows its figures when tapped.
type tapArea struct {
	widget.BaseWidget
	content fyne.CanvasObject
	tapped  func()
}

func newTapArea(content fyne.CanvasObject, tapped func()) *tapArea {
	t := &tapArea{content: content, tapped: tapped}
	t.ExtendBaseWidget(t)
	return t
}

// CreateRenderer draws the cell as it is.
func (t *tapArea) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(t.content) }

// Tapped shows the cell's figures.
func (t *tapArea) Tapped(*fyne.PointEvent) { t.tapped() }

// sloKeyLabel is the line under the SLO view that says what it shows.
func sloKeyLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	l.Hide()
	return l
}
