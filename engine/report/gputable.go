package report

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/engine"
)

// gpuColumns are the columns of report.md's per-GPU table.
var gpuColumns = []string{"GPU", "Utilization", "Power", "Temperature (peak)", "SM clock", "VRAM used (peak)", "Throttled", "PCIe under load"}

// gpuSum accumulates one GPU's figures over the cells, each cell weighted
// by its samples.
type gpuSum struct {
	samples                    int
	util, power, temp, smClock float64 // sums of avg × samples
	tempPeak, vramPeakMiB      float64
	events                     map[string]int
	eventSamples               int
	pcie                       *engine.PCIeLoad
}

// gpuRows are the per-GPU table's rows over the measured decode cells that
// carry telemetry, one per GPU then a Total row (utilization averaged,
// power and VRAM summed, the hottest GPU's temperature); nil when fewer
// than two GPUs were sampled, as the totals already say it all.
func gpuRows(rs []engine.Result) [][]string {
	sums := map[engine.GPUKey]*gpuSum{}
	for _, r := range ofPhase(rs, engine.PhaseDecode) {
		if !r.Measured() || r.Telemetry == nil {
			continue
		}
		for _, g := range r.Telemetry.GPUs {
			s := sums[g.Key()]
			if s == nil {
				s = &gpuSum{events: map[string]int{}}
				sums[g.Key()] = s
			}
			n := float64(r.Telemetry.Samples)
			s.samples += r.Telemetry.Samples
			s.util += g.UtilizationPct.Avg * n
			s.power += g.PowerW.Avg * n
			s.temp += g.TemperatureC.Avg * n
			s.smClock += g.SMClockMHz.Avg * n
			s.tempPeak = max(s.tempPeak, g.TemperatureC.Peak)
			s.vramPeakMiB = max(s.vramPeakMiB, g.MemoryUsedMiB.Peak)
			for reason, c := range g.ClockEvents {
				s.events[reason] += c
			}
			s.eventSamples += g.ClockEventSamples
			if g.PCIe != nil && (s.pcie == nil || g.PCIe.Link.RateGTs() < s.pcie.Link.RateGTs()) {
				s.pcie = g.PCIe
			}
		}
	}
	if len(sums) < 2 {
		return nil
	}
	keys := make([]engine.GPUKey, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, engine.CompareGPUKeys)
	var rows [][]string
	var total gpuSum
	for _, k := range keys {
		s := sums[k]
		rows = append(rows, s.row(k.String()))
		n := float64(max(s.samples, 1))
		total.util += s.util / n / float64(len(keys))
		total.power += s.power / n
		total.tempPeak = max(total.tempPeak, s.tempPeak)
		total.vramPeakMiB += s.vramPeakMiB
	}
	rows = append(rows, []string{"Total", fmt.Sprintf("%.0f %%", total.util), fmt.Sprintf("%.0f W", total.power),
		fmt.Sprintf("%.0f °C", total.tempPeak), Dash, fmt.Sprintf("%.1f GB", total.vramPeakMiB/1024), Dash, Dash})
	return rows
}

func (s *gpuSum) row(name string) []string {
	n := float64(max(s.samples, 1))
	throttled := Dash
	if s.eventSamples > 0 {
		var parts []string
		for _, reason := range []string{engine.ThrottlePowerCap, engine.ThrottleThermal, engine.ThrottleHWSlowdown, engine.ThrottlePowerBrake} {
			if c := s.events[reason]; c > 0 {
				parts = append(parts, fmt.Sprintf("%s %.0f %%", engine.ThrottleReasonName(reason), 100*float64(c)/float64(s.eventSamples)))
			}
		}
		throttled = "no"
		if len(parts) > 0 {
			throttled = strings.Join(parts, ", ")
		}
	}
	pcie := Dash
	if p := s.pcie; p != nil {
		pcie = p.Link.String()
		if p.Link.Below(p.Max) {
			pcie += fmt.Sprintf(" (max %s)", strings.TrimPrefix(p.Max.String(), "PCIe "))
		}
	}
	return []string{name, fmt.Sprintf("%.0f %%", s.util/n), fmt.Sprintf("%.0f W", s.power/n),
		fmt.Sprintf("%.0f °C (%.0f °C)", s.temp/n, s.tempPeak), fmt.Sprintf("%.0f MHz", s.smClock/n),
		fmt.Sprintf("%.1f GB", s.vramPeakMiB/1024), throttled, pcie}
}

// writeGPUs writes the per-GPU table when several GPUs were sampled.
func writeGPUs(b *strings.Builder, r engine.Report) {
	rows := gpuRows(r.Results)
	if rows == nil {
		return
	}
	heading, what := "GPUs", "what each GPU did"
	if simulatedTelemetry(r.Results) {
		heading, what = "GPUs (simulated)", "what the simulator's model of each GPU did (no GPU was read)"
	}
	fmt.Fprintf(b, "## %s\n\n%s over the measured decode cells: averages weighted by samples, peaks the highest\n\n", heading, what)
	writeTable(b, gpuColumns, rows)
}

// simulatedTelemetry reports whether any cell's telemetry is simulated.
func simulatedTelemetry(rs []engine.Result) bool {
	for _, r := range rs {
		if r.Telemetry != nil && r.Telemetry.Simulated {
			return true
		}
	}
	return false
}
