package cli

import (
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
	if h.Server == nil {
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
// the end, and turns the run's end into Run's error and exit code. The
// charts are drawn at the end, except for a run that SIGINT or SIGTERM
// (ctx) interrupted, which ends at once; a signal while they are drawn
// stops them.
func consume(ctx context.Context, events <-chan engine.Event, out string, stdout io.Writer,
	writeCharts func(context.Context, string, engine.Report) error) error {
	var last engine.Progress
	saver := runs.Saver{Dir: out}
	var done engine.Event
	for ev := range events {
		switch ev.Kind {
		case engine.EventProgress:
			last = *ev.Progress
		case engine.EventLog:
			fmt.Fprintf(stdout, "  note: %s\n", ev.Log)
		case engine.EventResult:
			fmt.Fprintln(stdout, cellLine(*ev.Result, last))
			if _, err := saver.Keep(*ev.Report); err != nil {
				fmt.Fprintf(stdout, "  warning: %v (the results are kept in memory and saved again after the next cell)\n", err)
			}
		case engine.EventDone:
			done = ev
		}
	}
	if done.Report == nil {
		return errors.New("run: the engine ended without a report")
	}
	rep := *done.Report
	saveErr := saver.Err
	if saved, err := saver.Keep(rep); saved {
		saveErr = err
		if interrupted := done.Err != nil && ctx.Err() != nil; saveErr == nil && !interrupted {
			saveErr = writeCharts(ctx, out, rep)
		}
	}
	for _, w := range report.PCIeWarnings(rep.Results) {
		fmt.Fprintf(stdout, "  warning: %s\n", w)
	}
	if err := finish(done.Err, rep, out, saveErr); err != nil {
		return err
	}
	fmt.Fprintln(stdout, summary(rep, out))
	return nil
}

// finish is the run's last line and exit code.
func finish(runErr error, rep engine.Report, out string, saveErr error) error {
	var busy *measure.BusyError
	var changed *measure.ServerChangedError
	switch {
	case errors.As(runErr, &busy):
		return exitWith(ExitCantStart, fmt.Errorf("run: %v. Stop them or pass --allow-busy", busy))
	case errors.As(runErr, &changed):
		return exitWith(ExitCantStart, fmt.Errorf("run --resume: %v: point at the server the run began with, or pass --force to measure this one", changed))
	case errors.Is(runErr, measure.ErrServerStopped), errors.Is(runErr, measure.ErrInterrupted):
		why := "interrupted"
		if errors.Is(runErr, measure.ErrServerStopped) {
			why = runErr.Error()
		}
		msg := fmt.Errorf("run incomplete: %d of %d cells done (%s); %s", countKept(rep.Results), len(rep.Results), why, resumeAdvice(runErr, out, saveErr))
		return exitWith(ExitIncomplete, msg)
	case runErr != nil:
		return exitWith(ExitCantStart, withAdvice(fmt.Errorf("run: %w", runErr)))
	case errors.Is(saveErr, context.Canceled):
		return exitWith(ExitExport, fmt.Errorf("run: measured every cell, but the charts were not drawn (interrupted): draw them with speedmatrix report --in %s --out %s",
			filepath.Join(out, report.JSONFile), out))
	case saveErr != nil:
		return exitWith(ExitExport, fmt.Errorf("run: measured every cell, but %w: free space or fix the permissions of --out %s, then redraw with speedmatrix report --in %s --out %s",
			saveErr, out, filepath.Join(out, report.JSONFile), out))
	}
	return nil
}

// resumeAdvice says how to finish an incomplete run.
func resumeAdvice(runErr error, out string, saveErr error) string {
	if saveErr != nil {
		return fmt.Sprintf("and saving failed: %v", saveErr)
	}
	if errors.Is(runErr, measure.ErrServerStopped) {
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
