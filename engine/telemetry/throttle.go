package telemetry

import (
	"strings"

	"speedmatrix/engine"
)

// throttleMinShare is the share of a window's samples (0..1) in which a
// clock-event reason must be seen before it enters the throttle verdict:
// 10 %, so that a single power-cap blip in a long cell doesn't flag it.
const throttleMinShare = 0.10

// The clock-event reason bits of engine.GPUSample.ClockEventReasons that a
// verdict names: NVML's nvmlClocksEventReason… values, which DCGM's
// DCGM_FI_DEV_CLOCKS_EVENT_REASONS reports too. They are NVML's ABI,
// written out here so that summarising needs no cgo; hw's tests hold them
// to go-nvml's constants.
const (
	ReasonSwPowerCap           uint64 = 0x04
	ReasonHwSlowdown           uint64 = 0x08
	ReasonSwThermalSlowdown    uint64 = 0x20
	ReasonHwThermalSlowdown    uint64 = 0x40
	ReasonHwPowerBrakeSlowdown uint64 = 0x80
)

// throttleReasons maps the clock-event reason bits to the verdict's
// names, in the order the verdict lists them. GpuIdle,
// ApplicationsClocksSetting, SyncBoost and DisplayClockSetting are left out:
// they don't slow down a loaded GPU.
var throttleReasons = [...]struct {
	name string
	mask uint64
}{
	{engine.ThrottlePowerCap, ReasonSwPowerCap},
	{engine.ThrottleThermal, ReasonSwThermalSlowdown | ReasonHwThermalSlowdown},
	{engine.ThrottleHWSlowdown, ReasonHwSlowdown},
	{engine.ThrottlePowerBrake, ReasonHwPowerBrakeSlowdown},
}

// reasonCounts counts samples per throttle reason, in throttleReasons order.
type reasonCounts [len(throttleReasons)]int

// add counts each reason set in bits.
func (c *reasonCounts) add(bits uint64) {
	for i, r := range throttleReasons {
		if bits&r.mask != 0 {
			c[i]++
		}
	}
}

// byName is the non-zero counts keyed by reason name; empty, not nil, when
// none is, so that "read, nothing seen" differs from "never read".
func (c reasonCounts) byName() map[string]int {
	m := map[string]int{}
	for i, n := range c {
		if n > 0 {
			m[throttleReasons[i].name] = n
		}
	}
	return m
}

// throttleAcc accumulates a window's throttle verdict across GPUs.
type throttleAcc struct {
	samples int          // samples in which at least one GPU's reasons were read
	any     reasonCounts // samples in which any GPU reported each reason
}

// add counts one sample's GPUs.
func (a *throttleAcc) add(gpus []engine.GPUSample) {
	read, bits := false, uint64(0)
	for _, g := range gpus {
		if g.ClockEventsRead {
			read = true
			bits |= g.ClockEventReasons
		}
	}
	if read {
		a.samples++
		a.any.add(bits)
	}
}

// throttle is the verdict over the window, or nil when no reasons were
// read; gpus (sorted by index, ClockEvents filled) name who reported each.
func (a throttleAcc) throttle(gpus []engine.GPUTelemetry) *engine.Throttle {
	if a.samples == 0 {
		return nil
	}
	t := &engine.Throttle{Verdict: engine.ThrottleOK, Samples: a.samples}
	var names []string
	for i, n := range a.any {
		share := float64(n) / float64(a.samples)
		if n == 0 || share < throttleMinShare {
			continue
		}
		name := throttleReasons[i].name
		r := engine.ThrottleReason{Reason: name, Share: share}
		for _, g := range gpus {
			if g.ClockEvents[name] > 0 {
				r.GPUs = append(r.GPUs, g.Index)
			}
		}
		r.PerGPU = perGPUShares(name, gpus)
		t.Reasons = append(t.Reasons, r)
		names = append(names, name)
	}
	if len(names) > 0 {
		t.Verdict = strings.Join(names, "+")
	}
	return t
}

// perGPUShares is each GPU's own share of its samples that saw reason: the
// GPUs at or above throttleMinShare, or, when the reason was spread so
// thin that none is, every GPU that saw it.
func perGPUShares(reason string, gpus []engine.GPUTelemetry) []engine.GPUShare {
	var above, all []engine.GPUShare
	for _, g := range gpus {
		n := g.ClockEvents[reason]
		if n == 0 || g.ClockEventSamples == 0 {
			continue
		}
		sh := engine.GPUShare{Index: g.Index, Host: g.Host, Share: float64(n) / float64(g.ClockEventSamples)}
		all = append(all, sh)
		if sh.Share >= throttleMinShare {
			above = append(above, sh)
		}
	}
	if len(above) > 0 {
		return above
	}
	return all
}

// ReasonNames are the throttle reasons set in clock-event bits, by
// their engine names (engine.ThrottlePowerCap, …) in the verdict's order;
// idle and clock settings are left out, as in the verdict.
func ReasonNames(bits uint64) []string {
	var names []string
	for _, r := range throttleReasons {
		if bits&r.mask != 0 {
			names = append(names, r.name)
		}
	}
	return names
}
