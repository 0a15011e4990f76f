package telemetry

import (
	"reflect"
	"testing"
	"time"

	"speedmatrix/engine"
)

const (
	powerCap  = ReasonSwPowerCap
	swThermal = ReasonSwThermalSlowdown
	hwThermal = ReasonHwThermalSlowdown
	// notLoaded are NVML's GpuIdle, ApplicationsClocksSetting, SyncBoost
	// and DisplayClockSetting bits, which no verdict names.
	notLoaded = 0x01 | 0x02 | 0x10 | 0x100
)

// reasonsFunc gives GPU g's reason bits in sample i, and whether they were read.
type reasonsFunc func(i, g int) (uint64, bool)

// when reports bits on GPU gpu in samples [from, to), and reads nothing else.
func when(gpu, from, to int, bits uint64) reasonsFunc {
	return func(i, g int) (uint64, bool) {
		if g == gpu && i >= from && i < to {
			return bits, true
		}
		return 0, true
	}
}

// both reports what any of fs reports.
func both(fs ...reasonsFunc) reasonsFunc {
	return func(i, g int) (uint64, bool) {
		var bits uint64
		read := false
		for _, f := range fs {
			b, ok := f(i, g)
			bits, read = bits|b, read || ok
		}
		return bits, read
	}
}

// summariseReasons summarises n two-GPU samples with the reasons f gives.
func summariseReasons(n int, f reasonsFunc) *engine.Telemetry {
	s := NewSampler(time.Second, nil, WithCapacity(n)) // never started
	for i := range n {
		smp := Sample{Time: t0.Add(time.Duration(i) * time.Second), CPUUtilPct: 10}
		for g := range 2 {
			gs := gpuSample(g, 90, 300)
			gs.ClockEventReasons, gs.ClockEventsRead = f(i, g)
			smp.GPUs = append(smp.GPUs, gs)
		}
		s.ring.push(smp)
	}
	return s.Summary(t0, t0.Add(time.Hour))
}

func TestSummaryThrottle(t *testing.T) {
	none := map[string]int{}
	for _, tc := range []struct {
		name    string
		samples int
		reasons reasonsFunc
		want    *engine.Throttle
		events  [2]map[string]int // per GPU
	}{
		{"power cap on GPU 0 in 4 of 10", 10, when(0, 3, 7, powerCap),
			&engine.Throttle{Verdict: "power_cap", Samples: 10, Reasons: []engine.ThrottleReason{
				{Reason: "power_cap", Share: 0.4, GPUs: []int{0}, PerGPU: []engine.GPUShare{{Index: 0, Share: 0.4}}}}},
			[2]map[string]int{{"power_cap": 4}, none}},
		{"thermal on two GPUs, overlapping", 10, both(when(0, 0, 3, swThermal), when(1, 2, 6, hwThermal)),
			&engine.Throttle{Verdict: "thermal", Samples: 10, Reasons: []engine.ThrottleReason{
				{Reason: "thermal", Share: 0.6, GPUs: []int{0, 1},
					PerGPU: []engine.GPUShare{{Index: 0, Share: 0.3}, {Index: 1, Share: 0.4}}}}},
			[2]map[string]int{{"thermal": 3}, {"thermal": 4}}},
		{"idle and clock settings are not throttling", 10, when(1, 0, 10, notLoaded),
			&engine.Throttle{Verdict: "ok", Samples: 10}, [2]map[string]int{none, none}},
		{"1 of 20 samples is below the threshold", 20, when(0, 5, 6, powerCap),
			&engine.Throttle{Verdict: "ok", Samples: 20}, [2]map[string]int{{"power_cap": 1}, none}},
		{"2 of 20 samples is at the threshold", 20, when(1, 5, 7, powerCap),
			&engine.Throttle{Verdict: "power_cap", Samples: 20, Reasons: []engine.ThrottleReason{
				{Reason: "power_cap", Share: 0.1, GPUs: []int{1}, PerGPU: []engine.GPUShare{{Index: 1, Share: 0.1}}}}},
			[2]map[string]int{none, {"power_cap": 2}}},
		{"every reason, in fixed order", 4, both(
			when(1, 0, 4, ReasonHwPowerBrakeSlowdown|ReasonHwSlowdown),
			when(0, 0, 2, hwThermal), when(0, 3, 4, powerCap)),
			&engine.Throttle{Verdict: "power_cap+thermal+hw_slowdown+power_brake", Samples: 4,
				Reasons: []engine.ThrottleReason{
					{Reason: "power_cap", Share: 0.25, GPUs: []int{0}, PerGPU: []engine.GPUShare{{Index: 0, Share: 0.25}}},
					{Reason: "thermal", Share: 0.5, GPUs: []int{0}, PerGPU: []engine.GPUShare{{Index: 0, Share: 0.5}}},
					{Reason: "hw_slowdown", Share: 1, GPUs: []int{1}, PerGPU: []engine.GPUShare{{Index: 1, Share: 1}}},
					{Reason: "power_brake", Share: 1, GPUs: []int{1}, PerGPU: []engine.GPUShare{{Index: 1, Share: 1}}}}},
			[2]map[string]int{{"power_cap": 1, "thermal": 2}, {"hw_slowdown": 4, "power_brake": 4}}},
		{"unread samples are not counted", 10, func(i, g int) (uint64, bool) {
			return powerCap, i%2 == 0 && g == 0 // read in 5 samples, always power capped
		}, &engine.Throttle{Verdict: "power_cap", Samples: 5, Reasons: []engine.ThrottleReason{
			{Reason: "power_cap", Share: 1, GPUs: []int{0}, PerGPU: []engine.GPUShare{{Index: 0, Share: 1}}}}},
			[2]map[string]int{{"power_cap": 5}, nil}},
		{"never read", 10, func(int, int) (uint64, bool) { return powerCap, false },
			nil, [2]map[string]int{nil, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summariseReasons(tc.samples, tc.reasons)
			if got == nil || len(got.GPUs) != 2 || got.GPUs[0].PowerW.Avg != 300 {
				t.Fatalf("Summary = %+v, want 2 GPUs at 300 W", got)
			}
			if !reflect.DeepEqual(got.Throttle, tc.want) {
				t.Errorf("Throttle = %+v, want %+v", got.Throttle, tc.want)
			}
			for g, want := range tc.events {
				if ev := got.GPUs[g].ClockEvents; !reflect.DeepEqual(ev, want) || (ev == nil) != (want == nil) {
					t.Errorf("GPU %d ClockEvents = %#v, want %#v", g, ev, want)
				}
			}
		})
	}
}
