package settings

import (
	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// sloCard is the Settings screen's SLO on one row: the same one the Matrix
// screen edits, applied with the other settings.
func (s *Tab) sloCard(col *appwidget.FormColumn) fyne.CanvasObject {
	narrow := func(o fyne.CanvasObject) fyne.CanvasObject {
		return container.NewGridWrap(fyne.NewSize(130, s.Slo.Ttft.MinSize().Height), o)
	}
	row := container.NewHBox(narrow(s.Slo.Ttft), widget.NewLabel(app.SloITLName), narrow(s.Slo.Itl), widget.NewLabel("at"), narrow(s.Slo.Pct))
	form := col.Form(appwidget.FormRow{Label: app.SloTTFTName, Field: row,
		Hint: "First token within the TTFT bound (2s, 500ms), gaps between tokens within the ITL bound (50ms), for all but the slowest 1 % at p99. Empty: no bound."})
	return widget.NewCard("Latency objective (SLO)", "each decode cell is judged against it; the Matrix screen shows the same fields", form)
}

// showSLO shows the state's SLO when the Matrix screen changed it; the
// other fields keep what is typed in them.
func (s *Tab) showSLO() {
	if slo := s.U.State.Settings.SLO; slo != s.sloSeen {
		s.sloSeen = slo
		s.Slo.Set(slo)
	}
}
