// Package app is the Speed Matrix desktop UI (Fyne): one file per screen.
// It talks to engine, hw and charts through narrow interfaces so that its
// tests can drive every screen with fakes.
package app

import (
	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/assets"
)

// ID is the application ID; Fyne keeps preferences and storage under it.
const ID = "io.speedmatrix.app"

// Options are the command-line settings of the desktop app.
type Options struct {
	Version string
	// Target preselects what to benchmark: "sim:PROFILE" or an endpoint URL.
	Target string
	// Autorun starts the run at launch; with Export set, the app exports
	// every file into that folder when the run ends, then quits.
	Autorun bool
	Export  string
}

// Icon is the application icon as a Fyne resource.
var Icon = fyne.NewStaticResource("icon.png", assets.IconPNG)

// Main opens the main window and blocks until it is closed.
func Main(opts Options) error {
	a := fyneapp.NewWithID(ID)
	a.SetIcon(Icon)
	w := a.NewWindow("Speed Matrix")
	w.SetContent(newTabs(opts))
	w.Resize(fyne.NewSize(1200, 800))
	w.ShowAndRun()
	return nil
}

// newTabs builds the screens of the app in the order a user works through them.
func newTabs(opts Options) *container.AppTabs {
	placeholder := func(text string) fyne.CanvasObject {
		return container.NewCenter(widget.NewLabel(text))
	}
	return container.NewAppTabs(
		container.NewTabItem("Hardware", placeholder("GPUs and host")),
		container.NewTabItem("Server", placeholder("vLLM, an endpoint or the simulator")),
		container.NewTabItem("Matrix", placeholder("Contexts × concurrency")),
		container.NewTabItem("Run", placeholder("Progress and live heatmap")),
		container.NewTabItem("Results", placeholder("Charts and exports")),
		container.NewTabItem("History", placeholder("Saved runs")),
	)
}
