package shell

import (
	"errors"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"

	"fyne.io/fyne/v2/widget"
)

// sloItems are the SLO's fields, for the end of the Matrix form.
func (m *matrixTab) sloItems() []*widget.FormItem {
	return []*widget.FormItem{
		appwidget.HintedItem(appwidget.SloTTFTName, m.slo.Ttft, "SLO: first token within this"),
		appwidget.HintedItem(appwidget.SloITLName, m.slo.Itl, "SLO: each token gap within this"),
		widget.NewFormItem(appwidget.SloPctName, m.slo.Pct),
	}
}

// showSLO fills the SLO fields with the state's SLO when it changed
// elsewhere (the Settings screen): what is being typed here stays.
func (m *matrixTab) showSLO() {
	slo := m.u.State.Settings.SLO
	if slo == m.sloSeen {
		return
	}
	m.sloSeen = slo
	if cur, err := m.slo.Read(); err == nil && cur == slo {
		return
	}
	m.applying = true
	m.slo.Set(slo)
	m.applying = false
	m.refreshCapacity()
}

// pushSLO makes the fields' SLO the one in use, when they write one.
func (m *matrixTab) pushSLO() {
	if slo, err := m.slo.Read(); err == nil {
		m.sloSeen = slo
		m.u.State.SetSLO(slo)
	}
}

// matrixNotice is how the Matrix screen's banner shows why the form is not
// a plan: an SLO field in its words with what to write, another field with
// the grid waiting for it.
func matrixNotice(err error) app.Notice {
	var fe *app.FieldError
	if errors.As(err, &fe) {
		n := app.ProblemNotice(err)
		n.Action += " Start run stays off until then."
		return n
	}
	return app.Notice{Message: upper(err.Error()) + ".", Action: "The grid follows once the field is fixed."}
}
