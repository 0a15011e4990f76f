package shell

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/simtarget"
)

// launchPanel is the "Launch a server" part of the Server screen: the form, the
// exact command, Start/Stop, the server's log and its KV capacity.
type launchPanel struct {
	s *serverTab

	command     *widget.Label
	state, kv   *widget.Label
	why         *widget.Label // why Start is disabled
	suggested   *widget.Label // what Suggest from hardware did, or why it could not
	notes       *widget.Label
	everywhere  *widget.Label // under the command: it would listen on every interface
	start, stop *widget.Button
	compareBtn  *widget.Button // "Compare settings…" (server_compare.go)
	compare     *compareForm   // its dialog, the last opened
	log         *appwidget.LogView

	localModels []string // ids in the local Hugging Face cache
	lastModel   string

	srv       app.LaunchedServer
	lastStart timedStart // the last start that became ready, for a sweep's estimate
	cancel    context.CancelFunc
	ready     bool
	running   bool          // a run or a sweep goes on (followRun)
	stopped   chan struct{} // closed when the last Stop returned
	settled   chan struct{} // closed when the last start is ready or failed
}

func newLaunchPanel(s *serverTab) *launchPanel {
	l := &launchPanel{s: s, log: appwidget.NewLogView(500)}
	l.command = widget.NewLabel("")
	l.command.TextStyle = fyne.TextStyle{Monospace: true}
	l.command.Wrapping = fyne.TextWrapWord // at spaces: an argument stays whole
	l.state = widget.NewLabel("Not running.")
	l.state.TextStyle = fyne.TextStyle{Bold: true}
	l.state.Wrapping = fyne.TextWrapWord
	l.kv = widget.NewLabel("")
	l.why = widget.NewLabel("")
	l.why.Importance = widget.WarningImportance
	l.why.Wrapping = fyne.TextWrapWord
	l.why.Hide()
	l.suggested = widget.NewLabel("")
	l.suggested.Wrapping = fyne.TextWrapWord
	l.suggested.Hide()
	l.notes = widget.NewLabel("")
	l.notes.Wrapping = fyne.TextWrapWord
	l.notes.Importance = widget.LowImportance
	l.everywhere = widget.NewLabel("")
	l.everywhere.Wrapping = fyne.TextWrapWord
	l.everywhere.Importance = widget.WarningImportance
	l.everywhere.Hide()
	l.start = widget.NewButtonWithIcon("Start server", theme.MediaPlayIcon(), l.onStart)
	l.start.Importance = widget.HighImportance
	l.stop = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), l.onStop)
	l.stop.Disable()
	l.compareBtn = widget.NewButtonWithIcon("Compare settings…", theme.ViewRestoreIcon(), l.onCompare)
	return l
}

// Object lays out the form on the left, command, state and log on the right.
func (l *launchPanel) Object() fyne.CanvasObject {
	copyCmd := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		l.s.u.App.Clipboard().SetContent(l.command.Text)
	})
	suggest := widget.NewButtonWithIcon("Suggest from hardware", theme.ComputerIcon(), func() { l.onSuggest(true) })
	// A VBox, not a Border: the buttons go under the command however many
	// lines it wraps to.
	cmdCard := widget.NewCard("Command", "exactly what Start runs (API key redacted)",
		container.NewVBox(l.command, container.NewHBox(copyCmd, suggest), l.suggested))
	controls := container.NewVBox(container.NewHBox(l.start, l.stop, l.compareBtn), l.why, l.state, l.kv)
	right := container.NewBorder(container.NewVBox(cmdCard, l.everywhere, controls, widget.NewLabelWithStyle("Server log", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})),
		nil, nil, nil, appwidget.Panel(l.log.Object()))
	// The scroll bar and the split's divider overlay the right edge: keep
	// the fields clear of them.
	inset := theme.ScrollBarSize() + theme.Padding()
	form := container.New(layout.NewCustomPaddedLayout(0, 0, 0, inset), container.NewVBox(l.s.form.Object(), l.notes))
	left := container.NewVScroll(form)
	split := container.NewHSplit(left, right)
	split.Offset = 0.45
	l.onFormChange()
	return split
}

// onStart launches the server and waits for it in the background.
func (l *launchPanel) onStart() {
	cfg, ok := l.checkForm("then press Start server again")
	if !ok {
		return
	}
	l.s.u.Prefs.Save(app.PrefServer, l.s.form.config(false))
	timed := l.timing()
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.ready = cancel, false
	l.stopped = make(chan struct{})
	l.start.Disable()
	l.stop.Enable()
	l.log.Clear()
	l.state.SetText("Starting " + cfg.Model + " …")
	l.s.publish() // starting: a run waits until it is ready
	settled := make(chan struct{})
	l.settled = settled
	launched := func(srv app.LaunchedServer) {
		l.s.u.Do(func() { l.srv = srv })
		go l.log.Pump(ctx, l.s.u.Do)
	}
	go func() {
		srv, _, err := startServer(l.s.u, ctx, cfg, launched, l.log.Add)
		l.s.u.Do(func() {
			defer close(settled)
			if err != nil {
				l.failed(err)
				return
			}
			timed.ready(l.s.u.Deps.Now(), srv.Facts())
			l.lastStart = timed
			l.onReady(srv)
		})
	}()
}

// failed shows why the server did not start and resets the controls.
func (l *launchPanel) failed(err error) {
	if errors.Is(err, context.Canceled) {
		err = errors.New("stopped before it was ready")
	}
	l.state.SetText("Not running.")
	l.state.Importance = widget.MediumImportance
	l.state.Refresh()
	l.s.banner.Show(launchNotice(err))
	l.reset()
}

func (l *launchPanel) reset() {
	if l.cancel != nil {
		l.cancel()
	}
	l.srv, l.ready, l.cancel = nil, false, nil
	if l.stopped != nil {
		select {
		case <-l.stopped:
		default:
			close(l.stopped)
		}
	}
	l.stop.Disable()
	l.refreshStart()
	l.s.publish()
}

// onReady shows the KV capacity vLLM reported, and where the server runs.
func (l *launchPanel) onReady(srv app.LaunchedServer) {
	l.ready = true
	device, where := "GPU", "."
	switch {
	case srv.Subject().Header.Engine.Simulated:
		device, where = "Simulated GPU", ": Speed Matrix's simulator standing in for vLLM, every figure simulated."
	case srv.OnCPU():
		device, where = "CPU", ", on the CPU."
	}
	l.state.SetText("Ready at " + srv.Subject().BaseURL + where)
	l.state.Importance = widget.SuccessImportance
	l.state.Refresh()
	f := srv.Facts()
	if f.KVCacheTokens > 0 {
		text := fmt.Sprintf("%s KV cache: %s tokens", device, report.Int(f.KVCacheTokens))
		if f.MaxConcurrency > 0 {
			text += fmt.Sprintf(" · %.1f× requests of %s tokens at once", f.MaxConcurrency, report.Int(f.ConcurrencyTokens))
		}
		l.kv.SetText(text)
	}
	l.s.publish()
}

// onStop stops the server in the background.
func (l *launchPanel) onStop() { l.stopThen(nil) }

// stopThen stops the server in the background, then runs then (when set)
// on the UI goroutine once it is gone.
func (l *launchPanel) stopThen(then func()) {
	srv, done := l.srv, l.stopped
	l.state.SetText("Stopping …")
	l.stop.Disable()
	if l.cancel != nil {
		l.cancel()
	}
	go func() {
		var err error
		if srv != nil {
			err = srv.Stop()
		}
		l.s.u.Do(func() {
			l.state.Importance = widget.MediumImportance
			l.state.SetText("Stopped.")
			if err != nil {
				l.state.SetText("Stopped with a problem: " + err.Error())
			}
			l.kv.SetText("")
			if l.stopped == done {
				l.reset()
			}
			if then != nil {
				then()
			}
		})
	}()
}

// stopAndWait stops a running server and returns once it is gone.
func (l *launchPanel) stopAndWait() {
	if l.cancel != nil {
		l.cancel()
	}
	if l.srv != nil {
		_ = l.srv.Stop()
	}
}

// onCPU reports whether the server runs (or, before Start, would run) on
// the CPU.
func (l *launchPanel) onCPU() bool {
	if l.srv != nil {
		return l.srv.OnCPU()
	}
	return l.s.u.LaunchOnCPU(l.s.form.config(false))
}

// standIn reports whether the server is (or, before Start, would be) Speed
// Matrix's stand-in for vLLM: the simulator (launch.StandIn).
func (l *launchPanel) standIn() bool {
	if l.srv != nil {
		return l.srv.Subject().Header.Engine.Simulated
	}
	return l.s.u.LaunchStandIn(l.s.form.config(false))
}

// up reports whether a server is starting or running.
func (l *launchPanel) up() bool { return l.cancel != nil }

// target is the running server for a run.
func (l *launchPanel) target() (measure.Subject, error) {
	if l.srv == nil || !l.ready {
		return measure.Subject{Target: measure.Target{}}, errors.New("the vLLM server is not running: start it on the Server screen (or choose an endpoint or the simulator)")
	}
	t := runs.Launched(l.srv, l.s.u.HwInfo) // on the CPU: the CPU, no GPU
	if len(l.s.form.config(false).GPUMetrics) == 0 {
		// Without exporters naming its GPUs, a stand-in vllm (speedmatrix
		// sim serve) is described by its profile's simulated rig.
		simtarget.Recognize(&t)
	}
	// The GPUs of a cluster's nodes, and their telemetry, from its exporters.
	return t, l.s.form.parallel.gpuMetrics.attach(&t, l.s.u.State.Settings.Interval())
}

// capacity is what the server reported, or what the form says before.
func (l *launchPanel) capacity() app.Capacity {
	cfg := l.s.form.config(false)
	c := app.Capacity{MaxNumSeqs: cfg.MaxNumSeqs, MaxModelLen: cfg.MaxModelLen}
	if l.srv != nil && l.ready {
		f := l.srv.Facts()
		c.KVCacheTokens = f.KVCacheTokens
		if c.MaxModelLen == 0 {
			c.MaxModelLen = f.ConcurrencyTokens
		}
	}
	return c
}
