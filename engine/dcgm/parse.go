// Package dcgm reads GPU telemetry from NVIDIA's DCGM exporter, the
// Prometheus exporter that GPU clusters (the Kubernetes GPU operator, Slurm
// sites) run on every node, so that a run against a remote server or a
// multi-node cluster samples the GPUs that serve the model. It parses the
// exporter's /metrics text with engine/openai's Prometheus parser and feeds
// the readings to a telemetry.Sampler, which summarises them per cell like
// NVML's.
package dcgm

import (
	"errors"
	"math"
	"strconv"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
)

// errNotExporter: the page answered but holds no DCGM_FI_DEV_ sample of a
// whole GPU, so it is not a DCGM exporter's (or it exports none of the
// fields Speed Matrix reads).
var errNotExporter = errors.New("no DCGM_FI_DEV_ GPU metric on the page")

// reading is one GPU's figures in one scrape of an exporter. A figure the
// page lacks is NaN.
type reading struct {
	Host  string // the Hostname label; empty when the exporter sets none
	UUID  string
	GPU   int    // the gpu label: the GPU's index on its node
	Model string // the modelName label, "NVIDIA H100 80GB HBM3"
	// Driver is the DCGM_FI_DRIVER_VERSION label newer exporters add.
	Driver string

	UtilizationPct float64 // DCGM_FI_DEV_GPU_UTIL, %
	PowerW         float64 // DCGM_FI_DEV_POWER_USAGE, W
	TemperatureC   float64 // DCGM_FI_DEV_GPU_TEMP, °C
	SMClockMHz     float64 // DCGM_FI_DEV_SM_CLOCK
	MemClockMHz    float64 // DCGM_FI_DEV_MEM_CLOCK
	FBUsedMiB      float64 // DCGM_FI_DEV_FB_USED
	FBFreeMiB      float64 // DCGM_FI_DEV_FB_FREE
	FBReservedMiB  float64 // DCGM_FI_DEV_FB_RESERVED (driver's share; newer exporters)
	PCIeRxMBs      float64 // DCGM_FI_PROF_PCIE_RX_BYTES, in MB/s (the field is bytes/s)
	PCIeTxMBs      float64 // DCGM_FI_PROF_PCIE_TX_BYTES, in MB/s
	EnergyMJ       float64 // DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, mJ since boot
	// ClockEventReasons is DCGM_FI_DEV_CLOCKS_EVENT_REASONS (older name:
	// DCGM_FI_DEV_CLOCK_THROTTLE_REASONS): NVML's clock-event bit mask.
	ClockEventReasons uint64
	ClockEventsRead   bool
}

// vramMiB is the GPU's framebuffer: used + free + reserved, 0 when unknown.
func (r reading) vramMiB() float64 {
	if math.IsNaN(r.FBUsedMiB) || math.IsNaN(r.FBFreeMiB) {
		return 0
	}
	total := r.FBUsedMiB + r.FBFreeMiB
	if !math.IsNaN(r.FBReservedMiB) {
		total += r.FBReservedMiB
	}
	return total
}

// field points at the reading figure a metric fills.
var fields = map[string]func(*reading) *float64{
	"DCGM_FI_DEV_GPU_UTIL":                 func(r *reading) *float64 { return &r.UtilizationPct },
	"DCGM_FI_DEV_POWER_USAGE":              func(r *reading) *float64 { return &r.PowerW },
	"DCGM_FI_DEV_GPU_TEMP":                 func(r *reading) *float64 { return &r.TemperatureC },
	"DCGM_FI_DEV_SM_CLOCK":                 func(r *reading) *float64 { return &r.SMClockMHz },
	"DCGM_FI_DEV_MEM_CLOCK":                func(r *reading) *float64 { return &r.MemClockMHz },
	"DCGM_FI_DEV_FB_USED":                  func(r *reading) *float64 { return &r.FBUsedMiB },
	"DCGM_FI_DEV_FB_FREE":                  func(r *reading) *float64 { return &r.FBFreeMiB },
	"DCGM_FI_DEV_FB_RESERVED":              func(r *reading) *float64 { return &r.FBReservedMiB },
	"DCGM_FI_PROF_PCIE_RX_BYTES":           func(r *reading) *float64 { return &r.PCIeRxMBs },
	"DCGM_FI_PROF_PCIE_TX_BYTES":           func(r *reading) *float64 { return &r.PCIeTxMBs },
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": func(r *reading) *float64 { return &r.EnergyMJ },
}

// The clock-event reasons under their new and old names; the new wins.
const (
	reasonsNew = "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"
	reasonsOld = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"
)

// parse reads one exporter page into one reading per whole GPU, in the
// page's order. Samples of MIG instances (a GPU_I_ID label) and lines that
// don't parse are skipped; it fails with errNotExporter when no GPU is left.
func parse(text string) ([]reading, error) {
	m, _ := openai.ParseMetrics(text, nil) // the samples only; a bad line costs that line only
	var out []reading
	at := map[string]int{} // GPU key → index in out
	newReasons := map[string]bool{}
	for _, s := range m.Samples {
		fill, isField := fields[s.Name]
		if !isField && s.Name != reasonsNew && s.Name != reasonsOld {
			continue
		}
		if s.Labels["GPU_I_ID"] != "" {
			continue
		}
		gpu, err := strconv.Atoi(s.Labels["gpu"])
		if err != nil {
			continue
		}
		key := s.Labels["UUID"]
		if key == "" {
			key = "gpu" + s.Labels["gpu"]
		}
		i, seen := at[key]
		if !seen {
			i = len(out)
			at[key] = i
			out = append(out, newReading(s.Labels, gpu))
		}
		r := &out[i]
		switch {
		case isField:
			*fill(r) = s.Value
		case math.IsNaN(s.Value) || s.Value < 0:
		case s.Name == reasonsNew || !newReasons[key]:
			r.ClockEventReasons, r.ClockEventsRead = uint64(s.Value), true
			newReasons[key] = newReasons[key] || s.Name == reasonsNew
		}
	}
	for i := range out {
		for _, f := range []*float64{&out[i].PCIeRxMBs, &out[i].PCIeTxMBs} {
			*f /= 1e6
		}
	}
	if len(out) == 0 {
		return nil, errNotExporter
	}
	return out, nil
}

func newReading(labels map[string]string, gpu int) reading {
	nan := math.NaN()
	return reading{
		Host: engine.BoundName(labels["Hostname"]), UUID: engine.BoundName(labels["UUID"]), GPU: gpu, Model: engine.BoundName(labels["modelName"]),
		Driver:         engine.BoundName(labels["DCGM_FI_DRIVER_VERSION"]),
		UtilizationPct: nan, PowerW: nan, TemperatureC: nan, SMClockMHz: nan, MemClockMHz: nan,
		FBUsedMiB: nan, FBFreeMiB: nan, FBReservedMiB: nan, PCIeRxMBs: nan, PCIeTxMBs: nan, EnergyMJ: nan,
	}
}
