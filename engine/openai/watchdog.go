package openai

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// watchdog cancels a stream when no byte arrived for its idle time: the
// first-token timeout until the first token, then the stall timeout. Reads
// only store a time (touch); the timer re-arms itself for the time left, so
// the hot path never resets a timer.
type watchdog struct {
	base     time.Time
	idle     atomic.Int64 // time.Duration
	stallFor atomic.Int64 // time.Duration, once started
	lastNs   atomic.Int64 // last byte, as time since base
	didFire  atomic.Bool
	cancel   func()
	mu       sync.Mutex
	timer    *time.Timer
	idleOrig time.Duration
	stopped  bool        // under mu
	started  atomic.Bool // the first token arrived: idle is the stall timeout
}

func startWatchdog(base time.Time, idle time.Duration, cancel func()) *watchdog {
	w := &watchdog{base: base, cancel: cancel, idleOrig: idle}
	w.idle.Store(int64(idle))
	w.mu.Lock()
	w.timer = time.AfterFunc(idle, w.check)
	w.mu.Unlock()
	return w
}

// touch notes that bytes arrived at t.
func (w *watchdog) touch(t time.Time) { w.lastNs.Store(int64(t.Sub(w.base))) }

func (w *watchdog) check() {
	idle := time.Duration(w.idle.Load())
	quiet := time.Since(w.base) - time.Duration(w.lastNs.Load())
	if quiet >= idle {
		w.didFire.Store(true)
		w.cancel()
		return
	}
	w.mu.Lock()
	if !w.stopped {
		w.timer.Reset(idle - quiet)
	}
	w.mu.Unlock()
}

// firstToken switches from the first-token timeout to the stall timeout,
// counting from now.
func (w *watchdog) firstToken(stall time.Duration) {
	w.started.Store(true)
	w.stallFor.Store(int64(stall))
	w.shorten(stall)
}

// shorten lowers the idle time, counting from now.
func (w *watchdog) shorten(idle time.Duration) {
	w.touch(time.Now())
	w.idle.Store(int64(idle))
	w.mu.Lock()
	w.timer.Reset(idle)
	w.mu.Unlock()
}

func (w *watchdog) fired() bool { return w.didFire.Load() }

func (w *watchdog) stop() {
	w.mu.Lock()
	w.stopped = true
	w.timer.Stop()
	w.mu.Unlock()
}

func (w *watchdog) err(endpoint string) error {
	if w.started.Load() {
		return &StallError{Endpoint: endpoint, After: time.Duration(w.stallFor.Load()), AfterFirstToken: true}
	}
	return &StallError{Endpoint: endpoint, After: w.idleOrig}
}

// StallError is a stream the client gave up on: no first token within the
// first-token timeout, or nothing more for the stall timeout after it.
// errors.Is(err, ErrStalled) holds.
type StallError struct {
	Endpoint string
	After    time.Duration
	// AfterFirstToken is set when the stream had produced a token before it
	// went quiet.
	AfterFirstToken bool
}

func (e *StallError) Error() string {
	if e.AfterFirstToken {
		return fmt.Sprintf("%s: %v: nothing from the server for %s after the first token (it may be hung or overloaded)", e.Endpoint, ErrStalled, Seconds(e.After))
	}
	return fmt.Sprintf("%s: %v: no first token within %s (the server may be hung, overloaded or still prefilling)", e.Endpoint, ErrStalled, Seconds(e.After))
}

// Unwrap makes errors.Is(err, ErrStalled) work.
func (e *StallError) Unwrap() error { return ErrStalled }

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
