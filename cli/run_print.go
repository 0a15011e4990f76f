package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// consume prints the run's events, saves the report after every cell and at
// the end, and turns the run's end into Run's error.
func consume(events <-chan engine.Event, out string, stdout io.Writer) error {
	var last engine.Progress
	var saveErr error
	var done engine.Event
	for ev := range events {
		switch ev.Kind {
		case engine.EventProgress:
			last = *ev.Progress
		case engine.EventLog:
			fmt.Fprintf(stdout, "  note: %s\n", ev.Log)
		case engine.EventResult:
			fmt.Fprintln(stdout, cellLine(*ev.Result, last))
			if err := report.Save(out, *ev.Report); err != nil && saveErr == nil {
				saveErr = err
				fmt.Fprintf(stdout, "  warning: %v\n", err)
			}
		case engine.EventDone:
			done = ev
		}
	}
	if done.Report == nil {
		return errors.New("run: the engine ended without a report")
	}
	rep := *done.Report
	if len(rep.Results) > 0 {
		if err := report.Save(out, rep); err != nil {
			return fmt.Errorf("run: %w: check that --out %s is writable", err, out)
		}
		if err := writeCharts(out, rep); err != nil {
			fmt.Fprintf(stdout, "  warning: charts: %v\n", err)
		}
	}
	if saveErr != nil {
		return fmt.Errorf("run: %w: check that --out %s is writable", saveErr, out)
	}
	if done.Err != nil {
		if errors.Is(done.Err, context.Canceled) && len(rep.Results) > 0 {
			return fmt.Errorf("run interrupted after %d of %d cells; finish it with: speedmatrix run --resume %s",
				countFinal(rep.Results), last.CellCount, out)
		}
		return fmt.Errorf("run: %w", done.Err)
	}
	fmt.Fprintln(stdout, summary(rep, out))
	return nil
}

// cellLine is the one line printed per finished cell.
func cellLine(r engine.Result, p engine.Progress) string {
	what := fmt.Sprintf("%-7s %5s", r.Phase, r.ContextLabel)
	if r.Phase == engine.PhaseDecode {
		what += fmt.Sprintf(" × %-3d", r.Concurrency)
	} else {
		what += "      "
	}
	var fig string
	switch {
	case r.Measured() && r.Phase == engine.PhasePrefill:
		fig = fmt.Sprintf("%s prompt tok/s · TTFT %s", report.TokPerSec(r.TotalTokPerSec), report.Millis(r.TTFTMs))
	case r.Measured():
		fig = fmt.Sprintf("%s tok/s · %s tok/s/req · TTFT %s · ITL %s", report.TokPerSec(r.TotalTokPerSec),
			report.TokPerSec(r.PerRequestTokPerSec), report.Millis(r.TTFTMs), report.MillisFine(r.ITLMs))
		if r.Underfilled {
			fig += fmt.Sprintf(" · underfilled (%.1f active)", r.AvgActive)
		}
		if r.Telemetry != nil && r.Telemetry.TotalPowerW.Avg > 0 {
			fig += fmt.Sprintf(" · GPU %.0f W, %.3f J/token", r.Telemetry.TotalPowerW.Avg, r.JoulesPerToken)
		}
	case r.Error != "":
		fig = r.Error
	}
	line := fmt.Sprintf("[%*d/%d] %s %-13s %s", width(p.CellCount), p.CellIndex, p.CellCount, what, r.Status, fig)
	line = strings.TrimRight(line, " ")
	if p.ETA > 0 {
		line += "  (ETA " + p.ETA.Round(time.Second).String() + ")"
	}
	return line
}

func width(n int) int { return len(fmt.Sprint(n)) }

func countFinal(rs []engine.Result) int {
	n := 0
	for _, r := range rs {
		if r.Status != engine.StatusCancelled {
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
