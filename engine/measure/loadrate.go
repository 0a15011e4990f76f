package measure

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"speedmatrix/engine"
	"time"
)

// measureRate measures one rate (index i; −1 for a sweep's limit): n
// requests on arr's schedule, at most capN open (0: no cap), then the
// checks after it: the drain barrier, the server cross-check and the
// telemetry.
func (l *loadRunner) measureRate(ctx context.Context, i int, rate float64, arr engine.Arrivals, n, capN int) engine.LoadResult {
	r := l.runner
	res := engine.LoadResult{RateRPS: rate, Arrivals: arr, Requests: n, StartedAt: time.Now()}
	if r.watch != nil {
		r.watch.startCell()
	}
	fail := func(err error) engine.LoadResult {
		res.Status, res.Error, res.FinishedAt = engine.StatusFailed, err.Error(), time.Now()
		if ctx.Err() != nil {
			res.Status, res.Error = engine.StatusCancelled, "cancelled"
		}
		return res
	}
	if err := r.stillBusyErr(); err != nil {
		return fail(err)
	}
	pg := &rateProgress{rate: rate, requests: n}
	open, own := l.openCap(capN)
	recs, out, err := l.sendRate(ctx, i, rate, arr, n, open, pg)
	if err != nil {
		return fail(err)
	}
	// A request that failed without an answer may have met a server on
	// its way down (a probe on a connection it had not closed yet still got
	// an answer): ask it once more now, so that whether this rate failed
	// with the server does not depend on which finished first.
	if out != outcomeCancelled && slices.ContainsFunc(recs, func(rec *loadRecord) bool { return rec.Err != nil && !answered(rec.Err) }) {
		r.live.confirm(ctx)
		if r.live.stopped() {
			out = outcomeDead
		}
	}
	fig := computeLoad(recs, l.load.SLO)
	fig.RateRPS, fig.Arrivals, fig.StartedAt, fig.FinishedAt = rate, arr, res.StartedAt, time.Now()
	fig.MaxInFlight = int(pg.maxInFlight.Load())
	if arr == engine.ArrivalsConversations {
		fig.Turns = turnStats(recs)
	}
	res = fig
	from, to := l.span(recs)
	switch {
	case out == outcomeCancelled:
		res.Status, res.Error = engine.StatusCancelled, "cancelled"
	case out == outcomeDead:
		res.Status, res.Error = engine.StatusFailed, errText(r.live.deathErr())
	case res.Completed == 0:
		f, _ := failedFlag(recs)
		res.Status, res.Error = engine.StatusFailed, cmp.Or(f.Message, "no request completed")
	default:
		res.Status = engine.StatusValid
	}
	sizes := func(recs []*loadRecord) (engine.Flag, bool) { return promptSizeFlag(recs, l.prompts.sizeReason()) }
	for _, flag := range []func([]*loadRecord) (engine.Flag, bool){behindFlag, failedFlag, sizes} {
		if f, ok := flag(recs); ok && res.Status == engine.StatusValid {
			res.Flags = append(res.Flags, f)
		}
	}
	if own && res.MaxInFlight >= open && res.Status == engine.StatusValid {
		res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagClientBehind, Message: fmt.Sprintf(
			"the client held %d requests open at once, the most that fit in the memory it allows them (%d MiB): the next ones waited for one to end, and their waits count in their latency",
			open, engine.MaxLoadOpenBytes>>20)})
	}
	l.checkRate(ctx, &res, recs, from, to)
	return res
}

// sendRate sends a rate's requests, at most open at once (0: no cap): the
// conversations' turns for a replay, else n requests on arr's schedule,
// their prompts prepared first.
func (l *loadRunner) sendRate(ctx context.Context, i int, rate float64, arr engine.Arrivals, n, open int, pg *rateProgress) ([]*loadRecord, outcome, error) {
	if arr == engine.ArrivalsConversations {
		l.setProgress(i, pg)
		recs, out := l.replay(ctx, pg)
		return recs, out, nil
	}
	var reqs []loadRequest
	if arr == engine.ArrivalsTrace {
		reqs = traceSchedule(l.trace)
	} else {
		reqs = loadSchedule(arr, rate, n, l.load.InputTokens, l.load.OutputTokens, l.load.Seed, max(i, 0)+1000*btoi(i < 0), len(l.prompts.dataset))
	}
	if err := l.prompts.prepare(ctx, reqs); err != nil {
		return nil, outcomeWindow, fmt.Errorf("prepare the prompts: %w", err)
	}
	l.sayShortest()
	l.setProgress(i, pg)
	recs, out := l.dispatch(ctx, reqs, open, pg)
	return recs, out, nil
}

// setProgress makes pg the progress of rate i, which the monitor reports.
func (l *loadRunner) setProgress(i int, pg *rateProgress) {
	r := l.runner
	r.mu.Lock()
	l.rateAt, l.progress = i, pg
	r.mu.Unlock()
}

// openCap is the most requests a rate holds open: the plan's cap, or the
// client's own (maxOpen, what fits in its memory) where the plan has none
// or one above it; own says the client's holds.
func (l *loadRunner) openCap(capN int) (n int, own bool) {
	if l.maxOpen <= 0 || capN > 0 && capN <= l.maxOpen {
		return capN, false
	}
	return l.maxOpen, true
}

// sayShortest warns, once, that prompts were asked for below the shortest
// a test sends: they are sent at that size, and their rates flagged.
func (l *loadRunner) sayShortest() {
	if n := l.prompts.shortest; n > 0 && !l.saidShortest {
		l.saidShortest = true
		l.runner.logf("warning: prompts shorter than %d tokens can't be sent (%s): those drawn shorter are sent at %d tokens, and their rates flagged", n, shortestWhy, n)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// span is the rate's window: its first scheduled arrival to its last
// finish (or now, for requests still open when it stopped).
func (l *loadRunner) span(recs []*loadRecord) (from, to time.Time) {
	for _, rec := range recs {
		if !rec.Dispatched {
			continue
		}
		if from.IsZero() || rec.Scheduled.Before(from) {
			from = rec.Scheduled
		}
		end := rec.End
		if end.IsZero() {
			end = time.Now()
		}
		if end.After(to) {
			to = end
		}
	}
	return from, to
}

// checkRate runs the checks after a rate: the aborts of what it left
// open, the drain barrier, the server cross-check and the telemetry.
func (l *loadRunner) checkRate(ctx context.Context, res *engine.LoadResult, recs []*loadRecord, from, to time.Time) {
	r := l.runner
	plain := make([]*requestRecord, len(recs))
	for i, rec := range recs {
		plain[i] = &rec.requestRecord
	}
	cell := engine.Result{Status: res.Status}
	r.abortOpen(&cell, plain)
	r.drain(ctx, &cell, time.Now())
	r.notePrefixCache(&cell) // a rate is no prefill cell: never flagged for it
	res.DrainS, res.PrefixCache = cell.DrainS, cell.PrefixCache
	if l.trace != nil {
		implied := l.traceHitRate
		if res.PrefixCache == nil {
			res.PrefixCache = &engine.PrefixCache{}
		}
		res.PrefixCache.TraceHitRate = &implied
	}
	res.Flags = append(res.Flags, cell.Flags...)
	if r.watch != nil && res.Status != engine.StatusCancelled && !from.IsZero() && to.After(from) {
		samples := r.watch.cellSamples()
		res.Server = crossCheckWith(r.kind.Checks(), samples, from, to, arrivalsIn(plain, from, to).gotTokens)
		if ours, ok := tokPerSecAsServer(plain, samples, from, to); ok && res.Status == engine.StatusValid {
			res.Flags = append(res.Flags, checkFlags(res.Server, ours)...)
		}
	}
	if f, ok := r.badSamples(res.Server != nil); ok && res.Status == engine.StatusValid {
		res.Flags = append(res.Flags, f)
	}
	if r.target.AllowBusy && res.Status == engine.StatusValid {
		res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagBusy, Message: "measured while other clients were allowed to use the server: the idle check and the drain barrier were off"})
	}
	l.attachTelemetry(res, from, to)
}

// attachTelemetry summarises the hardware over the rate's window and
// flags throttling and gaps, as the matrix's cells do.
func (l *loadRunner) attachTelemetry(res *engine.LoadResult, from, to time.Time) {
	r := l.runner
	if r.target.Telemetry == nil || from.IsZero() || !to.After(from) {
		return
	}
	res.Telemetry = r.target.Telemetry.Summary(from, to)
	if r.target.Header.Hardware.OnCPU() {
		res.Telemetry = res.Telemetry.CPUOnly()
	}
	if res.Telemetry == nil || res.Status != engine.StatusValid {
		return
	}
	if th := res.Telemetry.Throttle; !th.OK() {
		res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagThrottled, Message: th.Message()})
	}
	if n, ok := r.target.Telemetry.(engine.TelemetryNoter); ok {
		if gap := n.TelemetryGap(from, to); gap != "" {
			res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagTelemetryGap, Message: "telemetry incomplete: " + gap})
		}
	}
}

// tokPerSecAsServer is our output rate over the span the server
// cross-check reads its counter over (the first to the last fast sample
// inside the window): a rate's load rises and falls, unlike a decode
// cell's, so over the whole window the two would differ by its edges.
func tokPerSecAsServer(recs []*requestRecord, samples []metricSample, from, to time.Time) (float64, bool) {
	in := inside(samples, from, to)
	median, _ := scrapeTimes(in)
	in = trimSlow(in, median)
	if len(in) < 2 || !in[len(in)-1].At.After(in[0].At) {
		return 0, false
	}
	a, b := in[0].At, in[len(in)-1].At
	var tokens float64
	for _, r := range recs {
		t, _, _ := requestWindow(r, a, b)
		tokens += t
	}
	return tokens / b.Sub(a).Seconds(), true
}
