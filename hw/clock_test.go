package hw

import (
	"sync"
	"time"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// fakeClock ticks only when the test says so (a telemetry.Clock). Its
// channel is unbuffered, so advance returns once the sampler has taken the
// tick.
type fakeClock struct {
	mu   sync.Mutex
	now  time.Time
	tick chan time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0, tick: make(chan time.Time)} }

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) NewTicker(time.Duration) (<-chan time.Time, func()) { return c.tick, func() {} }

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	c.mu.Unlock()
	c.tick <- now
}
