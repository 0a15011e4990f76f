package telemetry

import (
	"context"
	"sync"
	"time"

	"speedmatrix/engine"
)

// DefaultSampleInterval is how often a Sampler reads the hardware.
const DefaultSampleInterval = time.Second

// defaultHistory is how far back a Sampler keeps samples.
const defaultHistory = 2 * time.Hour

// Sampler reads GPU and CPU telemetry from a Source every interval into a
// bounded ring of samples, and summarises any window of it for the engine
// (it implements engine.TelemetrySource) and the latest sample for the live
// UI.
type Sampler struct {
	interval time.Duration
	clock    Clock
	open     func() Source

	mu      sync.Mutex
	ring    ring
	cancel  context.CancelFunc
	done    chan struct{}
	stopped bool
}

var _ engine.TelemetrySource = (*Sampler)(nil)

// Source reads the hardware once; the Sampler stamps the sample's Time.
type Source interface {
	Read() Sample
	Close() error
}

// Clock is the Sampler's time: the system clock, or a fake in tests.
type Clock interface {
	Now() time.Time
	// NewTicker returns a channel that receives every d, and its stop func.
	NewTicker(d time.Duration) (<-chan time.Time, func())
}

// SamplerOption configures NewSampler.
type SamplerOption func(*Sampler)

// WithClock makes the Sampler tick and stamp samples by c.
func WithClock(c Clock) SamplerOption {
	return func(s *Sampler) { s.clock = c }
}

// WithCapacity keeps at most n samples (default: defaultHistory / interval).
func WithCapacity(n int) SamplerOption {
	return func(s *Sampler) { s.ring = newRing(n) }
}

// NewSampler makes a Sampler that reads the Source open returns every
// interval (DefaultSampleInterval when interval <= 0) once started. It
// opens nothing until Start, which calls open on the sampling goroutine;
// Stop closes what open returned. hw.NewSampler reads this machine's NVML
// and CPU.
func NewSampler(interval time.Duration, open func() Source, opts ...SamplerOption) *Sampler {
	if interval <= 0 {
		interval = DefaultSampleInterval
	}
	s := &Sampler{
		interval: interval,
		open:     open,
		ring:     newRing(int(defaultHistory / interval)),
	}
	// The system clock is the first option, so that another replaces it.
	for _, o := range append([]SamplerOption{WithClock(systemClock{})}, opts...) {
		o(s)
	}
	return s
}

// Start opens the source and samples now and then every interval until ctx
// is done or Stop is called. Starting a started Sampler does nothing; a
// stopped one cannot be restarted.
func (s *Sampler) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done != nil || s.stopped {
		return
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go s.loop(ctx, s.done)
}

// loop opens the source (NVML's Init can take a second on a big machine, so
// not under the lock) and samples until ctx is done.
func (s *Sampler) loop(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	src := s.open()
	defer src.Close()
	tick, stopTick := s.clock.NewTicker(s.interval)
	defer stopTick()
	s.record(src, s.clock.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case at := <-tick:
			s.record(src, at)
		}
	}
}

// record stores a sample stamped with the tick that asked for it.
func (s *Sampler) record(src Source, at time.Time) {
	smp := src.Read()
	smp.Time = at
	for i := range smp.GPUs {
		smp.GPUs[i].BoundEnergy()
	}
	s.mu.Lock()
	s.ring.push(smp)
	s.mu.Unlock()
}

// Stop ends sampling, waits for the sampling goroutine and closes the
// source. The samples stay available to Summary and Latest.
func (s *Sampler) Stop() {
	s.mu.Lock()
	s.stopped = true
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// Latest returns the newest sample, and false before the first one.
func (s *Sampler) Latest() (Sample, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	smp, ok := s.ring.last()
	if !ok {
		return Sample{}, false
	}
	smp.GPUs = append([]engine.GPUSample(nil), smp.GPUs...)
	return smp, true
}

// Summary gives the averages and peaks of the samples taken in [from, to],
// or nil when there are none. Each GPU's energy counter also reads the
// samples just before and after the window (at most two intervals away),
// so that its rise spans the whole window; a window with no sample inside
// it (shorter than the interval) is summarised from those two.
func (s *Sampler) Summary(from, to time.Time) *engine.Telemetry {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sum summary
	var before, after *Sample
	var inside []Sample
	s.ring.each(func(smp Sample) {
		switch {
		case smp.Time.Before(from):
			if from.Sub(smp.Time) <= 2*s.interval {
				before = &smp
			}
		case !smp.Time.After(to):
			inside = append(inside, smp)
		case after == nil && smp.Time.Sub(to) <= 2*s.interval:
			after = &smp
		}
	})
	if len(inside) == 0 && before != nil && after != nil {
		// A window shorter than the interval (a prefill) is read from the
		// samples on either side of it.
		inside, before, after = []Sample{*before, *after}, nil, nil
	}
	for _, smp := range inside {
		sum.add(smp)
	}
	for _, smp := range append(append([]*Sample{before}, ptrs(inside)...), after) {
		if smp != nil {
			sum.addCounters(*smp)
		}
	}
	return sum.telemetry()
}
func ptrs(ss []Sample) []*Sample {
	out := make([]*Sample, len(ss))
	for i := range ss {
		out[i] = &ss[i]
	}
	return out
}

// WaitPast blocks until the Sampler holds a sample taken after t, or it
// is not sampling, ctx is done or two intervals have passed: a window's
// energy counter then has a reading after the window's end.
func (s *Sampler) WaitPast(ctx context.Context, t time.Time) {
	deadline := time.NewTimer(2 * s.interval)
	defer deadline.Stop()
	poll := time.NewTicker(max(s.interval/20, time.Millisecond))
	defer poll.Stop()
	for {
		s.mu.Lock()
		last, ok := s.ring.last()
		idle := s.stopped || s.done == nil
		s.mu.Unlock()
		if idle || (ok && last.Time.After(t)) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-poll.C:
		}
	}
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}
