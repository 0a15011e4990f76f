package measure

import (
	"context"
	"errors"
	"fmt"
	"speedmatrix/engine"
	"sync"
	"sync/atomic"

	"speedmatrix/engine/openai"
	"speedmatrix/engine/servers"
)

// abortParallel bounds the aborts in flight at once.
const abortParallel = 16

// requestID is request n's id on a server that aborts by id: unique to the
// run, so that an abort can never reach another client's request.
func (r *runner) requestID(n int) string {
	return fmt.Sprintf("speedmatrix-%s-%d", r.prompts.runID, n)
}

// abortOpen aborts on the server, one by one by its id, every request of
// recs that was still streaming when the cell stopped it, on an engine
// that keeps generating after a disconnect (never "abort all": other work
// may be running). It counts them in res, and flags res when the server
// rejected any; the run goes on and the drain barrier then waits.
func (r *runner) abortOpen(res *engine.Result, recs []*requestRecord) {
	if !r.kind.AbortsByID() {
		return
	}
	var ids []string
	for _, rec := range recs {
		if rec.RID != "" {
			ids = append(ids, rec.RID)
		}
	}
	if len(ids) == 0 {
		return
	}
	// Aborts go out even when the run is being cancelled: what they stop
	// would otherwise run on after it.
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.probeTimeout)
	defer cancel()
	var rejected atomic.Int64
	var mu sync.Mutex
	var example error
	slots := make(chan struct{}, abortParallel)
	var wg sync.WaitGroup
	for _, id := range ids {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := r.client.AbortRequest(ctx, id); err != nil {
				rejected.Add(1)
				mu.Lock()
				example = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.Aborted = len(ids) - int(rejected.Load())
	if n := int(rejected.Load()); n > 0 {
		res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagAbortRejected, Message: abortRejectedMessage(n, len(ids), example)})
		r.logf("%s", abortRejectedMessage(n, len(ids), example))
	}
}

// abortFailed aborts the request rid, which failed on our side while the
// server may still be generating it; an abort the server answers with an
// error is logged, and the drain barrier after the cell catches what it
// leaves running. One that cannot reach the server is not: the request
// failed because the server went away, which the run reports once.
func (r *runner) abortFailed(rid string) {
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.probeTimeout)
	defer cancel()
	var rejected *openai.APIError
	if err := r.client.AbortRequest(ctx, rid); errors.As(err, &rejected) {
		r.logf("abort of a failed request: %v", err)
	}
}

// abortRejectedMessage is the one line of a cell whose aborts failed.
func abortRejectedMessage(n, of int, err error) string {
	why := err.Error()
	var e *openai.APIError
	if errors.As(err, &e) {
		why = fmt.Sprintf("HTTP %d: %s", e.StatusCode, e.Message)
	}
	return fmt.Sprintf("the server rejected %d of %d aborts of requests still streaming at the window's end (%s): they may have run on into the next cell",
		n, of, why)
}

// abortNote sums up the aborts by id of a run against an engine that needs
// them, for the Run section; "" for other engines. drained says whether the
// drain barrier then waited (the server has metrics).
func abortNote(kind servers.Kind, rs []engine.Result, drained bool) string {
	if !kind.AbortsByID() {
		return ""
	}
	n, cells := 0, 0
	for _, r := range rs {
		if r.Aborted > 0 {
			n += r.Aborted
			cells++
		}
	}
	then := ", then the drain barrier waited"
	if !drained {
		then = " (without /metrics no drain barrier could wait for them to stop)"
	}
	return fmt.Sprintf("%s keeps generating after a client disconnects: %d %s still streaming when %d %s closed %s aborted by id (POST /abort_request)%s",
		kind.Name(), n, engine.Plural(n, "request", "requests"), cells, engine.Plural(cells, "window", "windows"), engine.Plural(n, "was", "were"), then)
}
