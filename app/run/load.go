package run

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/secret"
)

// behindShownMs is how far behind its schedule the client must send before
// the Run screen says so: below it, the gap is the scheduler's own jitter.
const behindShownMs = 50

// runLoad is the Run screen's load test: its table of rates, shown in
// place of the heatmap while a load test is planned, runs, or ran last.
type runLoad struct {
	On    bool // the table is shown
	plan  engine.LoadPlan
	table *appwidget.LoadTable
	// subtitle is the screen's explanation line, matrixText its words
	// for the matrix.
	subtitle   *widget.Label
	matrixText string
}

// loadSubtitle is the Run screen's explanation line for a load test.
const loadSubtitle = "Requests arrive at each rate in turn, each one timed from its scheduled arrival; the table fills in as rates finish."

// followHeader keeps the explanation line of header, the screen's, to
// word it for the kind of plan shown.
func (r *Tab) followHeader(header fyne.CanvasObject) {
	if r.Load.subtitle = appwidget.HeaderSubtitle(header); r.Load.subtitle != nil {
		r.Load.matrixText = r.Load.subtitle.Text
	}
}

// setLoadShown shows the table of rates (on) or the heatmap, and words
// the screen's explanation line for it.
func (r *Tab) setLoadShown(on bool) {
	r.Load.On = on
	if r.Load.subtitle != nil {
		r.Load.subtitle.SetText(map[bool]string{true: loadSubtitle, false: r.Load.matrixText}[on])
	}
}

// LoadView is the table of rates, made the first time it is needed.
func (r *Tab) LoadView() *appwidget.LoadTable {
	if r.Load.table == nil {
		r.Load.table = appwidget.NewLoadTable(appwidget.LoadRunColumns)
	}
	return r.Load.table
}

// showLoad puts the table of rates where the heatmap was.
func (r *Tab) showLoad(subtitle string) *appwidget.LoadTable {
	r.setLoadShown(true)
	t := r.LoadView()
	r.heatCard.SetContent(t.Object())
	r.heatCard.SetTitle("Load test")
	r.heatCard.SetSubTitle(subtitle)
	return t
}

// hideLoad puts the heatmap back where the table of rates was.
func (r *Tab) hideLoad() {
	if r.Load.On {
		r.setLoadShown(false)
		r.heatCard.SetContent(r.Heat.Object())
	}
}

// showLoadPlan shows, when the Matrix screen is set to a load test, what
// Start would measure, and reports true; else it puts the heatmap back
// and reports false.
func (r *Tab) showLoadPlan() bool {
	l := r.u.State.Load
	if !l.On {
		r.hideLoad()
		return false
	}
	if l.Err != nil {
		r.ProgressLine.SetText("The load test is not ready: fix it on the Matrix screen.")
		r.showLoad("").SetPlanned(engine.LoadPlan{}, "")
		return true
	}
	text := fmt.Sprintf("Ready: a load test of %s, estimated %s. Ctrl+R starts it, Esc stops it.", app.LoadWhat(l.Plan), app.LoadAbout(l.Plan))
	if why := r.u.State.Target.NotReady; why != "" {
		text = notReadyLine(why)
	}
	r.ProgressLine.SetText(text)
	r.showLoad("one row per rate, filled in as each rate finishes").SetPlanned(l.Plan, "will run")
	return true
}

// startLoad starts the Matrix screen's load test against the Server
// screen's target.
func (r *Tab) startLoad() {
	l := r.u.State.Load
	if l.Err != nil {
		r.refuse(app.Notice{Message: "The load test has a problem: " + l.Err.Error() + ".",
			Action: "Fix it on the Matrix screen.", Button: "Open Matrix screen", OnPress: func() { r.u.Show(app.TabMatrix) }}, l.Err)
		return
	}
	target, ok := r.prepare(runs.Setup{}, "")
	if !ok {
		return
	}
	plan := l.Plan
	r.beginLoad(plan, target)
	r.launch(context.Background(), target, func(ctx context.Context, t measure.Subject) <-chan engine.Event {
		return r.u.Deps.Load.RunLoad(ctx, plan, t)
	})
	r.Output.ForLoadTest()
}

// beginLoad resets the screen for a new load test.
func (r *Tab) beginLoad(plan engine.LoadPlan, target measure.Subject) {
	r.plan, r.Load.plan = engine.Plan{}, plan
	r.started, r.estimate, r.found = r.u.Deps.Now(), measure.EstimateLoad(plan), app.ServerFound{}
	r.resetFor(target)
	r.Log.Add(fmt.Sprintf("%s  load test started against %s: %s (estimated %s)", r.started.Format("15:04:05"),
		secret.URL(target.BaseURL), app.LoadWhat(plan), app.LoadAbout(plan)))
	r.setSimulated(target.Header.Server.Simulated, target.Header.Server.SimulatedLabel())
	r.lastRun = false
	r.showLoad("one row per rate, filled in as each rate finishes").SetPlanned(plan, "waiting")
	r.Log.Flush()
}

// showLoadProgress shows where a load test stands: which rate, and within
// it the requests sent and done, those in flight, and how late the client
// sends when it falls behind its schedule.
func (r *Tab) showLoadProgress(p engine.Progress) {
	lp := *p.Load
	line := fmt.Sprintf("Rate %d · elapsed %s", p.CellIndex, app.FormatDuration(p.Elapsed))
	if p.CellCount > 0 {
		r.Progress.SetValue(app.DoneShare(p))
		line = fmt.Sprintf("Rate %d of %d · elapsed %s · about %s left", p.CellIndex, p.CellCount, app.FormatDuration(p.Elapsed), app.FormatDuration(p.ETA))
	}
	r.ProgressLine.SetText(line)
	rate := "a burst"
	if lp.RateRPS > 0 {
		rate = appwidget.PlanRateLabel(lp.RateRPS)
	}
	what := fmt.Sprintf("Now: %s · sent %s of %s · done %s", rate, report.Int(lp.Sent), report.Int(lp.Requests), report.Int(lp.Done))
	if lp.Failed > 0 {
		what += " (" + report.Int(lp.Failed) + " failed)"
	}
	what += " · " + report.Int(lp.InFlight) + " in flight"
	if lp.BehindMs >= behindShownMs {
		what += " · client " + report.Millis(lp.BehindMs) + " behind schedule"
	}
	if p.LiveTokPerSec > 0 {
		what += " · " + report.TokPerSec(p.LiveTokPerSec) + " tok/s now"
	}
	r.Current.SetText(what)
	r.LoadView().SetNote(lp.RateRPS, fmt.Sprintf("%d/%d done", lp.Done, lp.Requests), "waiting")
}

// loadEndLine is the progress line once a load test has ended.
func loadEndLine(rep *engine.Report, err error, elapsed string) string {
	rates := 0
	if rep != nil && rep.Load != nil {
		rates = len(rep.Load.Results)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Sprintf("Stopped after %s: the finished rates are kept.", elapsed)
	case err != nil:
		return fmt.Sprintf("Stopped after %s.", elapsed)
	case rep != nil && !rep.Run.Complete:
		return fmt.Sprintf("Stopped after %s: the finished rates are kept.", elapsed)
	}
	return fmt.Sprintf("Finished in %s: %s.", elapsed, engine.Count(rates, "rate", "rates"))
}

// units names what the run measures one by one: cells, or a load test's rates.
func (r *Tab) units() string {
	if r.Load.On {
		return "rates"
	}
	return "cells"
}
