package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// sloCard is the Settings screen's SLO on one row: the same one the Matrix
// screen edits, applied with the other settings.
func (s *settingsTab) sloCard(col *formColumn) fyne.CanvasObject {
	narrow := func(o fyne.CanvasObject) fyne.CanvasObject {
		return container.NewGridWrap(fyne.NewSize(130, s.slo.ttft.MinSize().Height), o)
	}
	row := container.NewHBox(narrow(s.slo.ttft), widget.NewLabel(sloITLName), narrow(s.slo.itl), widget.NewLabel("at"), narrow(s.slo.pct))
	form := col.form(formRow{sloTTFTName, row,
		"First token within the TTFT bound (2s, 500ms), gaps between tokens within the ITL bound (50ms), for all but the slowest 1 % at p99. Empty: no bound."})
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
