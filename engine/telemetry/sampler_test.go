package telemetry

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/telemetry/telemetrytest"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// scriptSource returns sample i on its i-th Read (the last one after that).
type scriptSource struct {
	mu      sync.Mutex
	samples []Sample
	reads   int
	closed  bool
}

func (s *scriptSource) Read() Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	smp := s.samples[min(s.reads, len(s.samples)-1)]
	s.reads++
	return smp
}

func (s *scriptSource) Close() error { s.mu.Lock(); s.closed = true; s.mu.Unlock(); return nil }

// opened is a Sampler's open func for a source already made.
func opened(src Source) func() Source { return func() Source { return src } }

func gpuSample(index int, util, powerW float64) engine.GPUSample {
	return engine.GPUSample{Index: index, UtilizationPct: util, MemoryUsedMiB: 1000, PowerW: powerW,
		TemperatureC: 60, SMClockMHz: 1800, MemClockMHz: 3201, PCIeRxMBs: 2, PCIeTxMBs: 0.5}
}

func TestSamplerStartStop(t *testing.T) {
	clock := telemetrytest.NewClock(t0)
	src := &scriptSource{samples: []Sample{{CPUUtilPct: 10}, {CPUUtilPct: 20}, {CPUUtilPct: 30}}}
	s := NewSampler(time.Second, opened(src), WithClock(clock))
	if _, ok := s.Latest(); ok {
		t.Fatal("Latest before Start reported a sample")
	}
	s.Start(context.Background())
	s.Start(context.Background()) // no second goroutine
	clock.Advance(time.Second)
	clock.Advance(time.Second)
	s.Stop()
	s.Stop()
	if !src.closed || !clock.Stopped() {
		t.Errorf("after Stop: source closed %v, ticker stopped %v", src.closed, clock.Stopped())
	}
	if src.reads != 3 {
		t.Errorf("source read %d times, want 3 (at start and 2 ticks)", src.reads)
	}
	last, ok := s.Latest()
	if !ok || last.CPUUtilPct != 30 || !last.Time.Equal(t0.Add(2*time.Second)) {
		t.Errorf("Latest = %+v, %v; want CPU 30 at t0+2s", last, ok)
	}
	sum := s.Summary(t0, t0.Add(2*time.Second))
	if sum == nil || sum.Samples != 3 || sum.CPUUtilPct != (engine.Stat{Avg: 20, Peak: 30}) {
		t.Errorf("Summary = %+v, want 3 samples, CPU avg 20 peak 30", sum)
	}
	s.Start(context.Background()) // a stopped sampler stays stopped
	if src.reads != 3 {
		t.Errorf("Start after Stop read the source again")
	}
}

func TestSamplerStopsWithContext(t *testing.T) {
	clock := telemetrytest.NewClock(t0)
	src := &scriptSource{samples: []Sample{{CPUUtilPct: 1}}}
	s := NewSampler(0, opened(src), WithClock(clock))
	if s.interval != DefaultSampleInterval || s.ring.limit != 7200 {
		t.Errorf("interval %v, capacity %d; want 1s and 2 h of samples", s.interval, s.ring.limit)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	cancel()
	<-s.done
	if !src.closed {
		t.Error("source not closed after the context ended")
	}
	s.Stop()
}

func TestSummaryMath(t *testing.T) {
	s := NewSampler(time.Second, nil, WithCapacity(100)) // never started: the test fills its ring
	nan := math.NaN()
	for i, smp := range []Sample{
		{CPUUtilPct: 50, GPUs: []engine.GPUSample{gpuSample(0, 0, 100), gpuSample(1, 0, 100)}}, // before window
		{CPUUtilPct: nan, GPUs: []engine.GPUSample{gpuSample(0, 40, 300), gpuSample(1, 80, 200)}},
		{CPUUtilPct: 20, GPUs: []engine.GPUSample{gpuSample(0, 60, 500), gpuSample(1, 100, nan)}},
		{CPUUtilPct: 40, GPUs: []engine.GPUSample{gpuSample(0, 80, 400), gpuSample(1, 90, 250)}},
		{CPUUtilPct: 90, GPUs: []engine.GPUSample{gpuSample(0, 0, 100), gpuSample(1, 0, 100)}}, // after window
	} {
		smp.Time = t0.Add(time.Duration(i) * time.Second)
		s.ring.push(smp)
	}
	got := s.Summary(t0.Add(time.Second), t0.Add(3*time.Second))
	if got == nil {
		t.Fatal("Summary = nil, want 3 samples")
	}
	if got.Samples != 3 || len(got.GPUs) != 2 {
		t.Fatalf("Samples %d, GPUs %d; want 3, 2", got.Samples, len(got.GPUs))
	}
	checks := []struct {
		name      string
		got, want engine.Stat
	}{
		{"CPU (NaN skipped)", got.CPUUtilPct, engine.Stat{Avg: 30, Peak: 40}},
		{"GPU 0 util", got.GPUs[0].UtilizationPct, engine.Stat{Avg: 60, Peak: 80}},
		{"GPU 0 power", got.GPUs[0].PowerW, engine.Stat{Avg: 400, Peak: 500}},
		{"GPU 1 util", got.GPUs[1].UtilizationPct, engine.Stat{Avg: 90, Peak: 100}},
		{"GPU 1 power (NaN skipped)", got.GPUs[1].PowerW, engine.Stat{Avg: 225, Peak: 250}},
		{"GPU 1 temperature", got.GPUs[1].TemperatureC, engine.Stat{Avg: 60, Peak: 60}},
		{"GPU 1 PCIe tx", got.GPUs[1].PCIeTxMBs, engine.Stat{Avg: 0.5, Peak: 0.5}},
		// Total power per sample: 500, 500 (GPU 1 unknown), 650.
		{"total power", got.TotalPowerW, engine.Stat{Avg: 550, Peak: 650}},
	}
	for _, c := range checks {
		if math.Abs(c.got.Avg-c.want.Avg) > 1e-9 || c.got.Peak != c.want.Peak {
			t.Errorf("%s = %+v, want %+v", c.name, c.got, c.want)
		}
	}
	if got.GPUs[0].Index != 0 || got.GPUs[1].Index != 1 {
		t.Errorf("GPU order %d, %d; want 0, 1", got.GPUs[0].Index, got.GPUs[1].Index)
	}
	if empty := s.Summary(t0.Add(10*time.Second), t0.Add(20*time.Second)); empty != nil {
		t.Errorf("Summary of an empty window = %+v, want nil", empty)
	}
}

// The ring keeps the newest samples; a CPU-only sample has no GPUs.
func TestSamplerRingBounded(t *testing.T) {
	s := NewSampler(time.Second, nil, WithCapacity(3)) // never started
	for i := range 5 {
		s.ring.push(Sample{Time: t0.Add(time.Duration(i) * time.Second), CPUUtilPct: float64(i)})
	}
	sum := s.Summary(t0, t0.Add(time.Hour))
	if sum.Samples != 3 || sum.CPUUtilPct != (engine.Stat{Avg: 3, Peak: 4}) || sum.GPUs != nil {
		t.Errorf("Summary over a 3-sample ring = %+v, want samples 2..4, no GPUs", sum)
	}
	if sum.TotalPowerW != (engine.Stat{}) {
		t.Errorf("TotalPowerW without GPUs = %+v, want zero", sum.TotalPowerW)
	}
	if last, _ := s.Latest(); last.CPUUtilPct != 4 {
		t.Errorf("Latest CPU = %v, want 4", last.CPUUtilPct)
	}
}

// BenchmarkSummary2h8GPUs summarises a 30 s cell out of a full 2 h ring of
// 8-GPU samples, as the engine does after every cell.
func BenchmarkSummary2h8GPUs(b *testing.B) {
	s := NewSampler(time.Second, nil) // never started
	for i := range 7200 {
		smp := Sample{Time: t0.Add(time.Duration(i) * time.Second), CPUUtilPct: 10}
		for g := range 8 {
			smp.GPUs = append(smp.GPUs, gpuSample(g, 90, 650))
		}
		s.ring.push(smp)
	}
	from := t0.Add(time.Hour)
	for b.Loop() {
		if s.Summary(from, from.Add(30*time.Second)).Samples != 31 {
			b.Fatal("wrong sample count")
		}
	}
}
