// Package telemetrytest is what the tests of a telemetry.Sampler and its
// Sources share: a clock that ticks only when the test says so.
package telemetrytest

import (
	"sync"
	"time"
)

// Clock is a telemetry.Clock that ticks only when the test says so
// (Advance). Its channel is unbuffered, so Advance returns once the
// sampler has taken the tick, which is after it recorded the sample before.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	tick    chan time.Time
	stopped bool
}

// NewClock is a Clock at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start, tick: make(chan time.Time)} }

// Now is the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// NewTicker ticks when Advance says so, whatever the interval; its stop
// is what Stopped reports.
func (c *Clock) NewTicker(time.Duration) (<-chan time.Time, func()) {
	return c.tick, func() { c.mu.Lock(); c.stopped = true; c.mu.Unlock() }
}

// Stopped reports whether a ticker of the clock was stopped.
func (c *Clock) Stopped() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.stopped }

// Advance moves the clock by d and ticks.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	c.mu.Unlock()
	c.tick <- now
}
