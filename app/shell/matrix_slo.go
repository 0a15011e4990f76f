package app

import (
	"errors"

	"fyne.io/fyne/v2/widget"
)

// sloItems are the SLO's fields, for the end of the Matrix form.
func (m *matrixTab) sloItems() []*widget.FormItem {
	return []*widget.FormItem{
		hintedItem(sloTTFTName, m.slo.ttft, "SLO: first token within this"),
		hintedItem(sloITLName, m.slo.itl, "SLO: each token gap within this"),
		widget.NewFormItem(sloPctName, m.slo.pct),
	}
}

// showSLO fills the SLO fields with the state's SLO when it changed
// elsewhere (the Settings screen): what is being typed here stays.
func (m *matrixTab) showSLO() {
	slo := m.u.state.settings.SLO
	if slo == m.sloSeen {
		return
	}
	m.sloSeen = slo
	if cur, err := m.slo.read(); err == nil && cur == slo {
		return
	}
	m.applying = true
	m.slo.set(slo)
	m.applying = false
	m.refreshCapacity()
}

// pushSLO makes the fields' SLO the one in use, when they write one.
func (m *matrixTab) pushSLO() {
	if slo, err := m.slo.read(); err == nil {
		m.sloSeen = slo
		m.u.state.setSLO(slo)
	}
}

// matrixNotice is how the Matrix screen's banner shows why the form is not
// a plan: an SLO field in its words with what to write, another field with
// the grid waiting for it.
func matrixNotice(err error) notice {
	var fe *fieldError
	if errors.As(err, &fe) {
		n := problemNotice(err)
		n.Action += " Start run stays off until then."
		return n
	}
	return notice{Message: upper(err.Error()) + ".", Action: "The grid follows once the field is fixed."}
}
