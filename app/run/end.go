package shell

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
func (r *runTab) finish(rep *engine.Report, err error) {
	r.cancel = nil
	r.confirming = false
	r.refreshStart()
	r.cancelBtn.Disable()
	r.heat.SetRunning(0, 0)
	took := r.u.Deps.Now().Sub(r.started)
	line := endLine(rep, err, app.FormatDuration(took))
	if r.load.on {
		line = loadEndLine(rep, err, app.FormatDuration(took))
	}
	r.progressLine.SetText(line)
	if rep != nil {
		// The final report lists the cell cut short as Cancelled and the
		// cells never reached as Not run.
		for _, res := range rep.Results {
			if res.Phase == engine.PhaseDecode {
				r.heat.SetResult(res)
			}
		}
	}
	if err == nil && rep != nil && rep.Run.Complete {
		r.progress.SetValue(1)
		r.heat.DropEmptyRows()
	}
	r.heat.IdleText = "not run"
	r.heat.Redraw()
	r.lastRun = true
	r.heatCard.SetTitle("Last run")
	r.output.runEnded()
	r.current.SetText("")
	r.serverLine.SetText("")
	r.log.Add(fmt.Sprintf("%s  run ended after %s; estimated %s", r.u.Deps.Now().Format("15:04:05"), app.FormatDuration(took), app.FormatAbout(r.estimate)))
	switch {
	case errors.Is(err, context.Canceled):
		r.log.Add("run cancelled by you: the finished " + r.units() + " are kept")
	case err != nil:
		r.log.Add("run ended: " + err.Error())
		n, ok := qualityNotice(err, r.u.Show)
		if !ok {
			n = noticeOf(err, "The run stopped early.", r.u.Show)
		}
		r.banner.Show(n)
	case r.load.on && rep != nil && !rep.Run.Complete && rep.Run.Incomplete != "":
		r.banner.Show(app.Notice{Message: "The load test stopped before every rate was measured.", Action: "Its finished rates are kept: Results shows them.", Detail: rep.Run.Incomplete})
	case rep != nil && !rep.Run.Complete && rep.Run.Incomplete != "" && r.ended == nil:
		r.banner.Show(app.Notice{Message: "The run stopped before every cell was measured.", Action: "Resume it from Results when the server is back.",
			Button: "Open Results screen", OnPress: func() { r.u.Show(app.TabResults) }, Detail: rep.Run.Incomplete})
	}
	if app.MeasuredAnything(rep) {
		r.Save(*rep)
	}
	r.saver.Release()
	r.publish()
	var drawn <-chan struct{}
	switch end := r.ended; {
	case end != nil: // a sweep's run: the sweep goes on
		r.ended = nil
		end(rep, err)
	case app.MeasuredAnything(rep):
		drawn = r.reports.openReport(*rep, cmp.Or(r.saver.Kept(), r.saver.Dir))
		fallthrough
	default:
		r.host.onRunDone(rep, err)
	}
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
	if r.sweep != nil {
		r.onStopSweep()
		return
	}
	if r.cancel == nil || r.confirming {
		return
	}
	took := r.u.Deps.Now().Sub(r.started)
	if took <= confirmCancelAfter {
		r.cancelNow()
		return
	}
	r.confirming = true
	what := fmt.Sprintf("It started at %s. The finished cells are kept (Resume in Results measures the rest); the cell being measured now is lost.", r.started.Format("15:04:05"))
	if r.load.on {
		what = fmt.Sprintf("It started at %s. The finished rates are kept; the rate being measured now is lost.", r.started.Format("15:04:05"))
	}
	r.u.Confirm("Cancel the run?", what,
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
