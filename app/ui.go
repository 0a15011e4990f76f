package app

import (
	"context"
	"fmt"
	"runtime/debug"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"speedmatrix/engine"
)

// Screen titles, as the tabs show them.
const (
	tabHardware = "Hardware"
	tabServer   = "Server"
	tabMatrix   = "Matrix"
	tabRun      = "Run"
	tabResults  = "Results"
	tabHistory  = "History"
	tabSettings = "Settings"
)

// Options are the command-line settings of the desktop app.
type Options struct {
	Version string
	// Target preselects what to benchmark: "sim:PROFILE" or an endpoint URL.
	Target string
	// Autorun starts the run at launch; with Export set, the app exports
	// every file into that folder when the run ends, then quits.
	Autorun bool
	Export  string
	// Tour, when set, visits every screen, runs the Quick plan and writes
	// a screenshot of each screen into this folder, then quits (see tour.go).
	Tour string
	// Width and Height are the window's size in pixels; zero: 1280×800.
	Width, Height int
}

// base is what every screen is given: the window, the app's
// dependencies, its preferences, the hardware found, the state every screen
// observes and the cache of drawn charts.
type base struct {
	app   fyne.App
	win   fyne.Window
	deps  deps
	opts  Options
	prefs *settings

	hwInfo engine.HardwareInfo
	hwErr  error
	diag   engine.Diagnostics // this machine's start-up diagnostics, for every run

	state   *appState // what every screen observes
	tabs    *container.AppTabs
	runItem *container.TabItem // its title shows a run's progress from every screen

	bg context.Context // ends at shutdown: background loops stop

	pictures *pictureCache // the charts drawn for the screen

	// ask, when set (tests), answers a question (confirm, choose) instead
	// of a dialog: pick gets the index of the answer.
	ask func(title, message string, answers []string, pick func(int))
	// opened, when set (tests), is told of a folder instead of opening it.
	opened func(dir string)
	// panicked is told of a panic recovered in a callback of ours (survive):
	// logPanic; tests fail on it.
	panicked func(p any, stack []byte)
}

// do runs f on the UI goroutine, later: background goroutines update the
// widgets only through it. A panic in f is logged and recovered (survive).
func (u *base) do(f func()) {
	u.deps.do(func() {
		defer u.survive()
		f()
	})
}

// hasGPU reports whether hardware detection found an NVIDIA GPU.
func (u *base) hasGPU() bool { return u.hwErr == nil && len(u.hwInfo.GPUs) > 0 }

// show selects the screen whose tab has this title.
func (u *base) show(title string) {
	if title == tabRun {
		u.tabs.Select(u.runItem) // its title may carry the progress
		return
	}
	for _, t := range u.tabs.Items {
		if t.Text == title {
			u.tabs.Select(t)
			return
		}
	}
}

// openFolder shows dir in the desktop's file manager.
func (u *base) openFolder(dir string) {
	if u.opened != nil {
		u.opened(dir)
		return
	}
	u.openPath(dir, func(err error) {
		u.cannotOpen("Open folder", fmt.Sprintf("The file manager did not open the folder (%v): it is %s.", err, dir))
	})
}

// confirm asks a yes/no question in a dialog with these button labels:
// answer gets true for yes.
func (u *base) confirm(title, message, yes, no string, answer func(bool)) {
	u.choose(title, message, []string{yes, no}, func(i int) { answer(i == 0) })
}

// choose asks a question with these answers, the main one first and the
// one that changes nothing last (showQuestion); pick gets the index of the
// answer chosen.
func (u *base) choose(title, message string, answers []string, pick func(int)) {
	if u.ask != nil {
		u.ask(title, message, answers, pick)
		return
	}
	showQuestion(u.win, title, message, answers, pick)
}

// survive, deferred in a callback of ours on the UI goroutine (every
// u.do), recovers a panic in it: the panic is logged with its stack
// (u.panicked) and the app goes on. Whatever a run has measured is saved
// after every cell (runs.Saver) either way.
func (u *base) survive() {
	if p := recover(); p != nil {
		u.panicked(p, debug.Stack())
	}
}

// darkTheme reports whether the app shows its dark theme variant: the
// on-screen charts then use the charts' dark theme too.
func (u *base) darkTheme() bool {
	return shownVariant(u.app) == theme.VariantDark
}

// chartCache is the cache of the charts drawn for the screen (chartHost).
func (u *base) chartCache() *pictureCache { return u.pictures }

// freeMemory gives the memory drawing used back to the system (chartHost).
func (u *base) freeMemory() { u.deps.freeMemory() }
