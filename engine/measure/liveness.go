package measure

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"speedmatrix/engine/openai"
)

// Errors a run ends with, for callers to branch on with errors.Is / As.
var (
	// ErrServerStopped: the server stopped answering (connections refused,
	// requests failing without an answer, or a launched server exited). The
	// run is incomplete and can be resumed once the server is back.
	ErrServerStopped = errors.New("the server stopped answering")
	// ErrInterrupted: the run was cancelled; it can be resumed.
	ErrInterrupted = errors.New("run interrupted")
)

// BusyError: before the run, the server kept serving requests of another
// client, so the figures would be wrong.
type BusyError struct {
	Running, Waiting int
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("the server is busy with %d requests from another client (%d running, %d waiting); the numbers would be wrong",
		e.Running+e.Waiting, e.Running, e.Waiting)
}

// liveness decides whether the server is still there. A request that fails
// without an answer from the server (refused, reset, stalled, timed out)
// makes it probe the server once; when the probe gets no answer either,
// the server is declared stopped and the run ends.
type liveness struct {
	probe func(ctx context.Context) error // nil error: the server answered

	dead    chan struct{} // closed when the server is declared stopped
	once    sync.Once
	mu      sync.Mutex
	err     error
	probing chan struct{} // closed when the probe in flight ends; nil: none
	// answered is when a probe last got an answer: failures right after it
	// (a /metrics that keeps erroring) don't probe again for probeGap.
	answered time.Time
}

// probeGap is how long after an answered probe failures don't probe again.
const probeGap = 2 * time.Second

func newLiveness(probe func(ctx context.Context) error) *liveness {
	return &liveness{probe: probe, dead: make(chan struct{})}
}

// declare marks the server stopped because of err.
func (l *liveness) declare(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = fmt.Errorf("%w: %w", ErrServerStopped, err)
	}
	l.mu.Unlock()
	l.once.Do(func() { close(l.dead) })
}

// stopped reports whether the server was declared stopped.
func (l *liveness) stopped() bool {
	select {
	case <-l.dead:
		return true
	default:
		return false
	}
}

func (l *liveness) deathErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// answered reports whether a request's outcome came from the server: success,
// or an HTTP error, which is an answer too.
func answered(err error) bool {
	var apiErr *openai.APIError
	return err == nil || errors.As(err, &apiErr)
}

// suspect is told of a failed request. Unless the server answered it, it
// starts a probe if none is in flight.
func (l *liveness) suspect(err error) {
	if answered(err) || errors.Is(err, context.Canceled) || l.stopped() {
		return
	}
	l.mu.Lock()
	if l.probing != nil || time.Since(l.answered) < probeGap {
		l.mu.Unlock()
		return
	}
	done := make(chan struct{})
	l.probing = done
	l.mu.Unlock()
	go func() {
		defer func() {
			l.mu.Lock()
			l.probing = nil
			l.mu.Unlock()
			close(done)
		}()
		if perr := l.probe(context.Background()); !answered(perr) {
			l.declare(perr)
			return
		}
		l.mu.Lock()
		l.answered = time.Now()
		l.mu.Unlock()
	}()
}

// confirm waits for the probe in flight, then probes the server again,
// however recently it answered, and declares it stopped when it does not
// answer: for the end of a step whose requests failed without an answer.
func (l *liveness) confirm(ctx context.Context) {
	l.settle()
	if l.stopped() {
		return
	}
	if perr := l.probe(ctx); !answered(perr) && ctx.Err() == nil {
		l.declare(perr)
	}
}

// settle waits for the probe in flight, if any, so that the next cell
// starts only once the server's state is known.
func (l *liveness) settle() {
	l.mu.Lock()
	ch := l.probing
	l.mu.Unlock()
	if ch != nil {
		<-ch
	}
}
