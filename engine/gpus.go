package engine

import (
	"fmt"
	"slices"
	"strings"
)

// PCIeLink is a PCIe link's generation and lane width; zero fields are
// unknown.
type PCIeLink struct {
	Gen   int `json:"gen"`
	Width int `json:"width"`
}

// String is the link as vendors write it: "PCIe 4.0 x8".
func (l PCIeLink) String() string {
	switch {
	case l.Gen > 0 && l.Width > 0:
		return fmt.Sprintf("PCIe %d.0 x%d", l.Gen, l.Width)
	case l.Gen > 0:
		return fmt.Sprintf("PCIe %d.0", l.Gen)
	case l.Width > 0:
		return fmt.Sprintf("PCIe x%d", l.Width)
	}
	return ""
}

// Known reports whether both the generation and the width are known.
func (l PCIeLink) Known() bool { return l.Gen > 0 && l.Width > 0 }

// laneGTs is each generation's transfer rate per lane in GT/s (Gen 1 to 6).
var laneGTs = [...]float64{0, 2.5, 5, 8, 16, 32, 64}

// RateGTs is the link's raw rate (lanes × GT/s per lane), to order links;
// 0 when unknown.
func (l PCIeLink) RateGTs() float64 {
	if !l.Known() || l.Gen >= len(laneGTs) {
		return 0
	}
	return laneGTs[l.Gen] * float64(l.Width)
}

// Below reports whether l runs slower than max in generation or width,
// both known.
func (l PCIeLink) Below(max PCIeLink) bool {
	return l.Known() && max.Known() && (l.Gen < max.Gen || l.Width < max.Width)
}

// LoadUtilPct is the GPU utilization from which a sample counts as under
// load for the PCIe check: idle GPUs lower their link generation to save
// power, which is not a fault.
const LoadUtilPct = 30

// PCIeLoad is a GPU's PCIe link as sampled under load: the slowest link
// seen in a sample with utilization of at least LoadUtilPct, and the most
// the link can do.
type PCIeLoad struct {
	Link    PCIeLink `json:"link"`
	Max     PCIeLink `json:"max"`
	Samples int      `json:"samples"` // samples under load with the link read
}

// GPUKey identifies a GPU across telemetry sources: its host ("" for the
// machine Speed Matrix runs on) and its index there.
type GPUKey struct {
	Host  string `json:"host,omitempty"`
	Index int    `json:"index"`
}

// CompareGPUKeys orders GPUs as every list shows them: this machine's
// first, then by host, and by index within a host.
func CompareGPUKeys(a, b GPUKey) int {
	if a.Host != b.Host {
		return strings.Compare(a.Host, b.Host)
	}
	return a.Index - b.Index
}

// String is the GPU as text names it: "GPU 1", or "GPU 1 on node2".
func (k GPUKey) String() string {
	if k.Host == "" {
		return fmt.Sprintf("GPU %d", k.Index)
	}
	return fmt.Sprintf("GPU %d on %s", k.Index, k.Host)
}

// GPUSample is one GPU's figures at one moment, from NVML on this machine
// (hw) or from another source such as a node's DCGM exporter. Host, Index
// and UUID identify the GPU. A figure that could not be read is NaN
// (check with math.IsNaN); summaries leave it out. A PCIe link that could
// not be read is zero.
type GPUSample struct {
	Host           string // "" for this machine
	UUID           string
	Index          int
	UtilizationPct float64
	MemoryUsedMiB  float64
	PowerW         float64
	TemperatureC   float64
	SMClockMHz     float64
	MemClockMHz    float64
	PCIeRxMBs      float64
	PCIeTxMBs      float64
	// PCIe is the link as it runs now; PCIeMax the most it can do.
	PCIe, PCIeMax PCIeLink
	// ClockEventReasons is NVML's clock-event (throttle) reason bits
	// (nvml.ClocksEventReason…, the same bits as DCGM's
	// DCGM_FI_DEV_CLOCKS_EVENT_REASONS), valid when ClockEventsRead is set.
	ClockEventReasons uint64
	ClockEventsRead   bool
	// EnergyMJ is the GPU's total-energy counter (mJ since the driver
	// loaded), valid when EnergySource names the counter
	// (EnergyFromNVML, EnergyFromDCGM, EnergyFromSimulator); "" when the
	// GPU has none (NVML's ERROR_NOT_SUPPORTED before Volta).
	EnergyMJ     float64
	EnergySource string
}

// Key is the sample's GPU.
func (s GPUSample) Key() GPUKey { return GPUKey{Host: s.Host, Index: s.Index} }

// Key is the telemetry's GPU.
func (g GPUTelemetry) Key() GPUKey { return GPUKey{Host: g.Host, Index: g.Index} }

// PCIeWarning says when the GPU ran below its PCIe link's maximum under
// load: "GPU 1 runs at PCIe 4.0 x8 (max x16)"; "" when it didn't or the
// link wasn't sampled under load.
func (g GPUTelemetry) PCIeWarning() string {
	p := g.PCIe
	if p == nil || !p.Link.Below(p.Max) {
		return ""
	}
	max := fmt.Sprintf("x%d", p.Max.Width)
	if p.Link.Gen < p.Max.Gen {
		max = fmt.Sprintf("%d.0 x%d", p.Max.Gen, p.Max.Width)
	}
	return fmt.Sprintf("%s runs at %s (max %s)", g.Key(), p.Link, max)
}

// PowerW is the average power the GPUs of serving drew over the window,
// summed; every sampled GPU when serving is empty. J/token divides it by
// the cell's tok/s, so it counts every GPU that serves the model (all of a
// tensor-parallel group, and the remote nodes' GPUs a second source adds)
// and, when serving is known, none that doesn't.
func (t *Telemetry) PowerW(serving []GPUKey) float64 {
	if len(serving) == 0 {
		return t.TotalPowerW.Avg
	}
	sum := 0.0
	for _, g := range t.GPUs {
		if slices.Contains(serving, g.Key()) {
			sum += g.PowerW.Avg
		}
	}
	return sum
}
