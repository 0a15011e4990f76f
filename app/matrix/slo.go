package matrix

import (
	"errors"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"

	"fyne.io/fyne/v2/widget"
)

// sloItems are the SLO's fields, for the end of the Matrix form.
func (m *Tab) sloItems() []*widget.FormItem {
	return []*widget.FormItem{
		appwidget.HintedItem(app.SloTTFTName, m.Slo.Ttft, "SLO: first token within this"),
		appwidget.HintedItem(app.SloITLName, m.Slo.Itl, "SLO: each token gap within this"),
		widget.NewFormItem(app.SloPctName, m.Slo.Pct),
	}
}

// showSLO fills the SLO fields with the state's SLO when it changed
// elsewhere (the Settings screen): what is being typed here stays.
func (m *Tab) showSLO() {
	slo := m.u.State.Settings.SLO
	if slo == m.sloSeen {
		return
	}
	m.sloSeen = slo
	if cur, err := m.Slo.Read(); err == nil && cur == slo {
		return
	}
	m.Applying = true
	m.Slo.Set(slo)
	m.Applying = false
	m.RefreshCapacity()
}

// pushSLO makes the fields' SLO the one in use, when they write one.
func (m *Tab) pushSLO() {
	if slo, err := m.Slo.Read(); err == nil {
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
	return app.Notice{Message: app.Upper(err.Error()) + ".", Action: "The grid follows once the field is fixed."}
}
