package widget

import (
	"fyne.io/fyne/v2/widget"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// The heatmap's colourings: by total tok/s, or by the share of each cell's
// roofline (offered only once a cell has one).
const (
	HeatModeTotal    = "total tok/s"
	HeatModeRoofline = "% of roofline"
)

// NewHeatMode is the heatmap's colouring selector, hidden until there is
// a choice (offerModes); changing it redraws the heatmap.
func NewHeatMode(redraw func()) *widget.RadioGroup {
	g := widget.NewRadioGroup([]string{HeatModeTotal, HeatModeRoofline}, func(string) { redraw() })
	g.Horizontal = true
	g.Required = true
	g.Selected = HeatModeTotal
	g.Hide()
	return g
}

// hasRoofline reports whether a finished cell carries its roofline.
func (h *Heatmap) hasRoofline() bool {
	for _, hc := range h.Cells {
		if hc.Status == engine.StatusValid && hc.result.RooflineTokS > 0 {
			return true
		}
	}
	return false
}

// rooflineLook is a Valid cell's style by its share of the roofline ("43 %",
// on the export's fixed 0–100 % scale); a cell without one keeps its tok/s,
// uncoloured.
func rooflineLook(hc *heatCell) (cellStyle, string) {
	r := hc.result
	if r.RooflineTokS <= 0 {
		look := cellLook(&heatCell{Status: engine.StatusOverCapacity}, charts.ColorScale{}, "")
		look.text = report.TokPerSec(hc.value)
		return look, "no roofline"
	}
	c := charts.Viridis(charts.RooflineScale().Pos(r.RooflinePct))
	return cellStyle{fill: c, ink: charts.TextOn(c), text: report.Mark(report.Pct(r.RooflinePct), r)}, "of " + report.TokPerSec(r.RooflineTokS)
}
