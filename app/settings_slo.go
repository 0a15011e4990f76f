package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// sloCard is the Settings screen's SLO: the same one the Matrix screen
// edits, applied with the other settings.
func (s *settingsTab) sloCard(col *formColumn) fyne.CanvasObject {
	narrow := func(o fyne.CanvasObject) fyne.CanvasObject {
		return container.NewHBox(container.NewGridWrap(fyne.NewSize(160, s.slo.ttft.MinSize().Height), o))
	}
	form := col.form(
		formRow{sloTTFTName, narrow(s.slo.ttft), "The first token must come within this (2s, 500ms). Empty: no bound."},
		formRow{sloITLName, narrow(s.slo.itl), "The gap between two tokens of a stream must stay within this (50ms). Empty: no bound."},
		formRow{sloPctName, narrow(s.slo.pct), "Which requests must meet the bounds: p99 is all but the slowest 1 %."})
	return widget.NewCard("Latency objective (SLO)", "each decode cell is judged against it; the Matrix screen shows the same fields", form)
}

// showSLO shows the state's SLO when the Matrix screen changed it; the
// other fields keep what is typed in them.
func (s *settingsTab) showSLO() {
	if slo := s.u.state.settings.SLO; slo != s.sloSeen {
		s.sloSeen = slo
		s.slo.set(slo)
	}
}
