package engine

import "testing"

func TestPCIeLink(t *testing.T) {
	for _, tc := range []struct {
		link, max PCIeLink
		text      string
		below     bool
	}{
		{PCIeLink{4, 8}, PCIeLink{4, 16}, "PCIe 4.0 x8", true},
		{PCIeLink{3, 16}, PCIeLink{4, 16}, "PCIe 3.0 x16", true},
		{PCIeLink{5, 16}, PCIeLink{5, 16}, "PCIe 5.0 x16", false},
		{PCIeLink{0, 16}, PCIeLink{5, 16}, "PCIe x16", false}, // generation unknown: not judged
		{PCIeLink{}, PCIeLink{}, "", false},
	} {
		if got := tc.link.String(); got != tc.text {
			t.Errorf("%+v: String = %q, want %q", tc.link, got, tc.text)
		}
		if got := tc.link.Below(tc.max); got != tc.below {
			t.Errorf("%s below %s = %v, want %v", tc.link, tc.max, got, tc.below)
		}
	}
	if a, b := (PCIeLink{4, 16}).RateGTs(), (PCIeLink{5, 8}).RateGTs(); a != b || a != 256 {
		t.Errorf("rates %v, %v; want 256 GT/s both", a, b)
	}
}

func TestPCIeWarning(t *testing.T) {
	for _, tc := range []struct {
		g    GPUTelemetry
		want string
	}{
		{GPUTelemetry{Index: 1, PCIe: &PCIeLoad{Link: PCIeLink{4, 8}, Max: PCIeLink{4, 16}}}, "GPU 1 runs at PCIe 4.0 x8 (max x16)"},
		{GPUTelemetry{Index: 0, Host: "node2", PCIe: &PCIeLoad{Link: PCIeLink{3, 16}, Max: PCIeLink{4, 16}}}, "GPU 0 on node2 runs at PCIe 3.0 x16 (max 4.0 x16)"},
		{GPUTelemetry{Index: 0, PCIe: &PCIeLoad{Link: PCIeLink{4, 16}, Max: PCIeLink{4, 16}}}, ""},
		{GPUTelemetry{Index: 0}, ""},
	} {
		if got := tc.g.PCIeWarning(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.g, got, tc.want)
		}
	}
}

func TestThrottleDescribe(t *testing.T) {
	perGPU := &Throttle{Verdict: "power_cap+thermal", Samples: 50, Reasons: []ThrottleReason{
		{Reason: ThrottlePowerCap, Share: 0.4, GPUs: []int{0, 1}, PerGPU: []GPUShare{{Index: 1, Share: 0.34}, {Index: 0, Host: "node2", Share: 0.1}}},
		{Reason: ThrottleThermal, Share: 0.12, GPUs: []int{1}, PerGPU: []GPUShare{{Index: 1, Share: 0.12}}},
	}}
	old := &Throttle{Verdict: "power_cap", Samples: 10, Reasons: []ThrottleReason{{Reason: ThrottlePowerCap, Share: 0.64, GPUs: []int{0}}}}
	for _, tc := range []struct {
		t    *Throttle
		want string
	}{
		{perGPU, "GPU 1 throttled: power cap, 34 % and thermal, 12 % of the window; GPU 0 on node2 throttled: power cap, 10 % of the window"},
		{old, "power cap in 64 % of samples (GPU 0)"},
		{&Throttle{Verdict: ThrottleOK, Samples: 3}, "ok"},
		{nil, "ok"},
	} {
		if got := tc.t.Describe(); got != tc.want {
			t.Errorf("Describe = %q,\nwant       %q", got, tc.want)
		}
	}
	if got := old.Message(); got != "GPU throttled: power cap in 64 % of samples (GPU 0)" {
		t.Errorf("old Message = %q", got)
	}
	if got := perGPU.Message(); got != perGPU.Describe() {
		t.Errorf("per-GPU Message = %q", got)
	}
}

// TestPowerW: J/token's power sums the serving GPUs, on every host, or
// every sampled GPU when they aren't known.
func TestPowerW(t *testing.T) {
	tm := &Telemetry{TotalPowerW: Stat{Avg: 900}, GPUs: []GPUTelemetry{
		{Index: 0, PowerW: Stat{Avg: 300}}, {Index: 1, PowerW: Stat{Avg: 280}},
		{Index: 0, Host: "node2", PowerW: Stat{Avg: 310}}, {Index: 2, PowerW: Stat{Avg: 10}}}}
	for _, tc := range []struct {
		serving []GPUKey
		want    float64
	}{
		{nil, 900},
		{[]GPUKey{{Index: 0}, {Index: 1}}, 580},
		{[]GPUKey{{Index: 0}, {Index: 1}, {Host: "node2", Index: 0}}, 890},
	} {
		if got := tm.PowerW(tc.serving); got != tc.want {
			t.Errorf("PowerW(%v) = %v, want %v", tc.serving, got, tc.want)
		}
	}
}
