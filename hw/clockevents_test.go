package hw

import (
	"errors"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"speedmatrix/engine/telemetry"
)

const (
	powerCap  = nvml.ClocksEventReasonSwPowerCap
	swThermal = nvml.ClocksEventReasonSwThermalSlowdown
)

// The reason bits telemetry writes out so that it needs no cgo are NVML's.
func TestReasonBitsAreNVMLs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want uint64
	}{
		{"SwPowerCap", telemetry.ReasonSwPowerCap, nvml.ClocksEventReasonSwPowerCap},
		{"HwSlowdown", telemetry.ReasonHwSlowdown, nvml.ClocksThrottleReasonHwSlowdown},
		{"SwThermalSlowdown", telemetry.ReasonSwThermalSlowdown, nvml.ClocksEventReasonSwThermalSlowdown},
		{"HwThermalSlowdown", telemetry.ReasonHwThermalSlowdown, nvml.ClocksThrottleReasonHwThermalSlowdown},
		{"HwPowerBrakeSlowdown", telemetry.ReasonHwPowerBrakeSlowdown, nvml.ClocksThrottleReasonHwPowerBrakeSlowdown},
	} {
		if tc.got != tc.want {
			t.Errorf("telemetry.Reason%s = %#x, NVML's is %#x", tc.name, tc.got, tc.want)
		}
	}
}

// reasonsDevice is a mock GPU whose reason calls return what the test
// says; a nil return leaves the call unset, so the mock panics if it is made.
func reasonsDevice(events, throttles *nvml.Return) *mock.Device {
	d := &mock.Device{}
	if events != nil {
		d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return powerCap, *events }
	}
	if throttles != nil {
		d.GetCurrentClocksThrottleReasonsFunc = func() (uint64, nvml.Return) { return swThermal, *throttles }
	}
	return d
}

func TestClockEventQueryRead(t *testing.T) {
	ret := func(r nvml.Return) *nvml.Return { return &r }
	for _, tc := range []struct {
		name              string
		query             clockEventQuery
		events, throttles *nvml.Return // nil: must not be called
		want              uint64
		wantRead          bool
	}{
		{"new call", clockEventQuery{true, true}, ret(nvml.SUCCESS), nil, powerCap, true},
		{"not supported falls back", clockEventQuery{true, true}, ret(nvml.ERROR_NOT_SUPPORTED), ret(nvml.SUCCESS), swThermal, true},
		{"not found falls back", clockEventQuery{true, true}, ret(nvml.ERROR_FUNCTION_NOT_FOUND), ret(nvml.SUCCESS), swThermal, true},
		{"other errors don't fall back", clockEventQuery{true, true}, ret(nvml.ERROR_GPU_IS_LOST), nil, 0, false},
		{"both not supported", clockEventQuery{true, true}, ret(nvml.ERROR_NOT_SUPPORTED), ret(nvml.ERROR_NOT_SUPPORTED), swThermal, false},
		{"no fallback in the driver", clockEventQuery{true, false}, ret(nvml.ERROR_NOT_SUPPORTED), nil, 0, false},
		{"old driver: deprecated call only", clockEventQuery{false, true}, nil, ret(nvml.SUCCESS), swThermal, true},
		{"neither exported: nothing called", clockEventQuery{}, nil, nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bits, read := tc.query.read(reasonsDevice(tc.events, tc.throttles))
			if read != tc.wantRead || (read && bits != tc.want) {
				t.Errorf("read = %#x, %v; want %#x, %v", bits, read, tc.want, tc.wantRead)
			}
		})
	}
}

// The source looks the reason calls up in the driver before calling either.
func TestSystemSourceLooksUpReasonCalls(t *testing.T) {
	for _, tc := range []struct {
		name    string
		missing string
		want    clockEventQuery
	}{
		{"both exported", "", clockEventQuery{events: true, throttles: true}},
		{"driver before 535", symClockEvents, clockEventQuery{events: false, throttles: true}},
		{"deprecated call removed", symClockThrottles, clockEventQuery{events: true, throttles: false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := newH200(t)
			cs.LookupSymbolFunc = func(sym string) error {
				if sym == tc.missing {
					return errors.New("undefined symbol " + sym)
				}
				return nil
			}
			src := newSystemSource(cs.Server)
			defer src.Close()
			if src.events != tc.want {
				t.Errorf("events query = %+v, want %+v", src.events, tc.want)
			}
		})
	}
}
