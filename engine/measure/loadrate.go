package measure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"speedmatrix/engine"
	"sync"
	"sync/atomic"
	"time"

	"speedmatrix/engine/openai"
)

// rateProgress is where a rate stands, updated by its requests and read by
// the monitor.
type rateProgress struct {
	rate                  float64
	requests              int
	sent, done, inFlight  atomic.Int64
	completed, failed     atomic.Int64
	behindNs, maxInFlight atomic.Int64
}

// raise sets v to x when x is larger.
func raise(v *atomic.Int64, x int64) {
	for {
		old := v.Load()
		if x <= old || v.CompareAndSwap(old, x) {
			return
		}
	}
}

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
	reqs := loadSchedule(arr, rate, n, l.load.InputTokens, l.load.OutputTokens, l.load.Seed, max(i, 0)+1000*btoi(i < 0), len(l.prompts.dataset))
	if err := l.prompts.prepare(ctx, reqs); err != nil {
		return fail(fmt.Errorf("prepare the prompts: %w", err))
	}
	pg := &rateProgress{rate: rate, requests: n}
	r.mu.Lock()
	l.rateAt, l.progress = i, pg
	r.mu.Unlock()
	recs, out := l.dispatch(ctx, reqs, capN, pg)
	fig := computeLoad(recs, l.load.SLO)
	fig.RateRPS, fig.Arrivals, fig.StartedAt, fig.FinishedAt = rate, arr, res.StartedAt, time.Now()
	fig.MaxInFlight = int(pg.maxInFlight.Load())
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
	for _, flag := range []func([]*loadRecord) (engine.Flag, bool){behindFlag, failedFlag, promptSizeFlag} {
		if f, ok := flag(recs); ok && res.Status == engine.StatusValid {
			res.Flags = append(res.Flags, f)
		}
	}
	l.checkRate(ctx, &res, recs, from, to)
	return res
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
	var cell engine.Result
	r.abortOpen(&cell, plain)
	r.drain(ctx, &cell, time.Now())
	res.DrainS = cell.DrainS
	res.Flags = append(res.Flags, cell.Flags...)
	if r.watch != nil && res.Status != engine.StatusCancelled && !from.IsZero() && to.After(from) {
		samples := r.watch.cellSamples()
		res.Server = crossCheckWith(r.kind.Checks(), samples, from, to, arrivalsIn(plain, from, to).gotTokens)
		if ours, ok := tokPerSecAsServer(plain, samples, from, to); ok && res.Status == engine.StatusValid {
			res.Flags = append(res.Flags, checkFlags(res.Server, ours)...)
		}
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

// dispatch sends reqs on their schedule from one goroutine, each request
// in a goroutine of its own, so that a slow request never holds up the
// next one's send; under the cap a due request waits for a slot, and its
// wait counts in its latency. It returns when every request sent has
// ended, or at once when ctx ends or the server stops.
func (l *loadRunner) dispatch(ctx context.Context, reqs []loadRequest, capN int, pg *rateProgress) ([]*loadRecord, outcome) {
	r := l.runner
	recs := make([]*loadRecord, len(reqs))
	for i, q := range reqs {
		recs[i] = &loadRecord{requestRecord: requestRecord{FinalTokens: -1, Worker: i}, Input: q.InputTokens, Output: q.OutputTokens}
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var slots chan struct{}
	if capN > 0 {
		slots = make(chan struct{}, capN)
	}
	var wg sync.WaitGroup
	out := outcomeWindow
	start := time.Now()
	free := start // when the dispatcher was last free to take a request
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
send:
	for i, q := range reqs {
		due := start.Add(q.At)
		if d := time.Until(due); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				out = outcomeCancelled
				break send
			case <-r.live.dead:
				out = outcomeDead
				break send
			}
		}
		woke := time.Now()
		if slots != nil {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				out = outcomeCancelled
				break send
			case <-r.live.dead:
				out = outcomeDead
				break send
			}
		}
		rec := recs[i]
		rec.Scheduled, rec.Dispatched = due, true
		// The client's lateness is the dispatcher's, counted from when it
		// was free to take the request (a wait for a slot held it up
		// otherwise), and the request's own until it is sent (send).
		rec.acquired = time.Now()
		rec.Waited = rec.acquired.Sub(woke)
		rec.Behind = max(0, woke.Sub(maxTime(due, free)))
		free = rec.acquired
		pg.sent.Add(1)
		raise(&pg.maxInFlight, pg.inFlight.Add(1))
		n := int(r.requests.Add(1))
		wg.Go(func() {
			defer func() {
				pg.inFlight.Add(-1)
				pg.done.Add(1)
				if slots != nil {
					<-slots
				}
			}()
			l.send(sctx, n, rec, q, pg)
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		out = outcomeCancelled
	case <-r.live.dead:
		out = outcomeDead
	}
	stop()
	<-done
	if ctx.Err() != nil {
		out = outcomeCancelled
	}
	return recs, out
}

// send runs one request and fills rec; only its goroutine touches rec until
// the rate ends.
func (l *loadRunner) send(ctx context.Context, n int, rec *loadRecord, q loadRequest, pg *rateProgress) {
	r := l.runner
	text, ids := l.prompts.request(n, q)
	req := openai.StreamRequest{
		API: string(l.load.API), Model: r.setup.Model, Prompt: text, PromptTokenIDs: ids,
		MaxTokens: q.OutputTokens, IgnoreEOS: true, ContinuousUsage: true,
	}
	if r.kind.AbortsByID() {
		req.RID = r.requestID(n)
	}
	var counter tokenCounter
	var got float64
	over := false
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := r.client.Stream(sctx, req, func(ch openai.Chunk) {
		if a, ok := counter.count(ch); ok {
			rec.add(a)
			r.liveTokens.Add(int64(a.Tokens * 1000))
			if rec.FirstToken.IsZero() {
				rec.FirstToken = ch.Arrived
			}
			// A server that ignores max_tokens would fill memory.
			if got += a.Tokens; got > float64(2*q.OutputTokens+16) && !over {
				over = true
				cancel()
			}
		}
	})
	if over && ctx.Err() == nil {
		err = fmt.Errorf("the server sent more than the %d tokens asked for: %w", q.OutputTokens, openai.ErrMalformed)
	}
	rec.Sent = cmp.Or(st.Sent, time.Now())
	rec.Behind += max(0, rec.Sent.Sub(rec.acquired))
	raise(&pg.behindNs, int64(rec.Behind))
	if st.Usage != nil {
		rec.PromptTokens = st.Usage.PromptTokens
	}
	rec.FinishReason = st.FinishReason
	switch {
	case err == nil:
		rec.Finished, rec.End = true, st.End
		if st.Usage != nil {
			rec.FinalTokens = st.Usage.CompletionTokens
		}
		reconcileAll([]*requestRecord{&rec.requestRecord})
		pg.completed.Add(1)
	case ctx.Err() != nil:
		// Stopped by the rate's end (cancelled, or the server stopped):
		// aborted by its id on a server that goes on after a disconnect.
		rec.RID = cmp.Or(st.ID, req.RID)
	default:
		rec.Err, rec.End = err, cmp.Or(st.End, time.Now())
		pg.failed.Add(1)
		r.live.suspect(err)
		var apiErr *openai.APIError
		if r.kind.AbortsByID() && !errors.As(err, &apiErr) {
			r.abortFailed(cmp.Or(st.ID, req.RID))
		}
	}
}

// progressEvery is how often a load test reports where it stands.
const progressEvery = 250 * time.Millisecond

// monitor runs beside the rates: it asks RunOptions.Alive and sends
// progress a few times a second with the live output rate.
func (l *loadRunner) monitor(ctx context.Context) {
	r := l.runner
	every := min(progressEvery, r.opts.sampleEvery)
	tick := time.NewTicker(every)
	defer tick.Stop()
	lastTokens, lastAt := r.liveTokens.Load(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if r.target.Alive != nil {
				if err := r.target.Alive(); err != nil {
					r.live.declare(err)
				}
			}
			tokens := r.liveTokens.Load()
			p := l.progressNow()
			p.LiveTokPerSec = float64(tokens-lastTokens) / 1000 / now.Sub(lastAt).Seconds()
			lastTokens, lastAt = tokens, now
			r.send(ctx, engine.Event{Kind: engine.EventProgress, Time: now, Progress: &p})
		}
	}
}

// progressNow says where the load test stands.
func (l *loadRunner) progressNow() engine.Progress {
	r := l.runner
	r.mu.Lock()
	defer r.mu.Unlock()
	p := engine.Progress{CellIndex: l.rateAt + 1, CellCount: len(l.rates), Elapsed: time.Since(r.started)}
	if l.rateAt < 0 { // a sweep's limit, before its rates
		p.CellIndex = 0
	}
	if pg := l.progress; pg != nil {
		p.Load = &engine.LoadProgress{RateRPS: pg.rate, Requests: pg.requests, Sent: int(pg.sent.Load()), Done: int(pg.done.Load()),
			InFlight: int(pg.inFlight.Load()), BehindMs: ms(time.Duration(pg.behindNs.Load())),
			Completed: int(pg.completed.Load()), Failed: int(pg.failed.Load())}
	}
	left := l.load
	left.Sweep, left.RatesRPS, left.Burst = false, l.rates[min(l.rateAt+1, len(l.rates)):], 0
	if len(left.RatesRPS) > 0 {
		p.ETA = EstimateLoad(left)
	}
	return p
}

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
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
