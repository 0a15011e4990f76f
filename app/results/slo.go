package results

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
	r       *Tab
	Fields  *appwidget.SloFields
	Lines   *widget.Label
	Heat    *appwidget.Heatmap
	form    fyne.CanvasObject // the fields, shown in the SLO view
	Hint    *widget.Label
	filling bool // show is filling the fields: not an edit
}

// newResultsSLO builds the SLO's parts of the Results screen.
func newResultsSLO(r *Tab) *resultsSLO {
	s := &resultsSLO{r: r, Lines: widget.NewLabel(""), Heat: appwidget.NewHeatmap(""), Hint: widget.NewLabel("")}
	s.Fields = appwidget.NewSLOFields(s.onEdit)
	s.Lines.Wrapping, s.Hint.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	s.Lines.TextStyle = fyne.TextStyle{Bold: true}
	s.Lines.Hide()
	s.Hint.Importance = widget.LowImportance
	s.Heat.Mode.Hide() // the Results screen's own selector chooses the view
	entry := func(o fyne.CanvasObject) fyne.CanvasObject {
		return container.NewGridWrap(fyne.NewSize(130, s.Fields.Ttft.MinSize().Height), o)
	}
	s.form = container.NewHBox(widget.NewLabel(app.SloTTFTName), entry(s.Fields.Ttft), widget.NewLabel(app.SloITLName), entry(s.Fields.Itl),
		widget.NewLabel("at"), s.Fields.Pct)
	s.Heat.Object().Hide()
	s.form.Hide()
	s.Hint.Hide()
	return s
}

// top is what goes above the decode heatmap: the fields and the lines.
func (s *resultsSLO) top() fyne.CanvasObject { return container.NewVBox(s.form, s.Hint, s.Lines) }

// Show judges rep against its plan's SLO.
func (s *resultsSLO) Show(rep engine.Report) {
	s.filling = true
	s.Fields.Set(rep.Plan.SLO)
	s.filling = false
	contexts, conc := appwidget.DecodeAxes(rep.Results)
	s.Heat.SetAxes(nil, nil)
	s.Heat.SetAxes(contexts, conc)
	for _, res := range rep.Results {
		s.Heat.SetResult(res)
	}
	s.judge(rep.Plan.SLO)
}

// judge shows the lines and the SLO view for slo.
func (s *resultsSLO) judge(slo engine.SLO) {
	s.Heat.SetSLO(slo)
	s.Heat.Mode.Selected = appwidget.HeatModeSLO
	s.Heat.Redraw()
	s.Heat.Mode.Hide()
	s.r.Table.SetSLO(slo)
	lines := report.SLOLines(s.r.Report)
	appwidget.SetOptional(s.Lines, appwidget.OnScreen(strings.Join(lines, "\n")))
	s.Hint.Importance = widget.LowImportance
	s.Hint.SetText("Set a TTFT or ITL bound to judge this run against it: nothing is measured again, and the exports use it too.")
	if slo.On() {
		s.Hint.SetText("Change the SLO to judge this run again: nothing is measured again, and the exports use it too.")
	}
}

// onEdit judges the run again against the SLO the fields write; a field
// that is not an SLO yet waits, its problem said under the fields.
func (s *resultsSLO) onEdit() {
	if s.filling || !s.r.Has {
		return
	}
	slo, err := s.Fields.Read()
	if err != nil {
		n := app.ProblemNotice(err)
		s.Hint.Importance = widget.WarningImportance
		s.Hint.SetText(n.Message + " " + n.Action)
		return
	}
	if slo == s.r.Report.Plan.SLO {
		s.judge(slo)
		return
	}
	s.r.Report.Plan.SLO = slo
	s.judge(slo)
	s.r.drawCharts(s.r.Report)
}

// setView shows the SLO view (the fields and the heatmap by pass or miss)
// in place of the decode heatmap picture, or the picture again.
func (s *resultsSLO) setView(on bool, picture fyne.CanvasObject) {
	for _, o := range []fyne.CanvasObject{s.form, s.Hint, s.Heat.Object()} {
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
func (r *Tab) onHeatMode() {
	if !r.Has {
		return
	}
	slo := r.HeatMode.Selected == appwidget.HeatModeSLO
	r.Slo.setView(slo, r.Charts[charts.KindHeatmap])
	if !slo {
		r.drawCharts(r.Report)
	}
}
