package hw

import "github.com/NVIDIA/go-nvml/pkg/nvml"

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
