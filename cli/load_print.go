package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// consumeLoad prints a load test's events, one line per rate, saves the
// report after every rate and at the end with its charts (as consume does
// for a run), and turns the end into Load's error and exit code.
func consumeLoad(ctx context.Context, events <-chan engine.Event, saver *runs.Saver, stdout io.Writer,
	writeCharts func(context.Context, string, engine.Report) error, stop func()) error {
	done, _ := follow(events, saver, stdout, stop, func(ev engine.Event, last engine.Progress) {
		fmt.Fprintln(stdout, rateLine(*ev.Load, last, ev.Report.Server.Simulated))
		for _, line := range conversationLines(*ev.Load, ev.Report.Load.Conversations) {
			fmt.Fprintf(stdout, "    %s\n", line)
		}
		for _, f := range ev.Load.Flags {
			fmt.Fprintf(stdout, "    flag: %s\n", f.Message)
		}
	})
	if done.Report == nil {
		return errors.New("load: the engine ended without a report")
	}
	rep := *done.Report
	saveErr := keepFinal(ctx, saver, rep, done.Err, writeCharts)
	if err := finishLoad(done.Err, rep, saver.Dir, saveErr); err != nil {
		return err
	}
	took := rep.Run.FinishedAt.Sub(rep.Run.StartedAt).Round(time.Second)
	fmt.Fprintf(stdout, "done: %s in %s; saved in %s with its charts\n", engine.Count(len(rep.Load.Results), "rate", "rates"), took, saver.Dir)
	return nil
}

// finishLoad is the test's last line and exit code.
func finishLoad(runErr error, rep engine.Report, out string, saveErr error) error {
	var busy *measure.BusyError
	measured, partly, planned := 0, 0, 0
	if rep.Load != nil {
		for _, r := range rep.Load.Results {
			switch {
			case report.LoadMeasured(r):
				measured++
			case report.LoadPartial(r):
				partly++
			}
		}
		planned = max(len(rep.Load.Plan.RatesRPS), len(rep.Load.Results))
	}
	switch {
	case errors.As(runErr, &busy):
		return exitWith(exitCantStart, fmt.Errorf("load: %v. Stop them or pass --allow-busy", busy))
	case errors.Is(runErr, measure.ErrServerStopped), errors.Is(runErr, measure.ErrInterrupted):
		why := "interrupted"
		if errors.Is(runErr, measure.ErrServerStopped) {
			why = runErr.Error()
		}
		done := fmt.Sprintf("%d of %s measured", measured, engine.Count(planned, "rate", "rates"))
		if partly > 0 {
			done += fmt.Sprintf(", %d part-way", partly)
		}
		where := "what was measured is saved in " + out
		switch {
		case measured+partly == 0:
			where = "nothing was measured"
		case saveErr != nil:
			where = loadUnsaved(saveErr, out).Error()
		}
		return exitWith(exitIncomplete, fmt.Errorf("load incomplete: %s (%s); %s", done, why, where))
	case runErr != nil:
		return exitWith(exitCantStart, loadAdvice(fmt.Errorf("load: %w", runErr)))
	case errors.Is(saveErr, context.Canceled):
		return exitWith(exitExport, fmt.Errorf("load: measured every rate, but the charts were not drawn (interrupted): draw them with speedmatrix report --in %s/report.json --out %s", out, out))
	case saveErr != nil:
		return exitWith(exitExport, fmt.Errorf("load: measured every rate, but %w", loadUnsaved(saveErr, out)))
	}
	return nil
}

// loadUnsaved is saveErr, a save or the charts after it that failed, with
// what to do about it: a load test has no resume, so a report not kept is
// measured again.
func loadUnsaved(saveErr error, out string) error {
	if err, ok := keptAdvice(saveErr, out); ok {
		return err
	}
	return fmt.Errorf("%w: free space or fix the permissions of --out %s, then run again", saveErr, out)
}

// rateLine is the one line printed per finished rate.
func rateLine(r engine.LoadResult, p engine.Progress, simulated bool) string {
	var b strings.Builder
	if p.CellCount > 0 {
		fmt.Fprintf(&b, "[%*d/%d] ", width(p.CellCount), p.CellIndex, p.CellCount)
	}
	b.WriteString(report.RateLabel(r))
	if !report.IsBurst(r) && r.Arrivals != engine.ArrivalsTrace && r.Arrivals != engine.ArrivalsConversations {
		fmt.Fprintf(&b, " %s", r.Arrivals)
	}
	if simulated {
		b.WriteString(" (simulated)")
	}
	if r.Status != engine.StatusValid {
		fmt.Fprintf(&b, ": %s", strings.ToLower(string(r.Status)))
		if r.Error != "" && !strings.EqualFold(r.Error, string(r.Status)) {
			fmt.Fprintf(&b, ": %s", r.Error)
		}
		if !report.LoadPartial(r) {
			return b.String()
		}
		b.WriteString("; before it stopped")
	}
	fmt.Fprintf(&b, ": %d/%d completed in %.1f s, %.2f req/s, %.0f tok/s out, TTFT p50 %s p99 %s, TPOT p50 %s, E2E p99 %s, goodput %.2f req/s",
		r.Completed, r.Requests, r.DurationS, r.RequestThroughputRPS, r.OutputTokPerSec,
		msText(r.TTFTMs.P50), msText(r.TTFTMs.P99), msText(r.TPOTMs.P50), msText(r.E2EMs.P99), r.GoodputRPS)
	if s := report.PrefixCacheText(r.PrefixCache); s != "" && (r.Arrivals == engine.ArrivalsTrace || r.Arrivals == engine.ArrivalsConversations || r.PrefixCache.ServerHitRate > engine.PrefixCacheHitShare) {
		b.WriteString(", " + s)
	}
	return b.String()
}

// msText is a latency in ms, in seconds from 10 s.
func msText(v float64) string {
	if v >= 10000 {
		return fmt.Sprintf("%.1f s", v/1000)
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}
