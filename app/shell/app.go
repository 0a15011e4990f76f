// Package app is the Speed Matrix desktop UI (Fyne): a file or a few per
// screen, the screens working together only through appState (state.go).
// It talks to engine, hw and charts through narrow interfaces so that its
// tests can drive every screen with fakes.
//
// app is a front end, and the only package on Fyne. What it may import is
// one table for the whole tree, allowedImports in imports_test.go, which
// TestImportRules checks.
package app

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"

	"speedmatrix/assets"
	"speedmatrix/engine"
)

// id is the application ID; Fyne keeps preferences and storage under it.
const id = "io.speedmatrix.app"

// icon is the application icon as a Fyne resource.
var icon = fyne.NewStaticResource("icon.png", assets.IconPNG)

// Main opens the main window and blocks until it is closed. With Autorun and
// Export it returns the run's or the export's error, if any.
func Main(opts Options) error {
	withDrawCacheLifetime()
	tuneMemory()
	a := fyneapp.NewWithID(id)
	declareFyneDo(a)
	a.SetIcon(icon)
	w := a.NewWindow("Speed Matrix")
	u := newUI(a, w, realDeps(), opts)
	w.SetContent(u.content())
	w.Resize(windowSize(opts.Width, opts.Height))
	w.SetCloseIntercept(u.onClose)
	// Every quit stops everything first; should Fyne's teardown then not
	// let ShowAndRun return (see quitGrace), the process exits anyway.
	u.armExit = func() { time.AfterFunc(quitGrace, exitAfterQuit(u.exitErr, os.Stderr, os.Exit)) }
	u.quit = func() {
		u.armExit()
		a.Quit()
	}
	u.start()
	return u.showAndRun(w)
}

// showAndRun runs the window until it closes, then stops everything. A
// panic out of the window's event loop (one inside Fyne's own event
// handling, which no callback of ours can recover) ends the app with an
// error that says where the run is kept (crashed), after stopping the run
// and every server Speed Matrix started.
func (u *ui) showAndRun(w fyne.Window) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = u.crashed(p, debug.Stack(), os.Stderr)
		}
	}()
	w.ShowAndRun()
	u.shutdown()
	return u.exitErr
}

// ui holds the window, the screens and what they share.
type ui struct {
	*base
	hardware *hardwareTab
	server   *serverTab
	matrix   *matrixTab
	run      *runTab
	results  *resultsTab
	history  *historyTab
	settings *settingsTab

	exitErr error // what Main returns (autorun)

	stopBg context.CancelFunc // ends bg

	quit func() // ends the app after an autorun export (tests replace it)
	// armExit, when set (Main sets it; tests do not), makes the process
	// exit quitGrace after a quit whose ShowAndRun never returns.
	armExit func()
	settle  time.Duration // lets the window draw the charts before the screenshot
}

// newUI detects the hardware and builds every screen.
func newUI(a fyne.App, w fyne.Window, d deps, opts Options) *ui {
	if d.now == nil {
		d.now = time.Now
	}
	if d.do == nil {
		d.do = fyne.Do
	}
	if d.limitMemory == nil {
		d.limitMemory = limitRunMemory
	}
	if d.freeMemory == nil {
		d.freeMemory = debug.FreeOSMemory
	}
	u := &ui{base: &base{app: a, win: w, deps: d, opts: opts, prefs: newSettings(a.Preferences()), state: &appState{}, pictures: newPictureCache(pictureCacheBytes)}}
	u.bg, u.stopBg = context.WithCancel(context.Background())
	u.quit, u.settle, u.panicked = a.Quit, time.Second, logPanic
	u.hwInfo, u.hwErr = d.hardware.Detect()
	u.diag = d.hardware.Diagnostics()
	// Each newXxxTab sets u.xxx. Settings comes first: the others read the
	// settings it puts in the state as they are built.
	var settings, hardware *container.TabItem
	u.settings, settings = newSettingsTab(u.base)
	u.hardware, hardware = newHardwareTab(u.base)
	matrix := newMatrixTab(u)
	server, results := newServerTab(u), newResultsTab(u)
	run, history := newRunTab(u), newHistoryTab(u)
	for _, t := range []*container.TabItem{hardware, server, matrix, run, results, history, settings} {
		// A screen taller than the window scrolls: the window keeps the size
		// it was given (Fyne grows a window to its content's MinSize, and a
		// wrapped label not laid out yet asks for one word per line).
		t.Content = container.NewVScroll(t.Content)
	}
	// The screens go in once the tabs are on the left: SetTabLocation
	// refreshes every screen in the tabs, twice the first time (it makes
	// the tabs' renderer), and SetItems then refreshes them once.
	u.tabs = container.NewAppTabs()
	u.tabs.SetTabLocation(container.TabLocationLeading)
	u.tabs.SetItems([]*container.TabItem{hardware, server, matrix, run, results, history, settings})
	u.runItem = run
	u.connect()
	u.state.watch(changeRun, u.showRunInSidebar)
	u.server.applyTarget(opts.Target)
	if opts.Autorun || opts.Tour != "" {
		// A scripted run wants a result in minutes: the Quick plan fitted to the target.
		u.matrix.usePreset(presetQuick)
	}
	u.matrix.refreshCapacity()
	if !opts.Autorun && opts.Tour == "" {
		// Results shows the last saved run until a run ends (a scripted run
		// shows and exports its own, or nothing).
		u.history.offerLatest()
	}
	addShortcuts(u)
	return u
}

// connect gives each screen the others it asks of, as the small interfaces
// of requests.go.
func (u *ui) connect() {
	u.hardware.targets = u.server
	u.server.runs = u.run
	u.run.targets, u.run.reports = u.server, u.results
	u.results.runs, u.results.targets = u.run, u.server
	u.history.reports, u.history.runs, u.history.targets = u.results, u.run, u.server
}

// content is the window's content.
func (u *ui) content() fyne.CanvasObject { return u.tabs }

// showRunInSidebar puts a run's progress in the Run tab's title, so that
// it shows from every screen: "Run 40%". It is short: a longer title would
// widen the sidebar, and with it the window.
func (u *ui) showRunInSidebar() {
	text := tabRun
	if st := u.state.run; st.Running {
		text = tabRun + " …"
		if p := st.Progress; p != nil && p.CellCount > 0 {
			text = fmt.Sprintf("%s %d%%", tabRun, int(100*doneShare(*p)))
		}
	}
	if u.runItem.Text != text {
		u.runItem.Text = text
		u.tabs.Refresh()
	}
}

// start begins the background work of a launched app: telemetry, autorun.
func (u *ui) start() {
	if u.deps.telemetry != nil {
		if s, ok := u.deps.telemetry.(interface{ Start(context.Context) }); ok {
			s.Start(u.bg)
		}
	}
	u.server.startTelemetry()
	if u.server.detectAtStart {
		u.server.onDetect()
	}
	if u.opts.Autorun {
		u.show(tabRun)
		u.run.onStart()
	}
	if u.opts.Tour != "" {
		go u.runTour(u.opts.Tour)
	}
}

// windowSize is w×h, or the default 1280×800 when either is zero.
func windowSize(w, h int) fyne.Size {
	if w <= 0 || h <= 0 {
		return fyne.NewSize(1280, 800)
	}
	return fyne.NewSize(float32(w), float32(h))
}

// onRunDone is called on the UI goroutine when a run ends, once Results
// shows it: an autorun with Export exports it and quits.
func (u *ui) onRunDone(rep *engine.Report, runErr error) {
	if u.opts.Autorun && u.opts.Export != "" {
		u.finishAutorun(rep, runErr)
	}
}

// busy describes what closing the window would stop ("" when nothing).
func (u *ui) busy() string {
	switch {
	case u.state.run.Sweep:
		return "A sweep is in progress: it starts and stops the server of each configuration."
	case u.run.running() && u.server.serverUp():
		return "A run is in progress and a vLLM server is up."
	case u.run.running():
		return "A run is in progress."
	case u.server.serverUp():
		return "A vLLM server started by Speed Matrix is up."
	}
	return ""
}

// onClose asks before stopping a run or a server, then closes the window.
func (u *ui) onClose() {
	// Remember the settings now: Fyne saves preferences before it exits.
	u.flushPrefs()
	what := u.busy()
	if what == "" {
		u.closeWindow()
		return
	}
	u.confirm("Quit Speed Matrix?", what+"\n"+u.quitStops(),
		"Quit", "Keep working", func(ok bool) {
			if ok {
				u.closeWindow()
			}
		})
}

// quitStops says what quitting stops (quitText) now.
func (u *ui) quitStops() string {
	up := u.server.serverUp()
	return quitText(u.state.run.Sweep, u.run.running(), up, up && !u.server.launch.onCPU())
}

// quitText says what quitting stops: the sweep or the run, and the server
// Speed Matrix started, whose GPU memory is freed only when it has some:
// the simulator and a CPU build have none, and a sweep's configurations
// may be either.
func quitText(sweep, running, server, onGPU bool) string {
	var stops []string
	switch {
	case sweep:
		stops = append(stops, "cancels the sweep and stops its server")
	case running:
		stops = append(stops, "cancels the run")
	}
	if server && !sweep {
		s := "stops the server"
		if onGPU {
			s += " (its GPU memory is freed)"
		}
		stops = append(stops, s)
	}
	if len(stops) == 0 {
		return ""
	}
	return "Quitting " + strings.Join(stops, " and ") + "."
}

// closeWindow stops everything while the event loop still runs, then
// closes the window (which ends the app).
func (u *ui) closeWindow() {
	u.shutdown()
	if u.armExit != nil {
		u.armExit()
	}
	u.win.Close()
}

// shutdown cancels a run, stops the servers and the sampler; safe to repeat.
func (u *ui) shutdown() {
	u.stopBg()
	u.run.stop(10 * time.Second)
	u.server.stopAll()
	if s, ok := u.deps.telemetry.(interface{ Stop() }); ok && u.deps.telemetry != nil {
		s.Stop()
	}
	u.flushPrefs()
}

// flushPrefs remembers every screen's current settings.
func (u *ui) flushPrefs() {
	u.prefs.saveAll(map[string]any{
		prefTarget: u.server.settings(),
		prefPlan:   u.matrix.settings(),
		prefServer: u.server.form.config(false),
		prefApp:    u.state.settings, // the SLO, which the Matrix screen edits too
	})
}
