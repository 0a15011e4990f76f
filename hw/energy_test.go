package hw

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
	"speedmatrix/engine/telemetry/telemetrytest"
)

// scriptedCounter is an energy counter that answers each read with the
// next value, and NOT_SUPPORTED for a negative one.
func scriptedCounter(mJ ...int64) func() (uint64, nvml.Return) {
	i := 0
	return func() (uint64, nvml.Return) {
		v := mJ[min(i, len(mJ)-1)]
		i++
		if v < 0 {
			return 0, nvml.ERROR_NOT_SUPPORTED
		}
		return uint64(v), nvml.SUCCESS
	}
}

// A cell's energy comes from NVML's counter where the GPU has one; a GPU
// that answers NOT_SUPPORTED (before Volta), or whose counter resets in
// the window, falls back to its power samples, and the cell says why.
func TestNVMLEnergyCounter(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		counter    []int64 // mJ read at 0, 1, 2, 3, 4 s
		wantMethod engine.EnergyMethod
		wantW      float64
		wantNote   string
	}{
		{"counter", []int64{1e6, 1.2e6, 1.4e6, 1.6e6, 1.8e6}, engine.EnergyCounter, 200, ""},
		{"not supported", []int64{-1}, engine.EnergyIntegrated, 100, "no energy counter"},
		{"reset mid-cell", []int64{5e6, 5.2e6, 1e3, 2e5, 4e5}, engine.EnergyIntegrated, 100, "GPU 0's energy counter went backwards in the window (reset or wrapped)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := newH200(t)
			cs.DeviceGetCountFunc = func() (int, nvml.Return) { return 1, nvml.SUCCESS }
			d := cs.Devices[0].(*server.Device)
			d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 100_000, nvml.SUCCESS }
			d.GetTotalEnergyConsumptionFunc = scriptedCounter(tc.counter...)
			clock := telemetrytest.NewClock(t0)
			s := telemetry.NewSampler(time.Second, func() telemetry.Source { return NewSource(cs.Server) }, telemetry.WithClock(clock))
			s.Start(context.Background())
			for _, ok := s.Latest(); !ok; _, ok = s.Latest() {
				runtime.Gosched() // the first sample is taken at t0, before the clock moves
			}
			for range 4 {
				clock.Advance(time.Second)
			}
			s.Stop()
			sum := s.Summary(t0.Add(time.Second), t0.Add(3*time.Second))
			e := engine.CellEnergyOf(sum, nil, nil, engine.PhaseDecode, 100)
			if e == nil || e.Method != tc.wantMethod || e.PowerW != tc.wantW || e.Note != tc.wantNote {
				t.Fatalf("energy = %+v, want method %s, %v W, note %q", e, tc.wantMethod, tc.wantW, tc.wantNote)
			}
			if want := tc.wantW / 100; e.JoulesPerToken != want || e.TokensPerJoule != 1/want {
				t.Errorf("J/token %v, tokens/J %v; want %v, %v", e.JoulesPerToken, e.TokensPerJoule, want, 1/want)
			}
		})
	}
}

// A driver without the counter's symbol is never asked for it: calling a
// function the driver lacks kills the process.
func TestNVMLEnergySymbolMissing(t *testing.T) {
	cs := newH200(t)
	cs.LookupSymbolFunc = func(sym string) error {
		if sym == symEnergy {
			return nvml.ERROR_FUNCTION_NOT_FOUND
		}
		return nil
	}
	for _, d := range cs.Devices {
		d.(*server.Device).GetTotalEnergyConsumptionFunc = nil // the mock panics if called
	}
	src := newSystemSource(cs.Server)
	defer src.Close()
	if g := src.Read().GPUs[0]; g.EnergySource != "" {
		t.Errorf("energy source %q without the symbol, want none", g.EnergySource)
	}
}
