package shell

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// resultsSLO is the Results screen's SLO: one line per decode context
// saying how many simultaneous requests meet it, and the SLO view, the
// heatmap by pass or miss with each cell's margin, under fields that
// judge the run again against another SLO without measuring it again.
type resultsSLO struct {
	r       *resultsTab
	fields  *appwidget.SloFields
	lines   *widget.Label
	heat    *appwidget.Heatmap
	form    fyne.CanvasObject // the fields, shown in the SLO view
	hint    *widget.Label
	filling bool // show is filling the fields: not an edit
}

// newResultsSLO builds the SLO's parts of the Results screen.
func newResultsSLO(r *resultsTab) *resultsSLO {
	s := &resultsSLO{r: r, lines: widget.NewLabel(""), heat: appwidget.NewHeatmap(""), hint: widget.NewLabel("")}
	s.fields = appwidget.NewSLOFields(s.onEdit)
	s.lines.Wrapping, s.hint.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	s.lines.TextStyle = fyne.TextStyle{Bold: true}
	s.lines.Hide()
	s.hint.Importance = widget.LowImportance
	s.heat.Mode.Hide() // the Results screen's own selector chooses the view
	entry := func(o fyne.CanvasObject) fyne.CanvasObject {
		return container.NewGridWrap(fyne.NewSize(130, s.fields.Ttft.MinSize().Height), o)
	}
	s.form = container.NewHBox(widget.NewLabel(appwidget.SloTTFTName), entry(s.fields.Ttft), widget.NewLabel(appwidget.SloITLName), entry(s.fields.Itl),
		widget.NewLabel("at"), s.fields.Pct)
	s.heat.Object().Hide()
	s.form.Hide()
	s.hint.Hide()
	return s
}

// top is what goes above the decode heatmap: the fields and the lines.
func (s *resultsSLO) top() fyne.CanvasObject { return container.NewVBox(s.form, s.hint, s.lines) }

// Show judges rep against its plan's SLO.
func (s *resultsSLO) Show(rep engine.Report) {
	s.filling = true
	s.fields.Set(rep.Plan.SLO)
	s.filling = false
	contexts, conc := decodeAxes(rep.Results)
	s.heat.SetAxes(nil, nil)
	s.heat.SetAxes(contexts, conc)
	for _, res := range rep.Results {
		s.heat.SetResult(res)
	}
	s.judge(rep.Plan.SLO)
}

// judge shows the lines and the SLO view for slo.
func (s *resultsSLO) judge(slo engine.SLO) {
	s.heat.SetSLO(slo)
	s.heat.Mode.Selected = appwidget.HeatModeSLO
	s.heat.Redraw()
	s.heat.Mode.Hide()
	s.r.table.SetSLO(slo)
	lines := report.SLOLines(s.r.report)
	appwidget.SetOptional(s.lines, appwidget.OnScreen(strings.Join(lines, "\n")))
	s.hint.Importance = widget.LowImportance
	s.hint.SetText("Set a TTFT or ITL bound to judge this run against it: nothing is measured again, and the exports use it too.")
	if slo.On() {
		s.hint.SetText("Change the SLO to judge this run again: nothing is measured again, and the exports use it too.")
	}
}

// onEdit judges the run again against the SLO the fields write; a field
// that is not an SLO yet waits, its problem said under the fields.
func (s *resultsSLO) onEdit() {
	if s.filling || !s.r.has {
		return
	}
	slo, err := s.fields.Read()
	if err != nil {
		n := app.ProblemNotice(err)
		s.hint.Importance = widget.WarningImportance
		s.hint.SetText(n.Message + " " + n.Action)
		return
	}
	if slo == s.r.report.Plan.SLO {
		s.judge(slo)
		return
	}
	s.r.report.Plan.SLO = slo
	s.judge(slo)
	s.r.drawCharts(s.r.report)
}

// setView shows the SLO view (the fields and the heatmap by pass or miss)
// in place of the decode heatmap picture, or the picture again.
func (s *resultsSLO) setView(on bool, picture fyne.CanvasObject) {
	for _, o := range []fyne.CanvasObject{s.form, s.hint, s.heat.Object()} {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	if on {
		picture.Hide()
	} else {
		picture.Show()
	}
}

// onHeatMode shows the decode heatmap in the view chosen: the SLO view,
// or the picture by total tok/s or % of roofline.
func (r *resultsTab) onHeatMode() {
	if !r.has {
		return
	}
	slo := r.heatMode.Selected == appwidget.HeatModeSLO
	r.slo.setView(slo, r.charts[charts.KindHeatmap])
	if !slo {
		r.drawCharts(r.report)
	}
}
