package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/hw"
)

// runTab starts and watches a run: progress, the decode heatmap filling in,
// live GPU telemetry and the event log.
type runTab struct {
	u *ui

	startBtn, cancelBtn *widget.Button
	targetLine          *widget.Label
	simBadge            *fyne.Container
	progress            *widget.ProgressBar
	progressLine        *widget.Label
	current             *widget.Label
	serverLine          *widget.Label
	heat                *heatmap
	gauges              *telemetryGauges
	log                 *logView

	cancel   context.CancelFunc // set while a run is in progress
	finished chan struct{}      // closed when the engine's channel closed
	uiDone   chan struct{}      // closed after the final UI update (tests wait on it)
	plan     engine.Plan
	started  time.Time
}

// newRunTab builds the Run screen.
func newRunTab(u *ui) *container.TabItem {
	r := &runTab{u: u, heat: newHeatmap("waiting"), log: newLogView(1000), gauges: newTelemetryGauges()}
	u.run = r
	r.startBtn = widget.NewButtonWithIcon("Start run", theme.MediaPlayIcon(), r.onStart)
	r.startBtn.Importance = widget.HighImportance
	r.cancelBtn = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), r.onCancel)
	r.cancelBtn.Disable()
	r.targetLine = widget.NewLabel("")
	r.simBadge = container.NewHBox()
	r.progress = widget.NewProgressBar()
	r.progressLine = widget.NewLabel("Not started. Ctrl+R starts the run, Esc cancels it.")
	r.current = widget.NewLabel("")
	r.current.TextStyle = fyne.TextStyle{Bold: true}
	r.serverLine = widget.NewLabel("")

	bar := container.NewBorder(nil, nil, container.NewHBox(r.startBtn, r.cancelBtn), container.NewHBox(r.simBadge), r.targetLine)
	status := container.NewVBox(bar, r.progress, r.progressLine, r.current)
	heat := widget.NewCard("Sustained decode", "total tok/s · rows are context length, columns are simultaneous requests", r.heat.object())
	side := container.NewBorder(
		container.NewVBox(widget.NewCard("GPU", "", r.gauges.object()), r.serverLine,
			widget.NewLabelWithStyle("Events", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})),
		nil, nil, nil, panel(r.log.object()))
	split := container.NewHSplit(heat, side)
	split.Offset = 0.66
	header := screenHeader("Run", "Each cell keeps its requests streaming for the whole measurement; the heatmap fills in as cells finish.")
	content := screen(container.NewVBox(header, status), split, nil)
	r.targetChanged()
	if u.deps.telemetry == nil || !u.hasGPU() {
		r.gauges.show(hw.Sample{}, false)
	}
	return container.NewTabItemWithIcon(tabRun, theme.MediaPlayIcon(), content)
}

// targetChanged shows which target a run would measure.
func (r *runTab) targetChanged() {
	if r.u.server == nil || r.running() {
		return
	}
	r.targetLine.SetText("Target: " + r.u.server.description())
	r.setSimulated(r.u.server.kind.Selected == targetSim, "simulated (profile "+r.u.server.profile.Selected+")")
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
	plan, err := r.u.matrix.plan()
	if err != nil {
		r.refuse(fmt.Errorf("the matrix has a problem: %w (Matrix screen)", err))
		return
	}
	target, err := r.u.server.target()
	if err != nil {
		r.refuse(err)
		return
	}
	if r.u.deps.telemetry != nil && len(target.Header.Hardware.GPUs) > 0 && !target.Header.Engine.Simulated {
		target.Telemetry = r.u.deps.telemetry
	}
	target.Header.Run.BenchmarkTool = engine.BenchmarkTool(r.u.opts.Version)
	r.u.prefs.flush(r.u)
	r.begin(plan, target)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.finished, r.uiDone = make(chan struct{}), make(chan struct{})
	ch := r.u.deps.engine.Run(ctx, plan, target.Target, target.RunOptions)
	go consume(ch, r.u.do, r.apply, r.finished)
}

// refuse explains why a run cannot start.
func (r *runTab) refuse(err error) {
	r.progressLine.SetText("Cannot start: " + explain(err))
	if r.u.opts.Autorun && r.u.opts.Export != "" {
		r.u.exitErr = err
		// Quit from the event loop: this may run before the window is shown.
		go r.u.do(r.u.endAutorun)
		return
	}
	dialog.ShowError(err, r.u.win)
}

// begin resets the screen for a new run.
func (r *runTab) begin(plan engine.Plan, target engine.Subject) {
	r.plan, r.started = plan, r.u.deps.now()
	r.heat.idleText = "waiting"
	r.startBtn.Disable()
	r.cancelBtn.Enable()
	r.progress.SetValue(0)
	r.progressLine.SetText("Connecting to " + target.BaseURL + " …")
	r.current.SetText("")
	r.serverLine.SetText("")
	r.log.clear()
	r.log.add(fmt.Sprintf("%s  run started against %s", r.started.Format("15:04:05"), target.BaseURL))
	r.setSimulated(target.Header.Engine.Simulated, target.Header.Engine.SimulatedLabel())
	c := r.u.server.capacity()
	contexts := engine.FitContexts(plan.DecodeContexts, c.MaxModelLen, plan.MaxOutputTokens)
	r.heat.setAxes(nil, nil)
	r.heat.setAxes(contexts, plan.Concurrency)
	for _, ctx := range contexts {
		for _, n := range plan.Concurrency {
			r.heat.setPlanned(ctx, n, c.OverCapacity(ctx, n, plan.MaxOutputTokens))
		}
	}
	r.heat.redraw()
	r.log.flush()
}

// apply shows a coalesced update; UI goroutine only.
func (r *runTab) apply(u runUpdate) {
	if p := u.progress; p != nil {
		r.showProgress(*p)
	}
	if s := u.server; s != nil {
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
	r.startBtn.Enable()
	r.cancelBtn.Disable()
	r.heat.setRunning(0, 0)
	elapsed := formatDuration(r.u.deps.now().Sub(r.started))
	r.progressLine.SetText(endLine(rep, err, elapsed))
	if err == nil {
		r.progress.SetValue(1)
		r.heat.dropEmptyRows()
		// Not "not run": that is the status of cells a run never reached.
		r.heat.idleText = "no result"
	}
	r.heat.redraw()
	r.current.SetText("")
	if err != nil {
		r.log.add("run ended: " + err.Error())
	}
	r.u.onRunDone(rep, err)
	close(r.uiDone)
}

// endLine is the progress line once a run has ended: finished, stopped
// early by the engine (with its reason), cancelled, or failed.
func endLine(rep *engine.Report, err error, elapsed string) string {
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Sprintf("Cancelled after %s: the finished cells are kept.", elapsed)
	case err != nil:
		return "Stopped: " + explain(err)
	case rep != nil && !rep.Run.Complete && rep.Run.Incomplete != "":
		return fmt.Sprintf("Stopped after %s: %s. The finished cells are kept.", elapsed, rep.Run.Incomplete)
	}
	return fmt.Sprintf("Finished in %s: %d cells.", elapsed, resultCount(rep))
}

func resultCount(rep *engine.Report) int {
	if rep == nil {
		return 0
	}
	return len(rep.Results)
}

// onCancel stops the run; finished cells are kept.
func (r *runTab) onCancel() {
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
