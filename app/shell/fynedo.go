package shell

import (
	"maps"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
)

// declareFyneDo tells Fyne what the app already does: widgets are touched
// on the UI goroutine only, every update from background work going
// through fyne.Do (deps.do). Without it Fyne checks the calling goroutine
// on every refresh by taking a stack trace, which was more than half the
// time of a screen switch (BENCHMARKS.md). FyneApp.toml declares the same
// for packaged builds; this covers `go build` and `go run`.
func declareFyneDo(a fyne.App) {
	m := a.Metadata()
	// Without an ID and a name Fyne reloads the metadata from FyneApp.toml
	// when asked, losing what is set here.
	if m.ID == "" {
		m.ID = id
	}
	if m.Name == "" {
		m.Name = "Speed Matrix"
	}
	m.Migrations = maps.Clone(m.Migrations)
	if m.Migrations == nil {
		m.Migrations = map[string]bool{}
	}
	m.Migrations["fyneDo"] = true
	fyneapp.SetMetadata(m)
}
