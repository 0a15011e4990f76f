package measure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"speedmatrix/engine"
	"time"

	"speedmatrix/engine/openai"
)

// Lines of the Run section's Checks, saying which trust checks ran.
const (
	CheckServerMetrics = "Server checks: idle before the run, drain barrier between cells, per-cell cross-check with the server's /metrics"
	// CheckServerMetricsLoad is CheckServerMetrics for a load test.
	CheckServerMetricsLoad = "Server checks: idle before the test, drain barrier between rates, per-rate cross-check with the server's /metrics"
	checkBusyAllowed       = "Server checks partly off: other clients were allowed on the server, so the idle check and the drain barrier were skipped"
	// checksNotAllDone ends the Checks line of a run in which one of them
	// could not be done (notDone).
	checksNotAllDone = "; not all could be done, as the notes say"
)

// startWatch sees whether the server serves its engine's /metrics and,
// if so, sets up the watch that samples it. It records in the report which
// checks will run; without metrics the Checks line says they were not done
// and what would make them run. A server that does not answer at all is an
// error.
func (r *runner) startWatch(ctx context.Context) (bool, error) {
	m, err := r.client.Metrics(ctx)
	if openai.NoAnswer(err) {
		return false, fmt.Errorf("read the server's metrics: %w", err)
	}
	if err != nil || !m.HasRequests {
		names := r.kind.Checks()
		r.addCheck(names.NoMetrics)
		r.logf("the server has no %s: the idle check, the drain barrier and the server cross-check are not done", names.Label)
		return false, nil
	}
	r.watch = newServerWatch(r.client.Metrics, r.opts.metricsEvery)
	r.watch.onError = r.live.suspect
	logged := map[string]bool{}
	r.watch.onBad = func(b badSampleError) {
		if !logged[b.Name] { // the page may be bad at every scrape
			logged[b.Name] = true
			r.logf("%v", b)
		}
	}
	lastEvent := time.Time{}
	r.watch.onEvent = func(s metricSample) {
		if s.At.Sub(lastEvent) < r.opts.sampleEvery {
			return
		}
		lastEvent = s.At
		ev := engine.ServerSample{Running: int(s.Running), Waiting: int(s.Waiting), KVUsagePct: s.KVUsagePct, GenTokens: s.GenTokens}
		r.send(ctx, engine.Event{Kind: engine.EventServer, Time: s.At, Server: &ev})
	}
	if r.target.AllowBusy {
		r.addCheck(checkBusyAllowed)
	} else {
		r.addCheck(cmp.Or(r.checksLine, CheckServerMetrics))
	}
	return true, nil
}

func (r *runner) addCheck(line string) {
	r.mu.Lock()
	r.report.Run.Checks = append(r.report.Run.Checks, line)
	r.mu.Unlock()
}

// notDone records that a trust check (the idle check, the drain barrier,
// the cross-check) could not be done, and why: a note, and the Checks line
// no longer says that they all ran.
func (r *runner) notDone(check string, why error) {
	r.addNote(fmt.Sprintf("%s not done: %v.", check, why))
	line := cmp.Or(r.checksLine, CheckServerMetrics)
	r.mu.Lock()
	if i := slices.Index(r.report.Run.Checks, line); i >= 0 {
		r.report.Run.Checks[i] = line + checksNotAllDone
	}
	r.mu.Unlock()
}

// addNote adds a sentence to the Run section's notes, once.
func (r *runner) addNote(line string) {
	r.mu.Lock()
	if !slices.Contains(r.report.Run.Notes, line) {
		r.report.Run.Notes = append(r.report.Run.Notes, line)
	}
	r.mu.Unlock()
}

// checkIdle refuses a server that is busy with another client's requests:
// it waits up to opts.idleWait for no request running or waiting.
func (r *runner) checkIdle(ctx context.Context) error {
	_, last, err := r.watch.waitIdle(ctx, time.Now(), 0, r.live.dead)
	if errors.Is(err, context.DeadlineExceeded) && !r.target.AllowBusy {
		r.logf("the server holds %d requests of another client: waiting up to %s for it to be idle", last.load(), openai.Seconds(r.opts.idleWait))
		_, last, err = r.watch.waitIdle(ctx, time.Now(), r.opts.idleWait, r.live.dead)
	}
	switch {
	case err == nil:
		return nil
	case r.target.AllowBusy:
		if last.load() > 0 {
			r.logf("the server is serving %d requests of other clients; measuring anyway, every cell is flagged", last.load())
		}
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		return &BusyError{Running: int(last.Running + 0.5), Waiting: int(last.Waiting + 0.5)}
	}
	r.logf("the idle check could not read /metrics: %v", err)
	r.notDone("Idle check", err)
	return nil
}

// drain is the barrier after a cell: it waits until the server, whose
// streams we closed at closed, has no request running or waiting, and
// records how long that took. When it gives up the cell is flagged and the
// next one fails unless the server is idle by then.
func (r *runner) drain(ctx context.Context, res *engine.Result, closed time.Time) {
	if r.watch == nil || r.target.AllowBusy || r.live.stopped() {
		return
	}
	took, last, err := r.watch.waitIdle(ctx, closed, r.opts.drainWait, r.live.dead)
	switch {
	case err == nil:
		res.DrainS = took.Seconds()
		r.stillBusy = nil
	case errors.Is(err, context.DeadlineExceeded):
		res.DrainS = took.Seconds()
		res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagNotDrained, Message: fmt.Sprintf("the server still held %d requests %s after this cell's streams were closed",
			last.load(), openai.Seconds(r.opts.drainWait))})
		r.stillBusy = &last
	case ctx.Err() == nil && !r.live.stopped():
		r.notDone("Drain barrier", err)
	}
}

// flagBadSamples flags a measured cell during which scrapes were skipped
// for a bad value (badSamples); a prefill cell has no cross-check.
func (r *runner) flagBadSamples(res *engine.Result) {
	if !res.Measured() {
		return
	}
	if f, ok := r.badSamples(res.Phase == engine.PhasePrefill || res.Server != nil); ok {
		res.Flags = append(res.Flags, f)
	}
}

// badSamples is the flag of a cell or a load test's rate during which
// scrapes were skipped for a bad value: its checks saw fewer of the
// server's samples, or none, and then (checked false) its cross-check
// could not be done, which the flag and the run's notes say. The one rule
// of the matrix's cells and the load test's rates.
func (r *runner) badSamples(checked bool) (engine.Flag, bool) {
	if r.watch == nil {
		return engine.Flag{}, false
	}
	bad := r.watch.cellBad()
	if bad.n == 0 {
		return engine.Flag{}, false
	}
	msg := fmt.Sprintf("the server's /metrics gave %s: %d bad %s skipped", bad.first.String(), bad.n, engine.Plural(bad.n, "sample", "samples"))
	if !checked {
		msg += "; the cross-check with the server's count could not be done"
		r.notDone("Cross-check", bad.first)
	}
	return engine.Flag{Kind: engine.FlagBadMetrics, Message: msg}, true
}

// stillBusyErr fails a cell that follows a drain barrier which gave up,
// unless the server has become idle since.
func (r *runner) stillBusyErr() error {
	if r.stillBusy == nil {
		return nil
	}
	st := r.watch.latest()
	if st.ok && st.last.load() == 0 {
		r.stillBusy = nil
		return nil
	}
	n := r.stillBusy.load()
	if st.ok {
		n = st.last.load()
	}
	return fmt.Errorf("server still busy: %d requests running or waiting %s after the previous cell ended", n, openai.Seconds(r.opts.drainWait))
}
