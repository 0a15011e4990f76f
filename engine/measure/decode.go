package measure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"speedmatrix/engine"
	"sync"
	"time"

	"speedmatrix/engine/openai"
)

// decodeCell is one sustained-decode measurement in progress: C workers,
// each keeping one streaming request in flight.
type decodeCell struct {
	r           *runner
	cell        engine.Cell
	cp          *contextPrompt
	concurrency int

	mu       sync.Mutex
	recs     []*requestRecord
	hasFirst []bool
	warmed   int
	windowAt time.Time // when the last worker got its first token
	// windowEnd is when the window ended: windowAt + the plan's duration,
	// or earlier when an adaptive window knew its figures (wait).
	windowEnd time.Time
	// stopper is an adaptive window's stopping rule over its checks.
	stopper engine.Stopper
	// arrivals guards each worker's records' Arrivals while the cell runs,
	// one lock per worker (only it appends), so that an adaptive window can
	// read them (snapshot) without holding up the other streams.
	arrivals []sync.Mutex
	failures int // failed requests of warm-up, rejections aside

	warm       chan struct{} // closed when every worker has its first token
	looped     chan struct{} // closed when the loop detector fires
	tooMany    chan struct{} // closed when warm-up keeps failing, with gaveUp set
	gaveUp     error         // why warm-up gave up
	failedIn   chan struct{} // closed when a request fails inside the window
	loopOnce   sync.Once
	failOnce   sync.Once
	windowOnce sync.Once
}

// outcome says why a cell stopped.
type outcome int

const (
	outcomeWindow outcome = iota
	outcomeLooped
	outcomeFailed
	outcomeFailedInWindow
	outcomeCancelled
	outcomeDead
)

// decodeRun is a measured decode cell with what the checks after it need.
type decodeRun struct {
	res      engine.Result
	from, to time.Time  // the window (the cell's span when it ended early)
	arrivals arrivalMap // when tokens arrived inside the window
	// clientActive is the client-side count of active streams for the
	// underfilled check without /metrics: a restart's wait for its first
	// token counts as active (see activeStreams).
	clientActive float64
}

// runDecode measures one sustained-decode cell.
func (r *runner) runDecode(ctx context.Context, cell engine.Cell, cp *contextPrompt) decodeRun {
	d := &decodeCell{
		r: r, cell: cell, cp: cp, concurrency: cell.Concurrency,
		hasFirst: make([]bool, cell.Concurrency), arrivals: make([]sync.Mutex, cell.Concurrency),
		warm: make(chan struct{}), looped: make(chan struct{}), tooMany: make(chan struct{}), failedIn: make(chan struct{}),
	}
	res := engine.Result{Cell: cell, ContextLabel: engine.ContextLabel(cell.ContextTokens), StartedAt: time.Now()}
	r.preconnect(ctx, cell.Concurrency)
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for w := range cell.Concurrency {
		wg.Go(func() { d.worker(wctx, w) })
	}
	out, why := d.wait(ctx)
	stop()
	wg.Wait()
	res.FinishedAt = time.Now()
	run := d.finish(res, out, why)
	r.abortOpen(&run.res, d.recs)
	return run
}

// wait blocks through warm-up and the window, or until something ends the
// cell early.
func (d *decodeCell) wait(ctx context.Context) (outcome, error) {
	warmTimer := time.NewTimer(d.r.opts.warmupTimeout)
	defer warmTimer.Stop()
	select {
	case <-d.warm:
	case <-warmTimer.C:
		d.mu.Lock()
		defer d.mu.Unlock()
		return outcomeFailed, fmt.Errorf("only %d of %d requests got a first token within %s: the server can't hold this many; lower the concurrency",
			d.warmed, d.concurrency, openai.Seconds(d.r.opts.warmupTimeout))
	case <-d.tooMany:
		return outcomeFailed, d.gaveUp
	case <-d.looped:
		return outcomeLooped, nil
	case <-ctx.Done():
		return outcomeCancelled, ctx.Err()
	case <-d.r.live.dead:
		return outcomeDead, d.r.live.deathErr()
	}
	return d.waitWindow(ctx)
}

// waitWindow blocks through the window, from the last worker's first
// token to the plan's duration after it, or as soon as an adaptive
// window's figures are known (known), checked at each whole second from
// firstCheck on; or until something ends the cell early.
func (d *decodeCell) waitWindow(ctx context.Context) (outcome, error) {
	d.mu.Lock()
	from := d.windowAt
	d.mu.Unlock()
	end := from.Add(d.r.plan.Duration)
	next := d.firstCheck(from, end)
	window := time.NewTimer(time.Until(next))
	defer window.Stop()
	for {
		select {
		case <-window.C:
			if !next.Before(end) || d.known(from, next) {
				d.windowEnd = next
				return outcomeWindow, nil
			}
			next = minTime(next.Add(precisionBucket), end)
			window.Reset(time.Until(next))
		case <-d.looped:
			return outcomeLooped, nil
		case <-d.failedIn:
			// Streams of a server that stalls stall together: give the others
			// a moment to show it, so the reason counts them all.
			grace := time.NewTimer(min(failureGrace, time.Until(end)))
			defer grace.Stop()
			select {
			case <-grace.C:
			case <-ctx.Done():
				return outcomeCancelled, ctx.Err()
			}
			return outcomeFailedInWindow, nil
		case <-ctx.Done():
			return outcomeCancelled, ctx.Err()
		case <-d.r.live.dead:
			return outcomeDead, d.r.live.deathErr()
		}
	}
}

// failureGrace is how long a cell goes on after a request failed inside
// its window, so that the failure count includes streams failing together.
const failureGrace = 500 * time.Millisecond

// giveUp ends warm-up with err, once.
func (d *decodeCell) giveUp(err error) {
	d.failOnce.Do(func() {
		d.gaveUp = err
		close(d.tooMany)
	})
}

// worker keeps one request in flight until ctx ends, starting the next as
// soon as one ends. A failed request is recorded and followed by another
// after a pause (backoff), so a failing server isn't hammered and one
// that rejects requests for a while gets that while.
func (d *decodeCell) worker(ctx context.Context, w int) {
	b := backoff{opts: &d.r.opts}
	for ctx.Err() == nil {
		rec := &requestRecord{FinalTokens: -1, Worker: w}
		d.mu.Lock()
		d.recs = append(d.recs, rec)
		d.mu.Unlock()
		d.stream(ctx, w, rec)
		if rec.Err == nil {
			b.reset()
			continue
		}
		d.failed(rec)
		d.r.live.suspect(rec.Err)
		wait, err := b.after(rec.Err)
		if err != nil {
			d.giveUp(err)
			return
		}
		d.r.opts.sleep(ctx, wait)
	}
}

// stream runs one request and fills rec. Only rec's worker touches rec until
// the cell ends.
func (d *decodeCell) stream(ctx context.Context, w int, rec *requestRecord) {
	n := int(d.r.requests.Add(1))
	shared, text, ids := d.cp.request(n)
	out := streamOutput{tap: d.r.target.Output, cell: d.cell, stream: w, streams: d.concurrency, request: n}
	req := openai.StreamRequest{
		API: string(d.r.plan.API), Model: d.r.setup.Model, Shared: shared, Prompt: text, PromptTokenIDs: ids,
		MaxTokens: d.r.plan.MaxOutputTokens, IgnoreEOS: true, ContinuousUsage: true,
	}
	if d.r.kind.AbortsByID() {
		req.RID = d.r.requestID(n)
	}
	var counter tokenCounter
	var loop loopDetector
	detect := d.r.plan.LoopDetection
	rec.Sent = time.Now()
	out.start()
	st, err := d.r.client.Stream(ctx, req, func(ch openai.Chunk) {
		out.text(ch.Reasoning, ch.Content)
		if a, ok := counter.count(ch); ok {
			d.arrivals[w].Lock()
			rec.addChunk(ch, a)
			d.arrivals[w].Unlock()
			d.r.liveTokens.Add(int64(a.Tokens * 1000))
			if rec.FirstToken.IsZero() {
				rec.FirstToken = ch.Arrived
				d.firstToken(w, ch.Arrived)
			}
		}
		if detect && !rec.Looped && (loop.Write(ch.Reasoning) || loop.Write(ch.Content)) {
			rec.Looped = true
			d.loopOnce.Do(func() { close(d.looped) })
		}
	})
	if detect && !rec.Looped && loop.Flush() {
		rec.Looped = true
		d.loopOnce.Do(func() { close(d.looped) })
	}
	out.end(st.FinishReason, ctx.Err() != nil, err)
	if !st.Sent.IsZero() {
		rec.Sent = st.Sent
	}
	rec.took(st, err)
	switch {
	case err == nil: // finished: took recorded it
	case ctx.Err() != nil:
		// Stopped by the cell at the window's end (or cancelled): still
		// running as far as the measurement is concerned, and on a server
		// that goes on after a disconnect, until it is aborted by its id.
		rec.RID = cmp.Or(st.ID, req.RID)
	default:
		rec.Err, rec.End = err, st.End
		if rec.End.IsZero() {
			rec.End = time.Now()
		}
		// A stream we gave up on (stalled, cut off) is still generating
		// on a server that goes on after a disconnect.
		var apiErr *openai.APIError
		if d.r.kind.AbortsByID() && !errors.As(err, &apiErr) {
			d.r.abortFailed(cmp.Or(st.ID, req.RID))
		}
	}
}

func (d *decodeCell) firstToken(w int, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.hasFirst[w] {
		return
	}
	d.hasFirst[w] = true
	d.warmed++
	if d.warmed == d.concurrency {
		d.windowAt = at
		close(d.warm)
	}
}

// failed counts a failed request. During warm-up failures are retried
// until there are too many (rejections are bounded by each stream's
// backoff instead); inside the window one failure fails the cell.
func (d *decodeCell) failed(rec *requestRecord) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case !d.windowAt.IsZero() && rec.End.After(d.windowAt):
		d.windowOnce.Do(func() { close(d.failedIn) })
	case errors.Is(rec.Err, openai.ErrRejected):
	case d.warmed < d.concurrency:
		d.failures++
		if d.failures > 2*d.concurrency+2 {
			d.giveUp(fmt.Errorf("warm-up kept failing (%d failed requests): %w", d.failures, rec.Err))
		}
	}
}

// finish fills the result from the requests, by how the cell ended.
func (d *decodeCell) finish(res engine.Result, out outcome, why error) decodeRun {
	d.mu.Lock()
	defer d.mu.Unlock()
	reconcileAll(d.recs)
	from, to := d.windowAt, d.windowEnd
	if out != outcomeWindow || from.IsZero() {
		from, to = res.StartedAt, res.FinishedAt
	}
	if out == outcomeFailedInWindow {
		from, to = d.windowAt, res.FinishedAt
	}
	f := computeDecode(d.recs, from, to)
	res.Requests = f.Samples
	res.PromptTokens = medianPromptTokens(d.recs)
	run := decodeRun{from: from, to: to, arrivals: arrivalsIn(d.recs, from, to)}
	switch out {
	case outcomeLooped:
		res.Status = engine.StatusLooped
	case outcomeCancelled:
		res.Status, res.Error = engine.StatusCancelled, "cancelled"
	case outcomeFailed, outcomeDead:
		res.Status, res.Error = engine.StatusFailed, errText(why)
		res.Partial = partialFigures(f, from, to)
	case outcomeFailedInWindow:
		res.Status, res.Error = engine.StatusFailed, failureReason(d.recs, d.windowAt, d.concurrency)
		res.Partial = partialFigures(f, from, to)
	default:
		if n, quiet := quietStreams(d.recs, from, to, d.r.quietLimit()); n > 0 {
			res.Status = engine.StatusFailed
			res.Error = fmt.Sprintf("%d of %d %s stalled (no token for the last %s of the window)", n, d.concurrency,
				engine.Plural(d.concurrency, "stream", "streams"), openai.Seconds(quiet.Round(100*time.Millisecond)))
			res.Partial = partialFigures(f, from, to)
			break
		}
		res.Status = engine.StatusValid
		res.TotalTokPerSec = f.TotalTokPerSec
		res.PerRequestTokPerSec = f.PerRequest.P50
		res.TTFTMs, res.ITLMs = f.TTFTMs.P50, f.ITLMs.P50
		res.TTFTPct, res.ITLPct, res.PerRequestPct = f.TTFTMs, f.ITLMs, f.PerRequest
		res.AvgActive, res.Completed = f.AvgActive, f.Completed
		res.OutputTokens = int(f.TokensInWindow + 0.5)
		res.MeasuredS = to.Sub(from).Seconds()
		res.WindowStart = from
		var reasoning reasoningTally
		for _, r := range d.recs {
			reasoning.add(r, from, to, r.Sent)
		}
		res.Reasoning = reasoning.result()
		res.Precision = cellPrecision(d.recs, from, to, d.concurrency, true)
		res.Precision.Target = d.r.plan.Precision
		run.clientActive = activeStreams(d.recs, from, to, f.TTFTMs.P50)
	}
	run.res = res
	return run
}

func partialFigures(f decodeFigures, from, to time.Time) *engine.PartialFigures {
	return &engine.PartialFigures{
		TotalTokPerSec: f.TotalTokPerSec, PerRequestTokPerSec: f.PerRequest.P50,
		TTFTMs: f.TTFTMs.P50, ITLMs: f.ITLMs.P50, AvgActive: f.AvgActive, Completed: f.Completed,
		OutputTokens: int(f.TokensInWindow + 0.5), MeasuredS: to.Sub(from).Seconds(),
	}
}

func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}

func medianPromptTokens(recs []*requestRecord) int {
	var v []float64
	for _, r := range recs {
		if r.PromptTokens > 0 {
			v = append(v, float64(r.PromptTokens))
		}
	}
	return int(percentiles(v).P50 + 0.5)
}

// preconnect opens n connections to the server (n concurrent GET /health)
// and leaves them idle in the pool, so the cell's TTFT measures the server
// rather than TCP set-up on this machine. An error status doesn't matter
// here (a server without /health still answers on the connection), but the
// calls double as a liveness probe, with its timeout: when none gets an
// answer, the server is declared stopped, where a hung server used to hold
// the run for the whole request timeout.
func (r *runner) preconnect(ctx context.Context, n int) {
	c := r.probeClient()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = c.Health(ctx) })
	}
	wg.Wait()
	for _, err := range errs {
		if answered(err) {
			return
		}
	}
	if n > 0 && ctx.Err() == nil {
		r.live.declare(errs[0])
	}
}

// took records what a stream's end says of its request: the prompt tokens
// and the finish reason, and for a stream that ended well (err nil) when it
// finished and the output tokens the server counted.
func (rec *requestRecord) took(st openai.StreamStats, err error) {
	if st.Usage != nil {
		rec.PromptTokens = st.Usage.PromptTokens
	}
	rec.FinishReason = st.FinishReason
	if err == nil {
		rec.Finished, rec.End = true, st.End
		if st.Usage != nil {
			rec.FinalTokens = st.Usage.CompletionTokens
		}
	}
}
