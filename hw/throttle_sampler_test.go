package hw

import (
	"slices"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"speedmatrix/engine"
)

// scriptReasons makes d report bits on its reads [from, to) through call
// (the new or the deprecated one), and no reasons on the others.
func scriptReasons(from, to int, bits uint64) func() (uint64, nvml.Return) {
	reads := 0 // one goroutine per Read, and Reads are sequential
	return func() (uint64, nvml.Return) {
		reads++
		if reads > from && reads <= to {
			return bits, nvml.SUCCESS
		}
		return nvml.ClocksEventReasonGpuIdle, nvml.SUCCESS
	}
}

func notSupported() (uint64, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }

// sampleH200 runs a Sampler over an 8×H200 mock, set up by setup, for n
// samples on a fake clock, and summarises them.
func sampleH200(t *testing.T, n int, setup func(d []*server.Device)) *engine.Telemetry {
	t.Helper()
	cs := newH200(t)
	devices := make([]*server.Device, len(cs.Devices))
	for i, d := range cs.Devices {
		devices[i] = d.(*server.Device)
	}
	setup(devices)
	sum := sampleBox(t, cs, n)
	if len(sum.GPUs) != 8 {
		t.Fatalf("Summary = %+v, want %d samples of 8 GPUs", sum, n)
	}
	for i, g := range sum.GPUs {
		if g.PowerW.Avg != float64(100+i) {
			t.Errorf("GPU %d power %v W, want %d: the reasons broke other figures", i, g.PowerW.Avg, 100+i)
		}
	}
	return sum
}

func TestSamplerThrottleH200(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(d []*server.Device)
		verdict string
		share   float64
		gpus    []int
	}{
		{"power cap on GPU 0 in 4 of 10", func(d []*server.Device) {
			d[0].GetCurrentClocksEventReasonsFunc = scriptReasons(2, 6, nvml.ClocksEventReasonSwPowerCap)
			d[3].GetCurrentClocksEventReasonsFunc = notSupported // no fallback: GPU 3 unread
			d[3].GetCurrentClocksThrottleReasonsFunc = notSupported
		}, "power_cap", 0.4, []int{0}},
		{"fallback to the deprecated call", func(d []*server.Device) {
			for _, g := range []int{2, 5} {
				d[g].GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) {
					return 0, nvml.ERROR_FUNCTION_NOT_FOUND
				}
				d[g].GetCurrentClocksThrottleReasonsFunc = scriptReasons(0, 5, nvml.ClocksThrottleReasonHwThermalSlowdown)
			}
		}, "thermal", 0.5, []int{2, 5}},
		{"no throttling", func([]*server.Device) {}, "ok", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum := sampleH200(t, 10, tc.setup)
			th := sum.Throttle
			if th == nil || th.Verdict != tc.verdict || th.Samples != 10 {
				t.Fatalf("Throttle = %+v, want verdict %q over 10 samples", th, tc.verdict)
			}
			if tc.gpus == nil {
				if len(th.Reasons) != 0 {
					t.Errorf("Reasons = %+v, want none", th.Reasons)
				}
				return
			}
			if len(th.Reasons) != 1 || th.Reasons[0].Share != tc.share || !slices.Equal(th.Reasons[0].GPUs, tc.gpus) {
				t.Errorf("Reasons = %+v, want one with share %v on GPUs %v", th.Reasons, tc.share, tc.gpus)
			}
		})
	}
}

// A driver that supports neither call: no verdict, every other figure kept.
func TestSamplerThrottleNotSupported(t *testing.T) {
	sum := sampleH200(t, 3, func(d []*server.Device) {
		for _, g := range d {
			g.GetCurrentClocksEventReasonsFunc = notSupported
			g.GetCurrentClocksThrottleReasonsFunc = notSupported
		}
	})
	if sum.Throttle != nil {
		t.Errorf("Throttle = %+v, want nil when no reasons could be read", sum.Throttle)
	}
	for _, g := range sum.GPUs {
		if g.ClockEvents != nil {
			t.Errorf("GPU %d ClockEvents = %v, want nil", g.Index, g.ClockEvents)
		}
	}
}
