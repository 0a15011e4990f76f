package openai

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// watchdog cancels a stream when no byte arrived for its idle time. Reads
// only store a time (touch); the timer re-arms itself for the time left, so
// the hot path never resets a timer.
type watchdog struct {
	base     time.Time
	idle     atomic.Int64 // time.Duration
	lastNs   atomic.Int64 // last byte, as time since base
	didFire  atomic.Bool
	cancel   func()
	mu       sync.Mutex
	timer    *time.Timer
	idleOrig time.Duration
	stopped  bool // under mu
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
	return fmt.Errorf("%s: %w: no data from the server for %v: check the server log (it may be hung or overloaded) or raise the idle timeout",
		endpoint, ErrStalled, w.idleOrig)
}
