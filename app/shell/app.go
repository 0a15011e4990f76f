// Package shell is the window of the Speed Matrix desktop app: it builds
// every screen, gives each the others it asks of (connect), and holds what
// spans the screens: quitting, the autorun, the tour, the shortcuts. It is
// the one package that imports every screen; main imports it. Its tests
// drive the whole window with fakes (newTestUI), across screens.
package shell

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

	"speedmatrix/app"
	"speedmatrix/app/hardware"
	"speedmatrix/app/history"
	"speedmatrix/app/matrix"
	"speedmatrix/app/results"
	"speedmatrix/app/run"
	"speedmatrix/app/server"
	"speedmatrix/app/settings"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/assets"
	"speedmatrix/engine"
)

// id is the application ID; Fyne keeps preferences and storage under it.
const id = "io.speedmatrix.app"

// icon is the application icon as a Fyne resource.
var icon = fyne.NewStaticResource("icon.png", assets.IconPNG)

// Main opens the main window and blocks until it is closed. With Autorun and
// Export it returns the run's or the export's error, if any.
func Main(opts app.Options) error {
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
	*app.UI
	hardware *hardware.Tab
	server   *server.Tab
	matrix   *matrix.Tab
	run      *run.Tab
	results  *results.Tab
	history  *history.Tab
	settings *settings.Tab

	exitErr error // what Main returns (autorun)

	stopBg context.CancelFunc // ends bg

	quit func() // ends the app after an autorun export (tests replace it)
	// armExit, when set (Main sets it; tests do not), makes the process
	// exit quitGrace after a quit whose ShowAndRun never returns.
	armExit func()
	settle  time.Duration // lets the window draw the charts before the screenshot
}

// newUI detects the hardware and builds every screen.
func newUI(a fyne.App, w fyne.Window, d app.Deps, opts app.Options) *ui {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Do == nil {
		d.Do = fyne.Do
	}
	if d.LimitMemory == nil {
		d.LimitMemory = limitRunMemory
	}
	if d.FreeMemory == nil {
		d.FreeMemory = debug.FreeOSMemory
	}
	u := &ui{UI: &app.UI{App: a, Win: w, Deps: d, Opts: opts, Prefs: app.NewPrefs(a.Preferences()), State: &app.State{}, Pictures: app.NewPictureCache(app.PictureCacheBytes)}}
	u.Bg, u.stopBg = context.WithCancel(context.Background())
	u.quit, u.settle, u.Panicked = a.Quit, time.Second, logPanic
	u.HwInfo, u.HwErr = d.Hardware.Detect()
	u.Diag = d.Hardware.Diagnostics()
	// Each screen's New returns the screen and its tab. Settings comes
	// first: the others read the settings it puts in the state as they are
	// built.
	var settingsItem, hardwareItem, matrixItem, serverItem, resultsItem, runItem, historyItem *container.TabItem
	u.settings, settingsItem = settings.New(u.UI)
	u.hardware, hardwareItem = hardware.New(u.UI)
	u.matrix, matrixItem = matrix.New(u.UI)
	u.server, serverItem = server.New(u.UI)
	u.results, resultsItem = results.New(u.UI)
	u.run, runItem = run.New(u.UI)
	u.history, historyItem = history.New(u.UI)
	items := []*container.TabItem{hardwareItem, serverItem, matrixItem, runItem, resultsItem, historyItem, settingsItem}
	for _, t := range items {
		// A screen taller than the window scrolls: the window keeps the size
		// it was given (Fyne grows a window to its content's MinSize, and a
		// wrapped label not laid out yet asks for one word per line).
		// A TabScreen passes on the tabs' refreshes only when the theme changed.
		t.Content = appwidget.NewTabScreen(container.NewVScroll(t.Content))
	}
	// The screens go in once the tabs are on the left: SetTabLocation
	// refreshes every screen in the tabs, twice the first time (it makes
	// the tabs' renderer), and SetItems then refreshes them once.
	u.Tabs = container.NewAppTabs()
	u.Tabs.SetTabLocation(container.TabLocationLeading)
	u.Tabs.SetItems(items)
	u.RunItem = runItem
	u.connect()
	u.State.Watch(app.ChangeRun, u.showRunInSidebar)
	u.server.ApplyTarget(opts.Target)
	if opts.Autorun || opts.Tour != "" {
		// A scripted run wants a result in minutes: the Quick plan fitted to the target.
		u.matrix.UsePreset(app.PresetQuick)
	}
	u.matrix.RefreshCapacity()
	if !opts.Autorun && opts.Tour == "" {
		// Results shows the last saved run until a run ends (a scripted run
		// shows and exports its own, or nothing).
		u.history.OfferLatest()
	}
	addShortcuts(u)
	return u
}

// connect gives each screen the others it asks of, as the small interfaces
// of app/requests.go.
func (u *ui) connect() {
	u.hardware.Targets = u.server
	u.server.Runs = u.run
	u.run.Host = u
	u.run.Targets, u.run.Reports = u.server, u.results
	u.results.Runs, u.results.Targets = u.run, u.server
	u.history.Reports, u.history.Runs, u.history.Targets = u.results, u.run, u.server
}

// content is the window's content.
func (u *ui) content() fyne.CanvasObject { return u.Tabs }

// showRunInSidebar puts a run's progress in the Run tab's title, so that
// it shows from every screen: "Run 40%". It is short: a longer title would
// widen the sidebar, and with it the window.
func (u *ui) showRunInSidebar() {
	text := app.TabRun
	if st := u.State.Run; st.Running {
		text = app.TabRun + " …"
		if p := st.Progress; p != nil && p.CellCount > 0 {
			text = fmt.Sprintf("%s %d%%", app.TabRun, int(100*app.DoneShare(*p)))
		}
	}
	if u.RunItem.Text != text {
		u.RunItem.Text = text
		u.Tabs.Refresh()
	}
}

// start begins the background work of a launched app: telemetry, autorun.
func (u *ui) start() {
	if u.Deps.Telemetry != nil {
		if s, ok := u.Deps.Telemetry.(interface{ Start(context.Context) }); ok {
			s.Start(u.Bg)
		}
	}
	u.server.StartTelemetry()
	if u.server.DetectAtStart {
		u.server.OnDetect()
	}
	if u.Opts.Autorun {
		u.Show(app.TabRun)
		u.run.OnStart()
	}
	if u.Opts.Tour != "" {
		go u.runTour(u.Opts.Tour)
	}
}

// windowSize is w×h, or the default 1280×800 when either is zero.
func windowSize(w, h int) fyne.Size {
	if w <= 0 || h <= 0 {
		return fyne.NewSize(1280, 800)
	}
	return fyne.NewSize(float32(w), float32(h))
}

// OnRunDone is called on the UI goroutine when a run ends, once Results
// shows it: an autorun with Export exports it and quits.
func (u *ui) OnRunDone(rep *engine.Report, runErr error) {
	if u.Opts.Autorun && u.Opts.Export != "" {
		u.finishAutorun(rep, runErr)
	}
}

// busy describes what closing the window would stop ("" when nothing).
func (u *ui) busy() string {
	switch {
	case u.State.Run.Sweep:
		return "A sweep is in progress: it starts and stops the server of each configuration."
	case u.run.Running() && u.server.ServerUp():
		return "A run is in progress and a vLLM server is up."
	case u.run.Running():
		return "A run is in progress."
	case u.server.ServerUp():
		return "A vLLM server started by Speed Matrix is up."
	}
	return ""
}

// onClose asks before stopping a run or a server, then closes the window.
func (u *ui) onClose() {
	// Remember the settings now: Fyne saves preferences before it exits.
	u.FlushPrefs()
	what := u.busy()
	if what == "" {
		u.closeWindow()
		return
	}
	u.Confirm("Quit Speed Matrix?", what+"\n"+u.quitStops(),
		"Quit", "Keep working", func(ok bool) {
			if ok {
				u.closeWindow()
			}
		})
}

// quitStops says what quitting stops (quitText) now.
func (u *ui) quitStops() string {
	up := u.server.ServerUp()
	return quitText(u.State.Run.Sweep, u.run.Running(), up, up && !u.server.Launch.OnCPU())
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
	u.Win.Close()
}

// shutdown cancels a run, stops the servers and the sampler; safe to repeat.
func (u *ui) shutdown() {
	u.stopBg()
	u.run.Stop(10 * time.Second)
	u.server.StopAll()
	if s, ok := u.Deps.Telemetry.(interface{ Stop() }); ok && u.Deps.Telemetry != nil {
		s.Stop()
	}
	u.FlushPrefs()
}

// FlushPrefs remembers every screen's current settings.
func (u *ui) FlushPrefs() {
	u.Prefs.SaveAll(map[string]any{
		app.PrefTarget: u.server.Settings(),
		app.PrefPlan:   u.matrix.Settings(),
		app.PrefServer: u.server.Form.Config(false),
		app.PrefApp:    u.State.Settings, // the SLO, which the Matrix screen edits too
	})
}
