package widget

import (
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// HeatModeSLO colours each Valid cell by whether it meets the SLO, with
// its margin.
const HeatModeSLO = "SLO"

// The SLO view's colours: a cell that meets the SLO, and one that misses
// it (also the outline that marks a miss in the other views).
var (
	sloPassColor = color.NRGBA{R: 0x16, G: 0xa3, B: 0x4a, A: 0xb0}
	SloMissColor = color.NRGBA{R: 0xdc, G: 0x26, B: 0x26, A: 0xe0}
)

// HeatModeOptions are the colourings a heatmap offers: total tok/s always,
// % of roofline once a cell has one, SLO while one is on.
func HeatModeOptions(roofline, slo bool) []string {
	opts := []string{HeatModeTotal}
	if roofline {
		opts = append(opts, HeatModeRoofline)
	}
	if slo {
		opts = append(opts, HeatModeSLO)
	}
	return opts
}

// OfferModes gives the selector these options, hidden when there is only
// one to choose; a choice no longer offered falls back to total tok/s.
func OfferModes(g *widget.RadioGroup, options []string) {
	if !slices.Equal(g.Options, options) {
		g.Options = options
		if !slices.Contains(options, g.Selected) {
			g.Selected = HeatModeTotal
		}
		g.Refresh()
	}
	if len(options) < 2 {
		g.Hide()
	} else {
		g.Show()
	}
}

// SetSLO judges the cells against s from the next redraw on (the zero SLO:
// none), and offers the SLO view while s is on.
func (h *Heatmap) SetSLO(s engine.SLO) {
	h.Slo = s
	if s.On() && h.SloKey != nil {
		h.SloKey.SetText("SLO: " + OnScreen(report.SLOText(s)) + ". Green meets it, red misses it (outlined red in the other views); " +
			"the figure is the bound with the least to spare, or the one missed by the most. Tap a cell for its figures.")
	}
}

// viewMode offers the colourings the cells allow and is the one chosen.
func (h *Heatmap) viewMode() string {
	OfferModes(h.Mode, HeatModeOptions(h.hasRoofline(), h.Slo.On()))
	return h.Mode.Selected
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
		fill = SloMissColor
	}
	return cellStyle{fill: fill, ink: color.White, text: report.SLOVerdict(c)}, report.Mark(marginWords(s, c), hc.result), true
}

// missesSLO reports whether a finished cell misses the heatmap's SLO.
func (h *Heatmap) missesSLO(hc *heatCell) bool {
	c, ok := h.Slo.Judge(hc.result)
	return ok && !c.Pass
}

// markMiss outlines a cell that misses the SLO in the views that colour by
// something else, and says so under its figure (flagged as the figure was).
func markMiss(look cellStyle, r engine.Result) (cellStyle, string) {
	look.stroke, look.strokeW = SloMissColor, 3
	return look, report.Mark("misses SLO", r)
}

// ShowDetails shows under the grid the figures of the cell at key, or
// hides them when it was already shown (a second tap) or has no result.
func (h *Heatmap) ShowDetails(key [2]int) {
	hc := h.Cells[key]
	if hc == nil || hc.Status == "" || hc.result.Phase != engine.PhaseDecode || (h.chosen == key && h.Details.Visible()) {
		h.chosen = [2]int{}
		h.Details.Hide()
		return
	}
	h.chosen = key
	h.Details.SetText(CellDetails(hc.result, h.Slo))
	h.Details.Show()
}

// refreshDetails shows the chosen cell's figures again (its result or the
// SLO changed).
func (h *Heatmap) refreshDetails() {
	if hc := h.Cells[h.chosen]; hc != nil && h.Details.Visible() && hc.Status != "" {
		h.Details.SetText(CellDetails(hc.result, h.Slo))
	}
}

// TapArea is a heatmap cell that shows its figures when tapped.
type TapArea struct {
	widget.BaseWidget
	Content fyne.CanvasObject
	tapped  func()
}

func newTapArea(content fyne.CanvasObject, tapped func()) *TapArea {
	t := &TapArea{Content: content, tapped: tapped}
	t.ExtendBaseWidget(t)
	return t
}

// CreateRenderer draws the cell as it is.
func (t *TapArea) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(t.Content) }

// Tapped shows the cell's figures.
func (t *TapArea) Tapped(*fyne.PointEvent) { t.tapped() }

// sloKeyLabel is the line under the SLO view that says what it shows.
func sloKeyLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	l.Hide()
	return l
}
