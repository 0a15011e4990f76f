package server

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
	s *Tab

	Command     *widget.Label
	State, Kv   *widget.Label
	Why         *widget.Label // why Start is disabled
	Suggested   *widget.Label // what Suggest from hardware did, or why it could not
	Notes       *widget.Label
	Everywhere  *widget.Label // under the command: it would listen on every interface
	Start, stop *widget.Button
	CompareBtn  *widget.Button // "Compare settings…" (compare.go)
	Compare     *CompareForm   // its dialog, the last opened
	log         *appwidget.LogView

	localModels []string // ids in the local Hugging Face cache
	lastModel   string

	srv       app.LaunchedServer
	LastStart timedStart // the last start that became ready, for a sweep's estimate
	cancel    context.CancelFunc
	Ready     bool
	running   bool          // a run or a sweep goes on (followRun)
	stopped   chan struct{} // closed when the last Stop returned
	Settled   chan struct{} // closed when the last start is ready or failed
}

func newLaunchPanel(s *Tab) *launchPanel {
	l := &launchPanel{s: s, log: appwidget.NewLogView(500)}
	l.Command = widget.NewLabel("")
	l.Command.TextStyle = fyne.TextStyle{Monospace: true}
	l.Command.Wrapping = fyne.TextWrapWord // at spaces: an argument stays whole
	l.State = widget.NewLabel("Not running.")
	l.State.TextStyle = fyne.TextStyle{Bold: true}
	l.State.Wrapping = fyne.TextWrapWord
	l.Kv = widget.NewLabel("")
	l.Why = widget.NewLabel("")
	l.Why.Importance = widget.WarningImportance
	l.Why.Wrapping = fyne.TextWrapWord
	l.Why.Hide()
	l.Suggested = widget.NewLabel("")
	l.Suggested.Wrapping = fyne.TextWrapWord
	l.Suggested.Hide()
	l.Notes = widget.NewLabel("")
	l.Notes.Wrapping = fyne.TextWrapWord
	l.Notes.Importance = widget.LowImportance
	l.Everywhere = widget.NewLabel("")
	l.Everywhere.Wrapping = fyne.TextWrapWord
	l.Everywhere.Importance = widget.WarningImportance
	l.Everywhere.Hide()
	l.Start = widget.NewButtonWithIcon("Start server", theme.MediaPlayIcon(), l.OnStart)
	l.Start.Importance = widget.HighImportance
	l.stop = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), l.onStop)
	l.stop.Disable()
	l.CompareBtn = widget.NewButtonWithIcon("Compare settings…", theme.ViewRestoreIcon(), l.OnCompare)
	return l
}

// Object lays out the form on the left, command, state and log on the right.
func (l *launchPanel) Object() fyne.CanvasObject {
	copyCmd := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		l.s.u.App.Clipboard().SetContent(l.Command.Text)
	})
	suggest := widget.NewButtonWithIcon("Suggest from hardware", theme.ComputerIcon(), func() { l.OnSuggest(true) })
	// A VBox, not a Border: the buttons go under the command however many
	// lines it wraps to.
	cmdCard := widget.NewCard("Command", "exactly what Start runs (API key redacted)",
		container.NewVBox(l.Command, container.NewHBox(copyCmd, suggest), l.Suggested))
	controls := container.NewVBox(container.NewHBox(l.Start, l.stop, l.CompareBtn), l.Why, l.State, l.Kv)
	right := container.NewBorder(container.NewVBox(cmdCard, l.Everywhere, controls, widget.NewLabelWithStyle("Server log", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})),
		nil, nil, nil, appwidget.Panel(l.log.Object()))
	// The scroll bar and the split's divider overlay the right edge: keep
	// the fields clear of them.
	inset := theme.ScrollBarSize() + theme.Padding()
	form := container.New(layout.NewCustomPaddedLayout(0, 0, 0, inset), container.NewVBox(l.s.Form.Object(), l.Notes))
	left := container.NewVScroll(form)
	split := container.NewHSplit(left, right)
	split.Offset = 0.45
	l.onFormChange()
	return split
}

// OnStart launches the server and waits for it in the background.
func (l *launchPanel) OnStart() {
	cfg, ok := l.checkForm("then press Start server again")
	if !ok {
		return
	}
	l.s.u.Prefs.Save(app.PrefServer, l.s.Form.Config(false))
	timed := l.Timing()
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.Ready = cancel, false
	l.stopped = make(chan struct{})
	l.Start.Disable()
	l.stop.Enable()
	l.log.Clear()
	l.State.SetText("Starting " + cfg.Model + " …")
	l.s.publish() // starting: a run waits until it is ready
	settled := make(chan struct{})
	l.Settled = settled
	launched := func(srv app.LaunchedServer) {
		l.s.u.Do(func() { l.srv = srv })
		go l.log.Pump(ctx, l.s.u.Do)
	}
	go func() {
		srv, _, err := app.StartServer(l.s.u, ctx, cfg, launched, l.log.Add)
		l.s.u.Do(func() {
			defer close(settled)
			if err != nil {
				l.Failed(err)
				return
			}
			timed.Ready(l.s.u.Deps.Now(), srv.Facts())
			l.LastStart = timed
			l.onReady(srv)
		})
	}()
}

// Failed shows why the server did not start and resets the controls.
func (l *launchPanel) Failed(err error) {
	if errors.Is(err, context.Canceled) {
		err = errors.New("stopped before it was ready")
	}
	l.State.SetText("Not running.")
	l.State.Importance = widget.MediumImportance
	l.State.Refresh()
	l.s.Banner.Show(LaunchNotice(err))
	l.reset()
}

func (l *launchPanel) reset() {
	if l.cancel != nil {
		l.cancel()
	}
	l.srv, l.Ready, l.cancel = nil, false, nil
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
	l.Ready = true
	device, where := "GPU", "."
	switch {
	case srv.Subject().Header.Server.Simulated:
		device, where = "Simulated GPU", ": Speed Matrix's simulator standing in for vLLM, every figure simulated."
	case srv.OnCPU():
		device, where = "CPU", ", on the CPU."
	}
	l.State.SetText("Ready at " + srv.Subject().BaseURL + where)
	l.State.Importance = widget.SuccessImportance
	l.State.Refresh()
	f := srv.Facts()
	if f.KVCacheTokens > 0 {
		text := fmt.Sprintf("%s KV cache: %s tokens", device, report.Int(f.KVCacheTokens))
		if f.MaxConcurrency > 0 {
			text += fmt.Sprintf(" · %.1f× requests of %s tokens at once", f.MaxConcurrency, report.Int(f.ConcurrencyTokens))
		}
		l.Kv.SetText(text)
	}
	l.s.publish()
}

// onStop stops the server in the background.
func (l *launchPanel) onStop() { l.stopThen(nil) }

// stopThen stops the server in the background, then runs then (when set)
// on the UI goroutine once it is gone.
func (l *launchPanel) stopThen(then func()) {
	srv, done := l.srv, l.stopped
	l.State.SetText("Stopping …")
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
			l.State.Importance = widget.MediumImportance
			l.State.SetText("Stopped.")
			if err != nil {
				l.State.SetText("Stopped with a problem: " + err.Error())
			}
			l.Kv.SetText("")
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

// OnCPU reports whether the server runs (or, before Start, would run) on
// the CPU.
func (l *launchPanel) OnCPU() bool {
	if l.srv != nil {
		return l.srv.OnCPU()
	}
	return l.s.u.LaunchOnCPU(l.s.Form.Config(false))
}

// standIn reports whether the server is (or, before Start, would be) Speed
// Matrix's stand-in for vLLM: the simulator (launch.StandIn).
func (l *launchPanel) standIn() bool {
	if l.srv != nil {
		return l.srv.Subject().Header.Server.Simulated
	}
	return l.s.u.LaunchStandIn(l.s.Form.Config(false))
}

// Up reports whether a server is starting or running.
func (l *launchPanel) Up() bool { return l.cancel != nil }

// Target is the running server for a run.
func (l *launchPanel) Target() (measure.Subject, error) {
	if l.srv == nil || !l.Ready {
		return measure.Subject{Target: measure.Target{}}, errors.New("the vLLM server is not running: start it on the Server screen (or choose an endpoint or the simulator)")
	}
	t := runs.Launched(l.srv, l.s.u.HwInfo) // on the CPU: the CPU, no GPU
	if len(l.s.Form.Config(false).GPUMetrics) == 0 {
		// Without exporters naming its GPUs, a stand-in vllm (speedmatrix
		// sim serve) is described by its profile's simulated rig.
		simtarget.Recognize(&t)
	}
	// The GPUs of a cluster's nodes, and their telemetry, from its exporters.
	return t, l.s.Form.Parallel.GpuMetrics.attach(&t, l.s.u.State.Settings.Interval())
}

// Capacity is what the server reported, or what the form says before.
func (l *launchPanel) Capacity() app.Capacity {
	cfg := l.s.Form.Config(false)
	c := app.Capacity{MaxNumSeqs: cfg.MaxNumSeqs, MaxModelLen: cfg.MaxModelLen}
	if l.srv != nil && l.Ready {
		f := l.srv.Facts()
		c.KVCacheTokens = f.KVCacheTokens
		if c.MaxModelLen == 0 {
			c.MaxModelLen = f.ConcurrencyTokens
		}
	}
	return c
}
