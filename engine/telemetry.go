package engine

import (
	"context"
	"time"
)

// TelemetrySource summarises hardware telemetry over a time window;
// engine/telemetry's Sampler implements it. Run attaches the summary of each cell's window to its Result.
type TelemetrySource interface {
	Summary(from, to time.Time) *Telemetry
}

// Stat is the average and peak of one sampled figure over a window.
type Stat struct {
	Avg  float64 `json:"avg"`
	Peak float64 `json:"peak"`
}

// GPUTelemetry is one GPU's sampled figures over a window.
type GPUTelemetry struct {
	Index int `json:"index"`
	// Host is the node the GPU is on; "" for the machine Speed Matrix ran on.
	Host           string `json:"host,omitempty"`
	UUID           string `json:"uuid,omitempty"`
	UtilizationPct Stat   `json:"utilization_pct"`
	MemoryUsedMiB  Stat   `json:"memory_used_mib"`
	PowerW         Stat   `json:"power_w"`
	TemperatureC   Stat   `json:"temperature_c"`
	SMClockMHz     Stat   `json:"sm_clock_mhz"`
	MemClockMHz    Stat   `json:"mem_clock_mhz"`
	PCIeRxMBs      Stat   `json:"pcie_rx_mb_s"`
	PCIeTxMBs      Stat   `json:"pcie_tx_mb_s"`
	// ClockEvents counts, per reason (ThrottlePowerCap, …), the samples in
	// which this GPU reported it; nil when the reasons couldn't be read.
	ClockEvents map[string]int `json:"clock_events,omitempty"`
	// ClockEventSamples is how many samples had this GPU's reasons read.
	ClockEventSamples int `json:"clock_event_samples,omitempty"`
	// PCIe is the link as sampled under load; nil when the GPU was never
	// under load with its link read.
	PCIe *PCIeLoad `json:"pcie_under_load,omitempty"`
	// CounterW is the GPU's average power over the window by its
	// total-energy counter: the counter's rise ÷ the time between its
	// readings around the window; CounterSource names the counter. Both
	// are empty when the GPU has no counter or it could not be trusted
	// over the window; CounterNote then says why ("energy counter went
	// backwards (reset or wrapped)").
	CounterW      float64 `json:"counter_w,omitempty"`
	CounterSource string  `json:"counter_source,omitempty"`
	CounterNote   string  `json:"counter_note,omitempty"`
}

// Telemetry is what the hardware did during one cell.
type Telemetry struct {
	Samples int `json:"samples"`
	// Simulated is set when the figures come from the simulator's model of
	// its GPUs (engine/simtarget), not from a GPU.
	Simulated   bool           `json:"simulated,omitempty"`
	GPUs        []GPUTelemetry `json:"gpus,omitempty"`
	CPUUtilPct  Stat           `json:"cpu_util_pct"`
	TotalPowerW Stat           `json:"total_power_w"` // summed over every GPU, on every host
	// Throttle is the cell's throttle verdict; nil when no GPU's clock-event
	// reasons were sampled.
	Throttle *Throttle `json:"throttle,omitempty"`
}

// CPUOnly is t without any GPU's figures (its CPU load stays): the
// telemetry of a server that ran on the CPU, where a GPU the machine has
// served nothing and its power must not make a J/token.
func (t *Telemetry) CPUOnly() *Telemetry {
	if t == nil {
		return nil
	}
	c := *t
	c.GPUs, c.TotalPowerW, c.Throttle = nil, Stat{}, nil
	return &c
}

// TelemetryNoter is a TelemetrySource that can lose part of its readings
// during a run (a remote exporter that stops answering): the report's Run
// notes carry what it says, one sentence each, and a cell whose window it
// calls a gap is flagged FlagTelemetryGap, without J/token.
type TelemetryNoter interface {
	TelemetryNotes() []string
	// TelemetryGap says which readings [from, to] lacks ("node2's exporter
	// did not answer"), "" when it has them all.
	TelemetryGap(from, to time.Time) string
}

// TelemetryWaiter is a TelemetrySource that can wait until it holds a
// reading taken after t (engine/telemetry's Sampler), so that a window's
// energy counter is read on both sides of it.
type TelemetryWaiter interface {
	WaitPast(ctx context.Context, t time.Time)
}
