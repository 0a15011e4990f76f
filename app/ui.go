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
	TabHardware = "Hardware"
	TabServer   = "Server"
	TabMatrix   = "Matrix"
	TabRun      = "Run"
	TabResults  = "Results"
	TabHistory  = "History"
	TabSettings = "Settings"
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
	// a screenshot of each screen into this folder, then quits (see app/shell/tour.go).
	Tour string
	// Width and Height are the window's size in pixels; zero: 1280×800.
	Width, Height int
}

// UI is what every screen is given: the window, the app's
// dependencies, its preferences, the hardware found, the state every screen
// observes and the cache of drawn charts.
type UI struct {
	App   fyne.App
	Win   fyne.Window
	Deps  Deps
	Opts  Options
	Prefs *Prefs

	HwInfo engine.HardwareInfo
	HwErr  error
	Diag   engine.Diagnostics // this machine's start-up diagnostics, for every run

	State   *State // what every screen observes
	Tabs    *container.AppTabs
	RunItem *container.TabItem // its title shows a run's progress from every screen

	Bg context.Context // ends at shutdown: background loops stop

	Pictures *PictureCache // the charts drawn for the screen

	// Ask, when set (tests), answers a question (confirm, choose) instead
	// of a dialog: pick gets the index of the answer.
	Ask func(title, message string, answers []string, pick func(int))
	// Opened, when set (tests), is told of a folder instead of opening it.
	Opened func(dir string)
	// Panicked is told of a panic recovered in a callback of ours (survive):
	// logPanic; tests fail on it.
	Panicked func(p any, stack []byte)
}

// Do runs f on the UI goroutine, later: background goroutines update the
// widgets only through it. A panic in f is logged and recovered (survive).
func (u *UI) Do(f func()) {
	u.Deps.Do(func() {
		defer u.survive()
		f()
	})
}

// HasGPU reports whether hardware detection found an NVIDIA GPU.
func (u *UI) HasGPU() bool { return u.HwErr == nil && len(u.HwInfo.GPUs) > 0 }

// Show selects the screen whose tab has this title.
func (u *UI) Show(title string) {
	if title == TabRun {
		u.Tabs.Select(u.RunItem) // its title may carry the progress
		return
	}
	for _, t := range u.Tabs.Items {
		if t.Text == title {
			u.Tabs.Select(t)
			return
		}
	}
}

// OpenFolder shows dir in the desktop's file manager.
func (u *UI) OpenFolder(dir string) {
	if u.Opened != nil {
		u.Opened(dir)
		return
	}
	u.OpenPath(dir, func(err error) {
		u.CannotOpen("Open folder", fmt.Sprintf("The file manager did not open the folder (%v): it is %s.", err, dir))
	})
}

// Confirm asks a yes/no question in a dialog with these button labels:
// answer gets true for yes.
func (u *UI) Confirm(title, message, yes, no string, answer func(bool)) {
	u.Choose(title, message, []string{yes, no}, func(i int) { answer(i == 0) })
}

// Choose asks a question with these answers, the main one first and the
// one that changes nothing last (showQuestion); pick gets the index of the
// answer chosen.
func (u *UI) Choose(title, message string, answers []string, pick func(int)) {
	if u.Ask != nil {
		u.Ask(title, message, answers, pick)
		return
	}
	showQuestion(u.Win, title, message, answers, pick)
}

// survive, deferred in a callback of ours on the UI goroutine (every
// u.do), recovers a panic in it: the panic is logged with its stack
// (u.panicked) and the app goes on. Whatever a run has measured is saved
// after every cell (runs.Saver) either way.
func (u *UI) survive() {
	if p := recover(); p != nil {
		u.Panicked(p, debug.Stack())
	}
}

// DarkTheme reports whether the app shows its dark theme variant: the
// on-screen charts then use the charts' dark theme too.
func (u *UI) DarkTheme() bool {
	return shownVariant(u.App) == theme.VariantDark
}

// ChartCache is the cache of the charts drawn for the screen (chartHost).
func (u *UI) ChartCache() *PictureCache { return u.Pictures }

// FreeMemory gives the memory drawing used back to the system (chartHost).
func (u *UI) FreeMemory() { u.Deps.FreeMemory() }
