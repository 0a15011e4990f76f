package measure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"speedmatrix/engine/openai"
)

// Bounds of the wait after the server rejects a request (429, 503) before
// a cell's window opens, where a short overload should not fail the cell.
const (
	// maxRejections is how many rejections in a row a stream takes before
	// its cell fails: with the default first pause of 200 ms, doubling,
	// the last comes about 50 s after the first.
	maxRejections = 8
	// maxRetryWait bounds one wait, whatever the server's Retry-After asks.
	maxRetryWait = 30 * time.Second
)

// backoff paces one stream's requests after failures: retryPause after a
// failure, and after a rejection as long as the server's Retry-After asks,
// else doubling from retryPause; no wait is over maxRetryWait.
type backoff struct {
	opts     *runOptions
	rejected int           // rejections in a row
	waited   time.Duration // waits since the first of them
}

// after says how long to wait after a request that failed with err, or
// why to give up: the server rejected maxRejections requests in a row.
func (b *backoff) after(err error) (time.Duration, error) {
	var apiErr *openai.APIError
	if !errors.Is(err, openai.ErrRejected) || !errors.As(err, &apiErr) {
		b.reset()
		return b.opts.retryPause, nil
	}
	b.rejected++
	if b.rejected > maxRejections {
		return 0, fmt.Errorf("the server rejected %d requests in a row over %s: %w", b.rejected, openai.Seconds(b.waited.Round(100*time.Millisecond)), err)
	}
	wait := apiErr.RetryAfter
	if wait <= 0 {
		wait = b.opts.retryPause << (b.rejected - 1)
	}
	wait = min(wait, maxRetryWait)
	b.waited += wait
	return wait, nil
}

// reset forgets the rejections: a request got through.
func (b *backoff) reset() { b.rejected, b.waited = 0, 0 }

// sleep waits d, or until ctx is done; false when ctx is done. It waits
// through opts.pause when a test set it.
func (o *runOptions) sleep(ctx context.Context, d time.Duration) bool {
	if o.pause != nil {
		o.pause(ctx, d)
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
