package openai

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// watchdog cancels a stream that brings no token in time. The first-token
// timeout is a deadline from sending the request; after the first token,
// the stall timeout counts from the last token. Bytes that carry no token
// (keep-alive comments, empty chunks, a line sent a byte at a time) move
// neither. A token only stores a time; the timer re-arms itself for the
// time left, so the hot path never resets a timer.
type watchdog struct {
	base       time.Time
	deadline   atomic.Int64 // when it fires, as time since base
	firstToken time.Duration
	stall      time.Duration
	started    atomic.Bool // a token arrived: the stall timeout applies
	didFire    atomic.Bool
	cancel     func()
	mu         sync.Mutex
	timer      *time.Timer
	stopped    bool // under mu
}

// startWatchdog arms a watchdog for a request sent at base.
func startWatchdog(base time.Time, firstToken, stall time.Duration, cancel func()) *watchdog {
	w := &watchdog{base: base, firstToken: firstToken, stall: stall, cancel: cancel}
	w.deadline.Store(int64(firstToken))
	w.mu.Lock()
	w.timer = time.AfterFunc(firstToken-time.Since(base), w.check)
	w.mu.Unlock()
	return w
}

// token notes that a token arrived at t: the stall timeout counts from it.
func (w *watchdog) token(t time.Time) {
	w.deadline.Store(int64(t.Sub(w.base) + w.stall))
	if !w.started.Swap(true) {
		// The stall timeout may end before the first-token deadline.
		w.rearm()
	}
}

// endIn moves the deadline to d from now, whatever it was.
func (w *watchdog) endIn(d time.Duration) {
	w.deadline.Store(int64(time.Since(w.base) + d))
	w.rearm()
}

// check fires when the deadline has passed, and re-arms for the time left
// otherwise.
func (w *watchdog) check() {
	if w.left() <= 0 {
		w.didFire.Store(true)
		w.cancel()
		return
	}
	w.rearm()
}

// left is the time until the deadline (negative once it passed).
func (w *watchdog) left() time.Duration {
	return time.Duration(w.deadline.Load()) - time.Since(w.base)
}

// rearm sets the timer for the time left, unless the watchdog stopped.
func (w *watchdog) rearm() {
	w.mu.Lock()
	if !w.stopped {
		w.timer.Reset(w.left())
	}
	w.mu.Unlock()
}

// fired reports whether the watchdog cancelled the stream.
func (w *watchdog) fired() bool { return w.didFire.Load() }

// stop disarms the watchdog for good.
func (w *watchdog) stop() {
	w.mu.Lock()
	w.stopped = true
	w.timer.Stop()
	w.mu.Unlock()
}

// err is the StallError of a stream the watchdog cancelled.
func (w *watchdog) err(endpoint string) error {
	if w.started.Load() {
		return &StallError{Endpoint: endpoint, After: w.stall, AfterFirstToken: true}
	}
	return &StallError{Endpoint: endpoint, After: w.firstToken}
}

// StallError is a stream the client gave up on: no first token within the
// first-token timeout of sending, or no further token for the stall
// timeout. errors.Is(err, errStalled) holds.
type StallError struct {
	Endpoint string
	After    time.Duration
	// AfterFirstToken is set when the stream had produced a token before it
	// stopped producing them.
	AfterFirstToken bool
}

// Error says which timeout ran out, and how long it was.
func (e *StallError) Error() string {
	if e.AfterFirstToken {
		return fmt.Sprintf("%s: %v: no token for %s after the last one (the server may be hung or overloaded)", e.Endpoint, errStalled, Seconds(e.After))
	}
	return fmt.Sprintf("%s: %v: no first token within %s (the server may be hung, overloaded or still prefilling)", e.Endpoint, errStalled, Seconds(e.After))
}

// Unwrap makes errors.Is(err, errStalled) work.
func (e *StallError) Unwrap() error { return errStalled }

// Seconds writes a timeout the way messages say it: "30 s", "2.5 s", "5 min".
func Seconds(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d >= time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}
