package run

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"speedmatrix/app"
	"speedmatrix/engine"
)

// finish ends the run on screen and hands the report on.
func (r *Tab) finish(rep *engine.Report, err error) {
	r.cancel = nil
	r.confirming = false
	r.refreshStart()
	r.CancelBtn.Disable()
	r.Heat.SetRunning(0, 0)
	took := r.u.Deps.Now().Sub(r.started)
	line := endLine(rep, err, app.FormatDuration(took))
	if r.Load.On {
		line = loadEndLine(rep, err, app.FormatDuration(took))
	}
	r.ProgressLine.SetText(line)
	if rep != nil {
		// The final report lists the cell cut short as Cancelled and the
		// cells never reached as Not run.
		for _, res := range rep.Results {
			if res.Phase == engine.PhaseDecode {
				r.Heat.SetResult(res)
			}
		}
	}
	if err == nil && rep != nil && rep.Run.Complete {
		r.Progress.SetValue(1)
		r.Heat.DropEmptyRows()
	}
	r.Heat.IdleText = "not run"
	r.Heat.Redraw()
	r.lastRun = true
	r.heatCard.SetTitle("Last run")
	r.Output.RunEnded()
	r.Current.SetText("")
	r.ServerLine.SetText("")
	r.Log.Add(fmt.Sprintf("%s  run ended after %s; estimated %s", r.u.Deps.Now().Format("15:04:05"), app.FormatDuration(took), app.FormatAbout(r.estimate)))
	switch {
	case errors.Is(err, context.Canceled):
		r.Log.Add("run cancelled by you: the finished " + r.units() + " are kept")
	case err != nil:
		r.Log.Add("run ended: " + err.Error())
		n, ok := qualityNotice(err, r.u.Show)
		if !ok {
			n = app.NoticeOf(err, "The run stopped early.", r.u.Show)
		}
		r.Banner.Show(n)
	case r.Load.On && rep != nil && !rep.Run.Complete && rep.Run.Incomplete != "":
		r.Banner.Show(app.Notice{Message: "The load test stopped before every rate was measured.", Action: "Its finished rates are kept: Results shows them.", Detail: rep.Run.Incomplete})
	case rep != nil && !rep.Run.Complete && rep.Run.Incomplete != "" && r.ended == nil:
		r.Banner.Show(app.Notice{Message: "The run stopped before every cell was measured.", Action: "Resume it from Results when the server is back.",
			Button: "Open Results screen", OnPress: func() { r.u.Show(app.TabResults) }, Detail: rep.Run.Incomplete})
	}
	if app.MeasuredAnything(rep) {
		r.Save(*rep)
	}
	r.Saver.Release()
	r.publish()
	var drawn <-chan struct{}
	switch end := r.ended; {
	case end != nil: // a sweep's run: the sweep goes on
		r.ended = nil
		end(rep, err)
	case app.MeasuredAnything(rep):
		drawn = r.Reports.OpenReport(*rep, cmp.Or(r.Saver.Kept(), r.Saver.Dir))
		fallthrough
	default:
		r.Host.OnRunDone(rep, err)
	}
	r.liftLimit(drawn)
	close(r.UiDone)
}

// liftLimit ends the run's memory limit once Results has drawn the run
// (drawn is closed, nil when Results shows nothing): that too is within the
// limit. Pictures that are never drawn (a Results screen that is not shown)
// do not keep it.
func (r *Tab) liftLimit(drawn <-chan struct{}) {
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

// OnCancel stops the run; finished cells are kept. A run that has gone on
// for longer than confirmCancelAfter asks first.
func (r *Tab) OnCancel() {
	if r.Sweep != nil {
		r.onStopSweep()
		return
	}
	if r.cancel == nil || r.confirming {
		return
	}
	took := r.u.Deps.Now().Sub(r.started)
	if took <= confirmCancelAfter {
		r.CancelNow()
		return
	}
	r.confirming = true
	what := fmt.Sprintf("It started at %s. The finished cells are kept (Resume in Results measures the rest); the cell being measured now is lost.", r.started.Format("15:04:05"))
	if r.Load.On {
		what = fmt.Sprintf("It started at %s. The finished rates are kept; the rate being measured now is lost.", r.started.Format("15:04:05"))
	}
	r.u.Confirm("Cancel the run?", what,
		"Cancel the run", "Keep running",
		func(ok bool) {
			r.confirming = false
			if ok {
				r.CancelNow()
			}
		})
}

// CancelNow cancels the run without asking.
func (r *Tab) CancelNow() {
	if r.cancel == nil {
		return
	}
	r.ProgressLine.SetText("Cancelling …")
	r.CancelBtn.Disable()
	r.cancel()
}

// Stop cancels a run and waits up to timeout for the engine to stop.
func (r *Tab) Stop(timeout time.Duration) {
	r.stopSweep(timeout)
	if r.cancel == nil {
		return
	}
	r.cancel()
	select {
	case <-r.finished:
	case <-time.After(timeout):
	}
}

// liftMemoryLimitAfter is how long the end of a run waits for Results to
// draw it before lifting the run's memory limit anyway.
const liftMemoryLimitAfter = 30 * time.Second
