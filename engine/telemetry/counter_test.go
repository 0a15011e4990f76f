package telemetry

import (
	"context"
	"runtime"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/telemetry/telemetrytest"
)

// counterRun samples one GPU drawing 200 W whose counter reads mJ[i] at
// t0+i s, and summarises [from, to].
func counterRun(t *testing.T, mJ []float64, from, to time.Duration) *engine.Telemetry {
	t.Helper()
	src := &scriptSource{}
	for _, v := range mJ {
		g := gpuSample(0, 90, 200)
		g.EnergyMJ, g.EnergySource = v, engine.EnergyFromNVML
		src.samples = append(src.samples, Sample{GPUs: []engine.GPUSample{g}})
	}
	clock := telemetrytest.NewClock(t0)
	s := NewSampler(time.Second, opened(src), WithClock(clock))
	s.Start(context.Background())
	for _, ok := s.Latest(); !ok; _, ok = s.Latest() {
		runtime.Gosched()
	}
	for range len(mJ) - 1 {
		clock.Advance(time.Second)
	}
	s.Stop()
	return s.Summary(t0.Add(from), t0.Add(to))
}

// Each GPU's counter gives its power over the window, from the readings
// around it; one that cannot be trusted gives none and says why.
func TestCounterPower(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mJ       []float64
		from, to time.Duration
		wantW    float64
		wantNote string
	}{
		{"steady 250 W", []float64{0, 250e3, 500e3, 750e3, 1000e3}, time.Second, 3 * time.Second, 250, ""},
		{"a short window between two samples", []float64{0, 250e3, 500e3}, 1200 * time.Millisecond, 1500 * time.Millisecond, 250, ""},
		{"backwards", []float64{9e6, 9.25e6, 100, 250e3, 500e3}, time.Second, 3 * time.Second, 0, "energy counter went backwards in the window (reset or wrapped)"},
		{"jumped", []float64{0, 1e9, 2e9, 3e9, 4e9}, time.Second, 3 * time.Second, 0, "energy counter jumped (1e+06 W)"},
		{"stuck", []float64{5e6, 5e6, 5e6, 5e6, 5e6}, time.Second, 3 * time.Second, 0, "energy counter did not move"},
		{"1e30 is no reading", []float64{1e30, 1e30, 1e30, 1e30, 1e30}, time.Second, 3 * time.Second, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum := counterRun(t, tc.mJ, tc.from, tc.to)
			if sum == nil || len(sum.GPUs) != 1 {
				t.Fatalf("summary %+v", sum)
			}
			g := sum.GPUs[0]
			if g.CounterW != tc.wantW || g.CounterNote != tc.wantNote {
				t.Errorf("counter %v W, note %q; want %v W, %q", g.CounterW, g.CounterNote, tc.wantW, tc.wantNote)
			}
			if g.PowerW.Avg != 200 {
				t.Errorf("sampled power %v, want 200", g.PowerW.Avg)
			}
		})
	}
}

// Power beyond any GPU's, from any source, is no reading.
func TestSamplerBoundsPower(t *testing.T) {
	src := &scriptSource{samples: []Sample{{GPUs: []engine.GPUSample{gpuSample(0, 90, 1e30)}}}}
	clock := telemetrytest.NewClock(t0)
	s := NewSampler(time.Second, opened(src), WithClock(clock))
	s.Start(context.Background())
	for _, ok := s.Latest(); !ok; _, ok = s.Latest() {
		runtime.Gosched()
	}
	s.Stop()
	if sum := s.Summary(t0, t0); sum == nil || sum.TotalPowerW.Avg != 0 || sum.GPUs[0].PowerW.Avg != 0 {
		t.Errorf("summary of a 1e30 W sample: %+v", sum)
	}
}
