package hw

import (
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"speedmatrix/engine"
)

// throttleMinShare is the share of a window's samples (0..1) in which a
// clock-event reason must be seen before it enters the throttle verdict:
// 10 %, so that a single power-cap blip in a long cell doesn't flag it.
const throttleMinShare = 0.10

// throttleReasons maps NVML's clock-event reason bits to the verdict's
// names, in the order the verdict lists them. GpuIdle,
// ApplicationsClocksSetting, SyncBoost and DisplayClockSetting are left out:
// they don't slow down a loaded GPU. go-nvml names the hardware bits only
// in the older ClocksThrottleReason spelling; the values are the same.
var throttleReasons = [...]struct {
	name string
	mask uint64
}{
	{engine.ThrottlePowerCap, nvml.ClocksEventReasonSwPowerCap},
	{engine.ThrottleThermal, nvml.ClocksEventReasonSwThermalSlowdown | nvml.ClocksThrottleReasonHwThermalSlowdown},
	{engine.ThrottleHWSlowdown, nvml.ClocksThrottleReasonHwSlowdown},
	{engine.ThrottlePowerBrake, nvml.ClocksThrottleReasonHwPowerBrakeSlowdown},
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

// NVML symbols for the current clock-event reasons: the name since driver
// 535, and the deprecated one before it.
const (
	symClockEvents    = "nvmlDeviceGetCurrentClocksEventReasons"
	symClockThrottles = "nvmlDeviceGetCurrentClocksThrottleReasons"
)

// clockEventQuery reads a GPU's current clock-event reasons through
// whichever of NVML's two calls the driver exports. NVML is loaded lazily,
// so calling a function the driver lacks kills the process with a symbol
// lookup error instead of returning ERROR_FUNCTION_NOT_FOUND; the session
// looks both up once before either is called.
type clockEventQuery struct {
	events, throttles bool // the driver exports the symbol
}

// clockEventQuery finds which reason calls this session's driver exports.
func (s *session) clockEventQuery() clockEventQuery {
	ext := s.lib.Extensions()
	return clockEventQuery{
		events:    ext.LookupSymbol(symClockEvents) == nil,
		throttles: ext.LookupSymbol(symClockThrottles) == nil,
	}
}

// read returns d's current reason bits, and false when they couldn't be
// read. It falls back to the deprecated call when the new one says it is
// not supported or not found.
func (q clockEventQuery) read(d nvml.Device) (uint64, bool) {
	if q.events {
		bits, ret := d.GetCurrentClocksEventReasons()
		if ret == nvml.SUCCESS {
			return bits, true
		}
		if ret != nvml.ERROR_NOT_SUPPORTED && ret != nvml.ERROR_FUNCTION_NOT_FOUND {
			return 0, false
		}
	}
	if q.throttles {
		bits, ret := d.GetCurrentClocksThrottleReasons()
		return bits, ret == nvml.SUCCESS
	}
	return 0, false
}

// throttleAcc accumulates a window's throttle verdict across GPUs.
type throttleAcc struct {
	samples int          // samples in which at least one GPU's reasons were read
	any     reasonCounts // samples in which any GPU reported each reason
}

// add counts one sample's GPUs.
func (a *throttleAcc) add(gpus []GPUSample) {
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

// ReasonNames are the throttle reasons set in NVML's clock-event bits, by
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
