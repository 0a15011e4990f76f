package run

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/secret"
)

// confirmCancelAfter is how long a run goes before cancelling it asks first:
// a run of seconds is cheap to start again, a longer one is not.
const confirmCancelAfter = 10 * time.Second

// window is what the Run screen asks of the window around it: an autorun
// ends with the run.
type window interface {
	// OnRunDone is told, on the UI goroutine, of a run that ended, once
	// Results shows it.
	OnRunDone(rep *engine.Report, err error)
	// AutorunRefused ends an autorun whose run could not start, with err.
	AutorunRefused(err error)
	// FlushPrefs remembers every screen's settings.
	FlushPrefs()
}

// Tab starts and watches a run: progress, the decode heatmap filling in,
// live GPU telemetry and the event log. Before a run it shows the target
// and the plan as they are now, from the app state.
type Tab struct {
	u *app.UI
	// Host is the window around the screen (connected by newUI).
	Host window
	// Targets gives the target a run measures; reports shows a run once it
	// ends (connected by newUI).
	Targets app.TargetSource
	Reports app.ReportViewer

	StartBtn, CancelBtn *widget.Button
	TargetLine          *widget.Label
	SimBadge            *fyne.Container
	simLabel            string // the badge's label; "" without one
	Banner              *appwidget.Banner
	Progress            *widget.ProgressBar
	ProgressLine        *widget.Label
	Current             *widget.Label
	ServerLine          *widget.Label
	heatCard            *widget.Card
	Heat                *appwidget.Heatmap
	Gauges              *appwidget.TelemetryGauges
	Log                 *appwidget.LogView
	Output              *appwidget.OutputPanel // the text one stream generates now

	cancel     context.CancelFunc // set while a run is in progress
	finished   chan struct{}      // closed when the engine's channel closed
	UiDone     chan struct{}      // closed after the final UI update (tests wait on it)
	plan       engine.Plan
	started    time.Time
	estimate   time.Duration   // what the estimator said at the start
	Saver      runs.Saver      // the run's History folder (the resumed one, else made by the first save) and its last save's failure
	found      app.ServerFound // what the run found of its server so far
	confirming bool            // the cancel confirmation is open
	lastRun    bool            // the grid shows the last run, not the plan
	Load       runLoad         // the load test shown instead of the grid (load.go)
	Sweep      *sweepRun       // the sweep in progress (sweep.go); nil when none
	SweepView  *sweepView      // what the screen shows of a sweep
	// ended, when set (a sweep's run), hears the run's end instead of
	// the Results screen.
	ended func(rep *engine.Report, err error)
	// liftMemoryLimit ends the soft memory limit of the run in progress.
	liftMemoryLimit func()
}

// New builds the Run screen.
func New(u *app.UI) (*Tab, *container.TabItem) {
	r := &Tab{u: u, Heat: appwidget.NewHeatmap("will run"), Log: appwidget.NewLogView(1000), Gauges: appwidget.NewTelemetryGauges(), Banner: appwidget.NewBanner(), Output: appwidget.NewOutputPanel(), SweepView: newSweepView()}
	r.StartBtn = widget.NewButtonWithIcon("Start run (Ctrl+R)", theme.MediaPlayIcon(), r.OnStart)
	r.StartBtn.Importance = widget.HighImportance
	r.CancelBtn = widget.NewButtonWithIcon("Cancel (Esc)", theme.CancelIcon(), r.OnCancel)
	r.CancelBtn.Disable()
	r.TargetLine = widget.NewLabel("")
	r.TargetLine.Truncation = fyne.TextTruncateEllipsis
	r.SimBadge = container.NewHBox()
	r.Progress = widget.NewProgressBar()
	r.ProgressLine = widget.NewLabel("")
	r.ProgressLine.Wrapping = fyne.TextWrapWord
	r.Current = widget.NewLabel("")
	r.Current.TextStyle = fyne.TextStyle{Bold: true}
	r.Current.Truncation = fyne.TextTruncateEllipsis
	r.ServerLine = widget.NewLabel("")
	r.ServerLine.Wrapping = fyne.TextWrapWord

	bar := container.NewBorder(nil, nil, container.NewHBox(r.StartBtn, r.CancelBtn), container.NewHBox(r.SimBadge), r.TargetLine)
	status := container.NewVBox(bar, r.SweepView.Line, r.Progress, r.ProgressLine, r.Current)
	r.heatCard = widget.NewCard("Plan", "", r.Heat.Object())
	// The banner goes over the grid, not across the screen: the side's
	// gauges, Events and Output keep their height.
	left := container.NewBorder(container.NewVBox(r.Banner.Object(), r.SweepView.list), nil, nil, nil, r.heatCard)
	// The gauges take what they need while Events and Output keep 360 px,
	// and 40 % of the side in a short window, where they scroll: Events and
	// Output always keep the rest.
	gauges := container.NewVBox(r.Gauges.Object(), r.ServerLine)
	events := container.NewBorder(widget.NewLabelWithStyle("Events", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		nil, nil, nil, container.NewVSplit(appwidget.Panel(r.Log.Object()), r.Output.Object()))
	side := container.New(&appwidget.ShareTop{Share: 0.4, Keep: 360, Natural: gauges}, container.NewVScroll(gauges), events)
	split := container.NewHSplit(left, side)
	split.Offset = 0.62
	header := appwidget.ScreenHeader("Run", "Each cell keeps its requests streaming for the whole measurement; the heatmap fills in as cells finish.")
	r.followHeader(header) // worded for a load test too (load.go)
	content := appwidget.Screen(container.NewVBox(header, status), split, nil)
	u.State.Watch(app.ChangeTarget|app.ChangePlan, r.ShowPlan)
	r.ShowPlan()
	show := func() { r.Gauges.Show(u.State) }
	show()
	u.State.Watch(app.ChangeTelemetry|app.ChangeTarget, show)
	u.State.Watch(app.ChangeTheme, r.Heat.Redraw)
	return r, container.NewTabItemWithIcon(app.TabRun, theme.MediaPlayIcon(), content)
}

// ShowPlan shows, while no run is going on, what Start would measure: the
// target, its simulated badge, the plan's cells fitted to the server (Over
// capacity where its limits are known) and the estimate.
func (r *Tab) ShowPlan() {
	if r.Running() {
		return
	}
	s := r.u.State
	r.lastRun = false
	r.refreshStart()
	r.Banner.Hide()
	r.hideSweep()
	r.TargetLine.SetText("Target: " + s.Target.Description)
	label := s.Target.Description
	r.setSimulated(s.Target.Simulated, label)
	r.ServerLine.SetText("")
	r.Current.SetText("")
	r.Progress.Hide()
	if r.showLoadPlan() {
		return
	}
	if s.PlanErr != nil {
		r.ProgressLine.SetText("The plan is not ready: fix it on the Matrix screen.")
		r.Heat.SetAxes(nil, nil)
		r.heatCard.SetTitle("Plan")
		r.heatCard.SetSubTitle("")
		return
	}
	fitted := s.Fitted()
	run, over := app.CellCounts(fitted, s.Target.Capacity)
	text := fmt.Sprintf("Ready: %d prefill + %d decode cells, estimated %s.", len(fitted.PrefillContexts), run, app.FormatAbout(measure.Estimate(s.Plan, s.Target.Capacity)))
	switch {
	case over == 1:
		text += " 1 cell is over the server's capacity and will not run."
	case over > 1:
		text += fmt.Sprintf(" %d cells are over the server's capacity and will not run.", over)
	}
	text += " Ctrl+R starts the run, Esc cancels it."
	if why := s.Target.NotReady; why != "" {
		text = notReadyLine(why)
	}
	r.ProgressLine.SetText(text)
	r.heatCard.SetTitle("Plan")
	r.heatCard.SetSubTitle("sustained decode cells · rows are context length, columns are simultaneous requests")
	r.Heat.IdleText = "will run"
	appwidget.PreviewPlan(r.Heat, fitted, s.Target.Capacity)
	r.Heat.Redraw()
}

// setSimulated shows the simulated badge with label, or none.
func (r *Tab) setSimulated(on bool, label string) {
	r.SimBadge.Objects, r.simLabel = nil, ""
	if on {
		r.SimBadge.Objects, r.simLabel = []fyne.CanvasObject{appwidget.Badge(label, appwidget.SimulatedColor)}, label
	}
	r.SimBadge.Refresh()
}

// simulatedNoProfile is the label of a stand-in vllm launched here until
// its run names the profile it serves (engine.ServerInfo.SimulatedLabel).
var simulatedNoProfile = engine.ServerInfo{Simulated: true}.SimulatedLabel()

// refreshStart enables Start run unless a run goes on, the target
// cannot start one (targetInfo.NotReady, which the plan line then says) or
// the Matrix screen's load test has a field to fix.
func (r *Tab) refreshStart() {
	if l := r.u.State.Load; r.Running() || r.u.State.Target.NotReady != "" || l.On && l.Err != nil {
		r.StartBtn.Disable()
	} else {
		r.StartBtn.Enable()
	}
}

// notReadyLine is the Run screen's line for a target that cannot start a
// run, why being targetInfo.NotReady.
func notReadyLine(why string) string { return "Start run is off: " + why }

// Running reports whether a run or a sweep is in progress.
func (r *Tab) Running() bool { return r.cancel != nil || r.Sweep != nil }

// OnStart starts the run with the Matrix screen's plan and the Server
// screen's target.
func (r *Tab) OnStart() {
	if r.Running() {
		return
	}
	if r.u.State.Load.On {
		r.startLoad()
		return
	}
	if err := r.u.State.PlanErr; err != nil {
		r.refuse(app.Notice{Message: "The matrix has a problem: " + err.Error() + ".",
			Action: "Fix it on the Matrix screen.", Button: "Open Matrix screen", OnPress: func() { r.u.Show(app.TabMatrix) }}, err)
		return
	}
	r.StartWith(r.u.State.Plan, nil, "")
}

// ResumeRun comes to the front and finishes a partial run saved in dir
// (runStarter): the engine measures the cells it did not finish and keeps the rest.
func (r *Tab) ResumeRun(prev engine.Report, dir string) {
	if r.Running() {
		return
	}
	r.u.Show(app.TabRun)
	r.StartWith(prev.Plan, &prev, dir)
}

// StartWith starts plan against the Server screen's target; with prev it
// resumes that run.
func (r *Tab) StartWith(plan engine.Plan, prev *engine.Report, dir string) {
	setup := runs.Setup{}
	if prev != nil {
		setup.Resume = &measure.Resume{Report: *prev}
	}
	phase, err := qualityPhaseOf(r.u.State.Quality, prev, r.u.State.Settings.FirstToken())
	if err != nil {
		n := app.ProblemNotice(err)
		n.Button, n.OnPress = "Open Matrix screen", func() { r.u.Show(app.TabMatrix) }
		r.refuse(n, err)
		return
	}
	target, ok := r.prepare(setup, dir)
	if !ok {
		return
	}
	run := r.engineRun(plan)
	if phase != nil {
		run = phase.wrap(run)
		if phase.record == "" && target.Header.Quality == nil {
			// The reference is named from the first cell on: a run cut
			// short anywhere resumes with it (runs.Pending).
			target.Header.Quality = phase.q.Section()
		}
	}
	c := r.u.State.Target.Capacity
	r.Begin(plan, target, prev, c)
	if d := phase.estimate(prev); d > 0 {
		r.estimate += d
		r.Log.Add("then the quality phase, estimated " + app.FormatAbout(d))
	}
	r.launch(context.Background(), target, run)
}

// engineRun is the engine's run of plan.
func (r *Tab) engineRun(plan engine.Plan) runFunc {
	return func(ctx context.Context, t measure.Subject) <-chan engine.Event {
		return r.u.Deps.Engine.Run(ctx, plan, t)
	}
}

// measure runs plan against target, ready (prepare), until it ends or
// parent does; with prev it resumes that run. c is what the server is
// known to hold, for the screen's grid and estimate.
func (r *Tab) measure(parent context.Context, plan engine.Plan, target measure.Subject, prev *engine.Report, c app.Capacity) {
	r.Begin(plan, target, prev, c)
	r.launch(parent, target, r.engineRun(plan))
}

// refuse explains why a run cannot start.
func (r *Tab) refuse(n app.Notice, err error) {
	r.Banner.Show(n)
	r.ProgressLine.SetText("Not started.")
	if r.u.Opts.Autorun && r.u.Opts.Export != "" {
		r.Host.AutorunRefused(err)
	}
}

// resetFor clears what the last run or load test left on the screen and
// shows that target is being connected to.
func (r *Tab) resetFor(target measure.Subject) {
	r.Banner.Hide()
	r.StartBtn.Disable()
	r.CancelBtn.Enable()
	r.Progress.SetValue(0)
	r.Progress.Show()
	r.ProgressLine.SetText("Connecting to " + secret.URL(target.BaseURL) + " …")
	r.Current.SetText("")
	r.ServerLine.SetText("")
	if r.Sweep == nil {
		r.Log.Clear() // a sweep's tells the whole sweep
		r.hideSweep()
	}
}

// Begin resets the screen for a new run.
func (r *Tab) Begin(plan engine.Plan, target measure.Subject, prev *engine.Report, c app.Capacity) {
	r.plan, r.started, r.estimate, r.found = plan, r.u.Deps.Now(), measure.Estimate(plan, c), app.ServerFound{}
	r.resetFor(target)
	verb := "run started"
	if prev != nil {
		verb = "resuming the run of " + prev.Run.StartedAt.Format("2006-01-02 15:04")
	}
	r.Log.Add(fmt.Sprintf("%s  %s against %s (estimated %s)", r.started.Format("15:04:05"), verb, secret.URL(target.BaseURL), app.FormatAbout(r.estimate)))
	r.setSimulated(target.Header.Server.Simulated, target.Header.Server.SimulatedLabel())
	fitted := c.Fit(plan)
	r.lastRun = false
	r.hideLoad()
	r.heatCard.SetTitle("Sustained decode")
	r.heatCard.SetSubTitle("total tok/s · rows are context length, columns are simultaneous requests")
	r.Heat.IdleText = "waiting"
	r.Heat.SetSLO(plan.SLO)
	appwidget.PreviewPlan(r.Heat, fitted, c)
	if prev != nil {
		for _, res := range prev.Results {
			if res.Phase == engine.PhaseDecode && res.Status.Final() {
				r.Heat.SetResult(res)
			}
		}
	}
	r.Heat.Redraw()
	r.Log.Flush()
}

// publish tells the other screens (the sidebar) how the run is going.
func (r *Tab) publish() {
	info := app.RunInfo{Running: r.Running(), Started: r.started, Found: r.found, Sweep: r.Sweep != nil}
	if r.Running() {
		info.Progress, info.Server = r.u.State.Run.Progress, r.u.State.Run.Server
	}
	r.u.State.SetRun(info)
}

// Apply shows a coalesced update; UI goroutine only.
func (r *Tab) Apply(u RunUpdate) {
	if p := u.Progress; p != nil {
		r.showProgress(*p)
		r.showSweepCells(*p)
	}
	if s := u.Server; s != nil && !u.done {
		r.ServerLine.SetText(ServerLine(*s, u.ServerAt, u.CellFrom))
	}
	for _, res := range u.Results {
		r.Heat.SetResult(res)
	}
	for _, res := range u.loads {
		r.LoadView().SetResult(res)
	}
	if len(u.Results) > 0 || u.done {
		r.Heat.Redraw()
	}
	for _, line := range u.Logs {
		r.Log.Add(line)
	}
	if u.Report != nil {
		r.found = app.FoundIn(*u.Report)
		if e := u.Report.Server; e.Simulated && (len(r.SimBadge.Objects) == 0 || r.simLabel == simulatedNoProfile) {
			// Found simulated only by the run (speedmatrix sim at an
			// endpoint), or its profile named only by the run (a stand-in vllm).
			r.setSimulated(true, e.SimulatedLabel())
		}
		if !u.done {
			r.Save(*u.Report)
		}
	}
	if len(u.Output) > 0 {
		r.Output.Show(u.Output)
	}
	if u.Progress != nil || u.Server != nil || u.Report != nil {
		st := r.u.State.Run
		st.Progress, st.Server, st.Found = cmp.Or(u.Progress, st.Progress), cmp.Or(u.Server, st.Server), r.found
		r.u.State.SetRun(st)
	}
	if u.done {
		r.finish(u.Report, u.err)
	}
	r.Log.Flush()
}

func (r *Tab) showProgress(p engine.Progress) {
	if p.Load != nil {
		r.showLoadProgress(p)
		return
	}
	if q := p.Quality; q != nil {
		r.Progress.SetValue(1)
		line := "Every cell measured · quality phase · elapsed " + app.FormatDuration(p.Elapsed)
		if p.ETA > 0 { // a recording has no estimate: its reference is not known yet
			line += " · about " + app.FormatDuration(p.ETA) + " left"
		}
		r.ProgressLine.SetText(line)
		r.Current.SetText(QualityNow(*q))
		return
	}
	if p.CellCount > 0 {
		r.Progress.SetValue(float64(p.CellIndex-1) / float64(p.CellCount))
	}
	r.ProgressLine.SetText(fmt.Sprintf("Cell %d of %d · elapsed %s · about %s left",
		p.CellIndex, p.CellCount, app.FormatDuration(p.Elapsed), app.FormatDuration(p.ETA)))
	what := fmt.Sprintf("Now: %s · %s context", p.Cell.Phase.Title(), engine.ContextLabel(p.Cell.ContextTokens))
	if p.Cell.Phase == engine.PhaseDecode {
		what += " · " + engine.Count(p.Cell.Concurrency, "request", "requests") + " at once"
		r.Heat.SetRunning(p.Cell.ContextTokens, p.Cell.Concurrency)
		r.Heat.Redraw()
	}
	if p.LiveTokPerSec > 0 {
		what += " · " + report.TokPerSec(p.LiveTokPerSec) + " tok/s now"
	}
	r.Current.SetText(what)
}

// QualityNow is the Run screen's line of the quality phase's step.
func QualityNow(q engine.QualityProgress) string {
	what := map[string]string{"record": "recording the reference", "compare": "comparing with the reference", "needle": "needle trials", "tasks": "task items"}[q.Step]
	if q.Step == "tasks" {
		return fmt.Sprintf("Now: quality, %s · %d of %d", what, q.Done+1, q.Of)
	}
	unit := map[string]string{"needle": "trial"}[q.Step]
	if unit == "" {
		unit = "probe"
	}
	return fmt.Sprintf("Now: quality, %s · %s context · %s %d of %d", what, engine.ContextLabel(q.ContextTokens), unit, q.Done+1, q.Of)
}
