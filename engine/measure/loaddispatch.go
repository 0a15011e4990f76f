package measure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"speedmatrix/engine/openai"
)

// dispatch sends reqs on their schedule from one goroutine, each request
// in a goroutine of its own, so that a slow request never holds up the
// next one's send; under the cap a due request waits for a slot, and its
// wait counts in its latency. It returns when every request sent has
// ended, or at once when ctx ends or the server stops.
func (l *loadRunner) dispatch(ctx context.Context, reqs []loadRequest, capN int, pg *rateProgress) ([]*loadRecord, outcome) {
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
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i, q := range reqs {
		due := start.Add(q.At)
		var woke time.Time
		if woke, out = l.turn(ctx, timer, due, slots); out != outcomeWindow {
			break
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
		n := int(l.runner.requests.Add(1))
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
	if out == outcomeWindow {
		out = l.waitAll(ctx, &wg)
	}
	stop()
	wg.Wait()
	if ctx.Err() != nil {
		out = outcomeCancelled
	}
	return recs, out
}

// turn waits until a request is due, then for a slot under the cap. It
// returns when the dispatcher woke for it, or why the rate stops.
func (l *loadRunner) turn(ctx context.Context, timer *time.Timer, due time.Time, slots chan struct{}) (time.Time, outcome) {
	if d := time.Until(due); d > 0 {
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-ctx.Done():
			return time.Time{}, outcomeCancelled
		case <-l.runner.live.dead:
			return time.Time{}, outcomeDead
		}
	}
	woke := time.Now()
	if slots != nil {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return woke, outcomeCancelled
		case <-l.runner.live.dead:
			return woke, outcomeDead
		}
	}
	return woke, outcomeWindow
}

// waitAll waits for the requests sent, or for the rate to stop.
func (l *loadRunner) waitAll(ctx context.Context, wg *sync.WaitGroup) outcome {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return outcomeWindow
	case <-ctx.Done():
		return outcomeCancelled
	case <-l.runner.live.dead:
		return outcomeDead
	}
}

// send runs one request of a schedule and fills rec.
func (l *loadRunner) send(ctx context.Context, n int, rec *loadRecord, q loadRequest, pg *rateProgress) {
	r := l.runner
	text, ids := l.prompts.request(n, q)
	req := openai.StreamRequest{
		API: string(l.load.API), Model: r.setup.Model, Prompt: text, PromptTokenIDs: ids,
		MaxTokens: q.OutputTokens, IgnoreEOS: true, ContinuousUsage: true,
	}
	l.sendRequest(ctx, n, rec, req, pg, nil)
}

// sendRequest sends req, request n, and fills rec, keeping the text of its
// answer in answer when not nil; only its goroutine touches rec until the
// rate ends.
func (l *loadRunner) sendRequest(ctx context.Context, n int, rec *loadRecord, req openai.StreamRequest, pg *rateProgress, answer *answerText) {
	r := l.runner
	if r.kind.AbortsByID() {
		req.RID = r.requestID(n)
	}
	st, err := l.stream(ctx, req, rec, answer)
	rec.Sent = cmp.Or(st.Sent, time.Now())
	rec.Behind += max(0, rec.Sent.Sub(rec.acquired))
	raise(&pg.behindNs, int64(rec.Behind))
	rec.took(st, err)
	switch {
	case err == nil:
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

// stream sends req and records its tokens in rec as they arrive, and the
// text of its answer in answer when not nil. A server that streams on past
// max_tokens is cut off (it would fill memory) and the request fails.
func (l *loadRunner) stream(ctx context.Context, req openai.StreamRequest, rec *loadRecord, answer *answerText) (openai.StreamStats, error) {
	r := l.runner
	var counter tokenCounter
	var got float64
	limit := float64(2*req.MaxTokens + 16)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := r.client.Stream(sctx, req, func(ch openai.Chunk) {
		answer.add(ch.Content)
		a, ok := counter.count(ch)
		if !ok {
			return
		}
		rec.addChunk(ch, a)
		r.liveTokens.Add(int64(a.Tokens * 1000))
		if rec.FirstToken.IsZero() {
			rec.FirstToken = ch.Arrived
		}
		if got += a.Tokens; got > limit {
			cancel()
		}
	})
	if got > limit && ctx.Err() == nil {
		err = fmt.Errorf("the server sent more than the %d tokens asked for: %w", req.MaxTokens, openai.ErrMalformed)
	}
	return st, err
}

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
