package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/capture"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// writeStartedAs prints, under the run's first line, how a server the user
// started was launched (read from its process), or why that is not known.
func writeStartedAs(w io.Writer, h engine.Report) {
	if h.Process == nil {
		return
	}
	if cmd, ok := strings.CutPrefix(h.LaunchCommand, capture.NotCapturedPrefix); ok {
		fmt.Fprintf(w, "  launch command: not captured: %s\n", cmd)
		return
	}
	fmt.Fprintln(w, "  launch command:")
	for _, line := range strings.Split(h.LaunchCommand, "\n") {
		fmt.Fprintln(w, "    "+line)
	}
}

// consume prints the run's events, saves the report after every cell and at
// the end (saver holds --out), and turns the run's end into Run's error and
// exit code. When nothing can take the report any more, it stops the run
// (stop): what it measured next would be lost. The charts are drawn at the
// end, except for a run that SIGINT or SIGTERM (ctx) interrupted, which
// ends at once; a signal while they are drawn stops them.
func consume(ctx context.Context, events <-chan engine.Event, saver *runs.Saver, stdout io.Writer,
	writeCharts func(context.Context, string, engine.Report) error, stop func()) error {
	_, err := consumeReport(ctx, events, saver, stdout, writeCharts, stop)
	return err
}

// consumeReport is consume that also returns the run's last report (a
// sweep's summary reads it).
func consumeReport(ctx context.Context, events <-chan engine.Event, saver *runs.Saver, stdout io.Writer,
	writeCharts func(context.Context, string, engine.Report) error, stop func()) (engine.Report, error) {
	return consumeWith(ctx, events, saver, stdout, writeCharts, stop, nil)
}

// consumeWith is consumeReport with a quality phase (nil: none) run once
// every cell is measured, before the charts: the ETA of every cell
// includes it.
func consumeWith(ctx context.Context, events <-chan engine.Event, saver *runs.Saver, stdout io.Writer,
	writeCharts func(context.Context, string, engine.Report) error, stop func(), phase *qualityPhase) (engine.Report, error) {
	done, stopped := follow(events, saver, stdout, stop, func(ev engine.Event, last engine.Progress) {
		if phase != nil {
			last.ETA += phase.estimate(*ev.Report)
			runs.Unfinished(ev.Report) // the phase follows the last cell
		}
		fmt.Fprintln(stdout, cellLine(*ev.Result, last))
	})
	if done.Report == nil {
		return engine.Report{}, errors.New("run: the engine ended without a report")
	}
	rep := *done.Report
	var phaseErr error
	if phase != nil && done.Err == nil && !stopped {
		rep, phaseErr = phase.run(ctx, rep)
	}
	saveErr := keepFinal(ctx, saver, rep, cmp.Or(done.Err, phaseErr), writeCharts)
	if phaseErr != nil {
		if errors.Is(phaseErr, errUnsaved) {
			return rep, exitWith(exitExport, fmt.Errorf("run: measured every cell, but %w", unsavedAdvice(saveErr, saver.Dir)))
		}
		return rep, qualityStopped(phaseErr, rep, saver.Dir, phase.q.File)
	}
	for _, w := range report.PCIeWarnings(rep.Results) {
		fmt.Fprintf(stdout, "  warning: %s\n", w)
	}
	runErr := done.Err
	if stopped && errors.Is(runErr, measure.ErrInterrupted) {
		runErr = errUnsaved
	}
	if err := finish(runErr, rep, saver.Dir, saveErr); err != nil {
		return rep, err
	}
	fmt.Fprintln(stdout, summary(rep, saver.Dir))
	writeSLOLines(stdout, rep)
	writeEnergyLines(stdout, rep)
	return rep, nil
}

// writeSLOLines prints the SLO's line per decode context, when the plan
// sets one; a simulated run's say so.
func writeSLOLines(w io.Writer, r engine.Report) {
	writeLabelled(w, r, "SLO ", "SLO", report.SLOLines(r))
}

// writeLabelled prints lines, each after "  "+plain, or for a simulated
// run after "  "+what+", simulated (profile P): ".
func writeLabelled(w io.Writer, r engine.Report, plain, what string, lines []string) {
	prefix := "  " + plain
	if sim := r.Server.SimulatedLabel(); sim != "" {
		prefix = "  " + what + ", " + sim + ": "
	}
	for _, l := range lines {
		fmt.Fprintln(w, prefix+l)
	}
}

// errUnsaved is a run stopped because nothing could take its report.
var errUnsaved = fmt.Errorf("%w: stopped, since no folder could take what it measured", measure.ErrInterrupted)

// keepCell saves the report after a cell and says what changed: a save
// that --out could not take and where the cells are instead, or --out
// taking them again. It returns false when no folder took the report.
func keepCell(s *runs.Saver, rep engine.Report, w io.Writer) bool {
	failing, lost, rescue := s.Err != nil, s.Err != nil && !rescued(s.Err), s.Rescued
	_, err := s.Keep(rep)
	switch {
	case err == nil && failing:
		fmt.Fprintf(w, "  note: saved into %s again\n", s.Dir)
	case err == nil:
	case !rescued(err):
		if !lost {
			fmt.Fprintf(w, "  warning: %v\n", err)
		}
		return false
	case !failing || s.Rescued != rescue:
		fmt.Fprintf(w, "  warning: %v (and after every cell until %s takes it again)\n", err, s.Dir)
	}
	return true
}

// rescued reports whether err is a save that a rescue folder took whole.
func rescued(err error) bool {
	var se *runs.SaveError
	return errors.As(err, &se) && se.Rescued
}

// chartError names the folder the charts could not be drawn in.
func chartError(err error, dir string) error {
	if err == nil {
		return nil
	}
	return &unchartedError{err: err, dir: dir}
}

// unchartedError is a report saved in dir whose charts could not be drawn.
type unchartedError struct {
	err error
	dir string
}

func (e *unchartedError) Error() string { return e.err.Error() }
func (e *unchartedError) Unwrap() error { return e.err }

// finish is the run's last line and exit code.
func finish(runErr error, rep engine.Report, out string, saveErr error) error {
	var busy *measure.BusyError
	var changed *measure.ServerChangedError
	switch {
	case errors.As(runErr, &busy):
		return exitWith(exitCantStart, fmt.Errorf("run: %v. Stop them or pass --allow-busy", busy))
	case errors.As(runErr, &changed):
		return exitWith(exitCantStart, fmt.Errorf("run --resume: %v: point at the server the run began with, or pass --force to measure this one", changed))
	case errors.Is(runErr, measure.ErrServerStopped), errors.Is(runErr, measure.ErrInterrupted):
		why := "interrupted"
		if errors.Is(runErr, measure.ErrServerStopped) || errors.Is(runErr, errUnsaved) {
			why = runErr.Error()
		}
		msg := fmt.Errorf("run incomplete: %d of %d cells done (%s); %s", countKept(rep.Results), len(rep.Results), why, resumeAdvice(runErr, out, saveErr))
		return exitWith(exitIncomplete, msg)
	case runErr != nil:
		return exitWith(exitCantStart, withAdvice(fmt.Errorf("run: %w", runErr)))
	case errors.Is(saveErr, context.Canceled):
		dir := out
		var uncharted *unchartedError
		if errors.As(saveErr, &uncharted) {
			dir = uncharted.dir
		}
		return exitWith(exitExport, fmt.Errorf("run: measured every cell, but the charts were not drawn (interrupted): draw them with speedmatrix report --in %s --out %s",
			filepath.Join(dir, report.JSONFile), dir))
	case saveErr != nil:
		return exitWith(exitExport, fmt.Errorf("run: measured every cell, but %w", unsavedAdvice(saveErr, out)))
	}
	return nil
}

// unsavedAdvice is saveErr, a save or the charts after it that failed, with
// what to do about it.
func unsavedAdvice(saveErr error, out string) error {
	var se *runs.SaveError
	if err, ok := keptAdvice(saveErr, out); ok {
		return err
	}
	if errors.As(saveErr, &se) && se.Kept != "" {
		return fmt.Errorf("%w: free space, then finish it with speedmatrix run --resume %s", saveErr, se.Kept)
	}
	return fmt.Errorf("%w: free space or fix the permissions of --out %s, then run again", saveErr, out)
}

// keptAdvice is saveErr with what to do when what was measured is kept
// whole: a rescue folder to copy where it belongs, or charts to redraw
// (report --in redraws them from the saved report; measuring again is not
// needed); ok is false for neither. The one advice of run, load and sweep.
func keptAdvice(saveErr error, out string) (err error, ok bool) {
	var se *runs.SaveError
	var uncharted *unchartedError
	switch {
	case errors.As(saveErr, &se) && se.Rescued:
		return fmt.Errorf("%w: copy that folder where you want it (--out %s holds an older report)", saveErr, out), true
	case errors.As(saveErr, &uncharted):
		return fmt.Errorf("%w: the measurements are saved; free space or fix the permissions of %s, then redraw the charts with speedmatrix report --in %s",
			saveErr, uncharted.dir, uncharted.dir), true
	}
	return nil, false
}

// resumeAdvice says how to finish an incomplete run: from --out, or from
// where its cells were saved instead. (Charts that could not be drawn are
// drawn when the resumed run ends.)
func resumeAdvice(runErr error, out string, saveErr error) string {
	var se *runs.SaveError
	switch {
	case errors.As(saveErr, &se) && se.Rescued:
		return fmt.Sprintf("%v: finish it with: speedmatrix run --resume %s", saveErr, se.Kept)
	case errors.As(saveErr, &se) && se.Kept != "":
		return fmt.Sprintf("%v: free space, then finish it with: speedmatrix run --resume %s", saveErr, se.Kept)
	case se != nil:
		return fmt.Sprintf("%v: nothing was saved; free space, then run again", saveErr)
	case errors.Is(runErr, measure.ErrServerStopped):
		return "when the server is back, finish with: speedmatrix run --resume " + out
	}
	return "finish it with: speedmatrix run --resume " + out
}

// cellLine is the one line printed per finished cell: report.CellLine
// after the cell's place in the run, and the time left.
func cellLine(r engine.Result, p engine.Progress) string {
	line := fmt.Sprintf("[%*d/%d] %s", width(p.CellCount), p.CellIndex, p.CellCount, report.CellLine(r))
	if p.ETA > 0 {
		line += "  (ETA " + p.ETA.Round(time.Second).String() + ")"
	}
	return line
}

func width(n int) int { return len(fmt.Sprint(n)) }

// countKept counts the cells a resume keeps: neither Failed nor left to
// measure.
func countKept(rs []engine.Result) int {
	n := 0
	for _, r := range rs {
		if r.Status.Final() && r.Status != engine.StatusFailed {
			n++
		}
	}
	return n
}

// summary is the final line: how many cells of each status, and where.
func summary(r engine.Report, out string) string {
	counts := map[engine.Status]int{}
	for _, res := range r.Results {
		counts[res.Status]++
	}
	var parts []string
	for _, s := range []engine.Status{engine.StatusValid, engine.StatusLooped, engine.StatusOverCapacity, engine.StatusFailed} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], strings.ToLower(string(s))))
		}
	}
	took := r.Run.FinishedAt.Sub(r.Run.StartedAt).Round(time.Second)
	return fmt.Sprintf("done: %d cells (%s) in %s; saved %s/{%s,%s,%s} and charts", len(r.Results), strings.Join(parts, ", "), took,
		strings.TrimRight(out, "/"), report.JSONFile, report.CSVFile, report.MarkdownFile)
}

// keepFinal saves the report a run or a load test ended with, then its
// charts beside it unless it was interrupted; it returns what went wrong
// with either (or the saver's earlier error when this report was not
// saved, being the one already kept).
func keepFinal(ctx context.Context, saver *runs.Saver, rep engine.Report, runErr error,
	writeCharts func(context.Context, string, engine.Report) error) error {
	saveErr := saver.Err
	if saved, err := saver.Keep(rep); saved {
		saveErr = err
		interrupted := runErr != nil && ctx.Err() != nil
		if kept := saver.Kept(); kept != "" && (err == nil || rescued(err)) && !interrupted {
			saveErr = cmp.Or(err, chartError(writeCharts(ctx, kept, rep), kept))
		}
	}
	return saveErr
}

// follow reads a run's or a load test's events to the end: it prints the
// log (a note, or a warning), lets item print each finished cell or rate
// (EventResult, EventLoad) with the progress before it, saves the report
// after each and, once nothing can take it, stops the run (stop): what it
// measured next would be lost. It returns the EventDone, and whether it
// stopped the run.
func follow(events <-chan engine.Event, saver *runs.Saver, stdout io.Writer, stop func(),
	item func(ev engine.Event, last engine.Progress)) (done engine.Event, stopped bool) {
	var last engine.Progress
	for ev := range events {
		switch ev.Kind {
		case engine.EventProgress:
			last = *ev.Progress
		case engine.EventLog:
			if !strings.HasPrefix(ev.Log, "warning: ") {
				ev.Log = "note: " + ev.Log
			}
			fmt.Fprintf(stdout, "  %s\n", ev.Log)
		case engine.EventResult, engine.EventLoad:
			item(ev, last)
			if !keepCell(saver, *ev.Report, stdout) && !stopped {
				stopped = true
				stop()
			}
		case engine.EventDone:
			done = ev
		}
	}
	return done, stopped
}
