package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/secret"
)

// confirmCancelAfter is how long a run goes before cancelling it asks first:
// a run of seconds is cheap to start again, a longer one is not.
const confirmCancelAfter = 10 * time.Second

// runTab starts and watches a run: progress, the decode heatmap filling in,
// live GPU telemetry and the event log. Before a run it shows the target
// and the plan as they are now, from the app state.
type runTab struct {
	u *ui

	startBtn, cancelBtn *widget.Button
	targetLine          *widget.Label
	simBadge            *fyne.Container
	banner              *banner
	progress            *widget.ProgressBar
	progressLine        *widget.Label
	current             *widget.Label
	serverLine          *widget.Label
	heatCard            *widget.Card
	heat                *heatmap
	gauges              *telemetryGauges
	log                 *logView
	output              *outputPanel // the text one stream generates now

	cancel     context.CancelFunc // set while a run is in progress
	finished   chan struct{}      // closed when the engine's channel closed
	uiDone     chan struct{}      // closed after the final UI update (tests wait on it)
	plan       engine.Plan
	started    time.Time
	estimate   time.Duration // what the estimator said at the start
	saveDir    string        // the run's History folder: the resumed one, else set by the first save
	saveErr    error         // the last save's failure, shown once
	confirming bool          // the cancel confirmation is open
	lastRun    bool          // the grid shows the last run, not the plan
	// liftMemoryLimit ends the soft memory limit of the run in progress.
	liftMemoryLimit func()
}

// newRunTab builds the Run screen.
func newRunTab(u *ui) *container.TabItem {
	r := &runTab{u: u, heat: newHeatmap("will run"), log: newLogView(1000), gauges: newTelemetryGauges(), banner: newBanner(), output: newOutputPanel()}
	u.run = r
	r.startBtn = widget.NewButtonWithIcon("Start run (Ctrl+R)", theme.MediaPlayIcon(), r.onStart)
	r.startBtn.Importance = widget.HighImportance
	r.cancelBtn = widget.NewButtonWithIcon("Cancel (Esc)", theme.CancelIcon(), r.onCancel)
	r.cancelBtn.Disable()
	r.targetLine = widget.NewLabel("")
	r.targetLine.Truncation = fyne.TextTruncateEllipsis
	r.simBadge = container.NewHBox()
	r.progress = widget.NewProgressBar()
	r.progressLine = widget.NewLabel("")
	r.progressLine.Wrapping = fyne.TextWrapWord
	r.current = widget.NewLabel("")
	r.current.TextStyle = fyne.TextStyle{Bold: true}
	r.current.Truncation = fyne.TextTruncateEllipsis
	r.serverLine = widget.NewLabel("")
	r.serverLine.Wrapping = fyne.TextWrapWord

	bar := container.NewBorder(nil, nil, container.NewHBox(r.startBtn, r.cancelBtn), container.NewHBox(r.simBadge), r.targetLine)
	status := container.NewVBox(bar, r.banner.object(), r.progress, r.progressLine, r.current)
	r.heatCard = widget.NewCard("Plan", "", r.heat.object())
	side := container.NewBorder(
		container.NewVBox(r.gauges.object(), r.serverLine,
			widget.NewLabelWithStyle("Events", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})),
		nil, nil, nil, container.NewVSplit(panel(r.log.object()), r.output.object()))
	split := container.NewHSplit(r.heatCard, side)
	split.Offset = 0.62
	header := screenHeader("Run", "Each cell keeps its requests streaming for the whole measurement; the heatmap fills in as cells finish.")
	content := screen(container.NewVBox(header, status), split, nil)
	u.state.watch(changeTarget|changePlan, r.showPlan)
	r.showPlan()
	show := func() { r.gauges.show(u.state.sample, u.state.sampled, u.state.target.Simulated, u.state.target.OnCPU) }
	show()
	u.state.watch(changeTelemetry|changeTarget, show)
	u.state.watch(changeTheme, r.heat.redraw)
	u.state.watch(askResume, func() { r.resume(u.state.asked.report, u.state.asked.dir) })
	return container.NewTabItemWithIcon(tabRun, theme.MediaPlayIcon(), content)
}

// showPlan shows, while no run is going on, what Start would measure: the
// target, its simulated badge, the plan's cells fitted to the server (Over
// capacity where its limits are known) and the estimate.
func (r *runTab) showPlan() {
	if r.running() {
		return
	}
	s := r.u.state
	r.lastRun = false
	r.banner.hide()
	r.targetLine.SetText("Target: " + s.target.Description)
	label := s.target.Description
	r.setSimulated(s.target.Simulated, label)
	r.serverLine.SetText("")
	r.current.SetText("")
	r.progress.Hide()
	if s.planErr != nil {
		r.progressLine.SetText("The plan is not ready: fix it on the Matrix screen.")
		r.heat.setAxes(nil, nil)
		r.heatCard.SetTitle("Plan")
		r.heatCard.SetSubTitle("")
		return
	}
	fitted := s.fitted()
	run, over := cellCounts(fitted, s.target.Capacity)
	text := fmt.Sprintf("Ready: %d prefill + %d decode cells, estimated %s.", len(fitted.PrefillContexts), run, formatAbout(measure.Estimate(s.plan, s.target.Capacity)))
	switch {
	case over == 1:
		text += " 1 cell is over the server's capacity and will not run."
	case over > 1:
		text += fmt.Sprintf(" %d cells are over the server's capacity and will not run.", over)
	}
	r.progressLine.SetText(text + " Ctrl+R starts the run, Esc cancels it.")
	r.heatCard.SetTitle("Plan")
	r.heatCard.SetSubTitle("sustained decode cells · rows are context length, columns are simultaneous requests")
	r.heat.idleText = "will run"
	previewPlan(r.heat, fitted, s.target.Capacity)
	r.heat.redraw()
}

// previewPlan lays h out afresh for the fitted plan's decode cells, with
// those over the capacity c marked; the caller redraws.
func previewPlan(h *heatmap, fitted engine.Plan, c capacity) {
	h.setAxes(nil, nil)
	h.setAxes(fitted.DecodeContexts, fitted.Concurrency)
	for _, ctx := range fitted.DecodeContexts {
		for _, n := range fitted.Concurrency {
			h.setPlanned(ctx, n, c.OverCapacity(ctx, n, fitted.MaxOutputTokens))
		}
	}
}

func (r *runTab) setSimulated(on bool, label string) {
	r.simBadge.Objects = nil
	if on {
		r.simBadge.Objects = []fyne.CanvasObject{badge(label, simulatedColor)}
	}
	r.simBadge.Refresh()
}

// running reports whether a run is in progress.
func (r *runTab) running() bool { return r.cancel != nil }

// onStart starts the run with the Matrix screen's plan and the Server
// screen's target.
func (r *runTab) onStart() {
	if r.running() {
		return
	}
	if err := r.u.state.planErr; err != nil {
		r.refuse(notice{Message: "The matrix has a problem: " + err.Error() + ".",
			Action: "Fix it on the Matrix screen.", Button: "Open Matrix screen", OnPress: func() { r.u.show(tabMatrix) }}, err)
		return
	}
	r.startWith(r.u.state.plan, nil, "")
}

// resume finishes a partial run saved in dir: the engine measures the cells
// it did not finish and keeps the rest.
func (r *runTab) resume(prev engine.Report, dir string) {
	if r.running() {
		return
	}
	r.u.show(tabRun)
	r.startWith(prev.Plan, &prev, dir)
}

// startWith starts plan against the Server screen's target; with prev it
// resumes that run.
func (r *runTab) startWith(plan engine.Plan, prev *engine.Report, dir string) {
	target, err := r.u.state.readyTarget()
	if err != nil {
		r.refuse(noticeOf(err, "The target is not ready.", r.u.show), err)
		return
	}
	c := r.u.state.settings
	target.FirstTokenTimeout, target.StallTimeout = c.firstToken(), c.stall()
	diag := r.u.diag
	// On the CPU, the sampler's CPU load is the telemetry (measure.Run keeps no GPU figure).
	if r.u.deps.telemetry != nil && target.Telemetry == nil && (len(target.Header.Hardware.GPUs) > 0 || target.Header.Hardware.OnCPU()) && !target.Header.Engine.Simulated {
		target.Telemetry = r.u.deps.telemetry
	}
	setup := runs.Setup{Diagnostics: &diag, Version: r.u.opts.Version}
	if prev != nil {
		setup.Resume = &measure.Resume{Report: *prev}
	}
	runs.Prepare(&target, setup)
	r.u.prefs.flush(r.u)
	r.saveDir, r.saveErr = dir, nil
	r.begin(plan, target, prev)
	r.liftMemoryLimit = r.u.deps.limitMemory()
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.finished, r.uiDone = make(chan struct{}), make(chan struct{})
	acc := &accumulator{}
	target.Output = r.output.newTap(acc.addOutput)
	ch := r.u.deps.engine.Run(ctx, plan, target)
	r.publish()
	go consumeInto(acc, ch, r.u.do, r.apply, r.finished)
}

// refuse explains why a run cannot start.
func (r *runTab) refuse(n notice, err error) {
	r.banner.show(n)
	r.progressLine.SetText("Not started.")
	if r.u.opts.Autorun && r.u.opts.Export != "" {
		r.u.exitErr = err
		// Quit from the event loop: this may run before the window is shown.
		go r.u.do(r.u.endAutorun)
	}
}

// begin resets the screen for a new run.
func (r *runTab) begin(plan engine.Plan, target measure.Subject, prev *engine.Report) {
	c := r.u.state.target.Capacity
	r.plan, r.started, r.estimate = plan, r.u.deps.now(), measure.Estimate(plan, c)
	r.banner.hide()
	r.startBtn.Disable()
	r.cancelBtn.Enable()
	r.progress.SetValue(0)
	r.progress.Show()
	r.progressLine.SetText("Connecting to " + secret.URL(target.BaseURL) + " …")
	r.current.SetText("")
	r.serverLine.SetText("")
	r.log.clear()
	verb := "run started"
	if prev != nil {
		verb = "resuming the run of " + prev.Run.StartedAt.Format("2006-01-02 15:04")
	}
	r.log.add(fmt.Sprintf("%s  %s against %s (estimated %s)", r.started.Format("15:04:05"), verb, secret.URL(target.BaseURL), formatAbout(r.estimate)))
	r.setSimulated(target.Header.Engine.Simulated, target.Header.Engine.SimulatedLabel())
	fitted := c.Fit(plan)
	r.lastRun = false
	r.heatCard.SetTitle("Sustained decode")
	r.heatCard.SetSubTitle("total tok/s · rows are context length, columns are simultaneous requests")
	r.heat.idleText = "waiting"
	previewPlan(r.heat, fitted, c)
	r.heat.fixScale(fitted, c)
	if prev != nil {
		for _, res := range prev.Results {
			if res.Phase == engine.PhaseDecode && res.Status.Final() {
				r.heat.setResult(res)
			}
		}
	}
	r.heat.redraw()
	r.log.flush()
}

// publish tells the other screens (the sidebar) how the run is going.
func (r *runTab) publish() {
	info := runInfo{Running: r.running(), Started: r.started}
	if r.running() {
		info.Progress, info.Server = r.u.state.run.Progress, r.u.state.run.Server
	}
	r.u.state.setRun(info)
}

// apply shows a coalesced update; UI goroutine only.
func (r *runTab) apply(u runUpdate) {
	if p := u.progress; p != nil {
		r.showProgress(*p)
	}
	if s := u.server; s != nil && !u.done {
		r.serverLine.SetText(fmt.Sprintf("Server: %d running · %d waiting · KV cache %.0f %% used", s.Running, s.Waiting, s.KVUsagePct))
	}
	for _, res := range u.results {
		r.heat.setResult(res)
	}
	if len(u.results) > 0 || u.done {
		r.heat.redraw()
	}
	for _, line := range u.logs {
		r.log.add(line)
	}
	if u.report != nil && !u.done {
		r.save(*u.report)
	}
	if len(u.output) > 0 {
		r.output.show(u.output)
	}
	if u.progress != nil || u.server != nil {
		st := r.u.state.run
		st.Progress, st.Server = cmp.Or(u.progress, st.Progress), cmp.Or(u.server, st.Server)
		r.u.state.setRun(st)
	}
	if u.done {
		r.finish(u.report, u.err)
	}
	r.log.flush()
}

func (r *runTab) showProgress(p engine.Progress) {
	if p.CellCount > 0 {
		r.progress.SetValue(float64(p.CellIndex-1) / float64(p.CellCount))
	}
	r.progressLine.SetText(fmt.Sprintf("Cell %d of %d · elapsed %s · about %s left",
		p.CellIndex, p.CellCount, formatDuration(p.Elapsed), formatDuration(p.ETA)))
	what := fmt.Sprintf("Now: %s · %s context", p.Cell.Phase.Title(), engine.ContextLabel(p.Cell.ContextTokens))
	if p.Cell.Phase == engine.PhaseDecode {
		what += fmt.Sprintf(" · %d requests at once", p.Cell.Concurrency)
		r.heat.setRunning(p.Cell.ContextTokens, p.Cell.Concurrency)
		r.heat.redraw()
	}
	if p.LiveTokPerSec > 0 {
		what += " · " + report.TokPerSec(p.LiveTokPerSec) + " tok/s now"
	}
	r.current.SetText(what)
}

// finish ends the run on screen and hands the report on.
func (r *runTab) finish(rep *engine.Report, err error) {
	r.cancel = nil
	r.confirming = false
	r.startBtn.Enable()
	r.cancelBtn.Disable()
	r.heat.setRunning(0, 0)
	took := r.u.deps.now().Sub(r.started)
	r.progressLine.SetText(endLine(rep, err, formatDuration(took)))
	if rep != nil {
		// The final report lists the cell cut short as Cancelled and the
		// cells never reached as Not run.
		for _, res := range rep.Results {
			if res.Phase == engine.PhaseDecode {
				r.heat.setResult(res)
			}
		}
	}
	if err == nil && rep != nil && rep.Run.Complete {
		r.progress.SetValue(1)
		r.heat.dropEmptyRows()
	}
	r.heat.idleText = "not run"
	r.heat.redraw()
	r.lastRun = true
	r.heatCard.SetTitle("Last run")
	r.output.runEnded()
	r.current.SetText("")
	r.serverLine.SetText("")
	r.log.add(fmt.Sprintf("%s  run ended after %s; estimated %s", r.u.deps.now().Format("15:04:05"), formatDuration(took), formatAbout(r.estimate)))
	switch {
	case errors.Is(err, context.Canceled):
		r.log.add("run cancelled by you: the finished cells are kept")
	case err != nil:
		r.log.add("run ended: " + err.Error())
		r.banner.show(noticeOf(err, "The run stopped early.", r.u.show))
	case rep != nil && !rep.Run.Complete && rep.Run.Incomplete != "":
		r.banner.show(notice{Message: "The run stopped before every cell was measured.", Action: "Resume it from Results when the server is back.",
			Button: "Open Results screen", OnPress: func() { r.u.show(tabResults) }, Detail: rep.Run.Incomplete})
	}
	if rep != nil && len(rep.Results) > 0 {
		r.save(*rep)
	}
	r.publish()
	var drawn <-chan struct{}
	if rep != nil && len(rep.Results) > 0 {
		drawn = r.u.state.openReport(*rep, r.saveDir)
	}
	r.u.onRunDone(rep, err)
	r.liftLimit(drawn)
	close(r.uiDone)
}

// liftLimit ends the run's memory limit once Results has drawn the run
// (drawn is closed, nil when Results shows nothing): that too is within the
// limit. Pictures that are never drawn (a Results screen that is not shown)
// do not keep it.
func (r *runTab) liftLimit(drawn <-chan struct{}) {
	lift := r.liftMemoryLimit
	if lift == nil {
		return
	}
	r.liftMemoryLimit = nil
	if drawn == nil {
		lift()
		return
	}
	go func() {
		select {
		case <-drawn:
		case <-time.After(liftMemoryLimitAfter):
		}
		lift()
	}()
}

// save keeps what the run has measured in its History folder, after every
// cell: nothing measured is lost if the app dies.
func (r *runTab) save(rep engine.Report) {
	dir, err := r.u.saveRun(rep, r.saveDir)
	r.saveDir = dir
	if err != nil && r.saveErr == nil {
		r.log.add("cannot save the run in " + dir + ": " + err.Error())
		r.banner.show(notice{Message: "The run cannot be saved to History.", Action: "Choose a runs folder you can write on the Settings screen; the measurements are kept in memory until then.",
			Detail: err.Error()})
	}
	r.saveErr = err
}

// endLine is the progress line once a run has ended: finished, stopped
// early by the engine (with its reason), cancelled, or failed.
func endLine(rep *engine.Report, err error, elapsed string) string {
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Sprintf("Cancelled after %s: the finished cells are kept; Resume in Results measures the rest.", elapsed)
	case err != nil:
		return fmt.Sprintf("Stopped after %s.", elapsed)
	case rep != nil && !rep.Run.Complete:
		return fmt.Sprintf("Stopped after %s: the finished cells are kept.", elapsed)
	}
	return fmt.Sprintf("Finished in %s: %d cells.", elapsed, resultCount(rep))
}

func resultCount(rep *engine.Report) int {
	if rep == nil {
		return 0
	}
	return len(rep.Results)
}

// onCancel stops the run; finished cells are kept. A run that has gone on
// for longer than confirmCancelAfter asks first.
func (r *runTab) onCancel() {
	if r.cancel == nil || r.confirming {
		return
	}
	took := r.u.deps.now().Sub(r.started)
	if took <= confirmCancelAfter {
		r.cancelNow()
		return
	}
	r.confirming = true
	r.u.confirm("Cancel the run?",
		fmt.Sprintf("It has run for %s. The finished cells are kept (Resume in Results measures the rest); the cell being measured now is lost.", formatDuration(took)),
		"Cancel the run", "Keep running",
		func(ok bool) {
			r.confirming = false
			if ok {
				r.cancelNow()
			}
		})
}

// cancelNow cancels the run without asking.
func (r *runTab) cancelNow() {
	if r.cancel == nil {
		return
	}
	r.progressLine.SetText("Cancelling …")
	r.cancelBtn.Disable()
	r.cancel()
}

// stop cancels a run and waits up to timeout for the engine to stop.
func (r *runTab) stop(timeout time.Duration) {
	if r.cancel == nil {
		return
	}
	r.cancel()
	select {
	case <-r.finished:
	case <-time.After(timeout):
	}
}
