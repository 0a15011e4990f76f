package report

import (
	"fmt"
	"math"
	"strings"

	"speedmatrix/engine"
)

// GPUDetails are the lines that follow a Hardware section on screen: one
// per run of consecutive GPUs with the same details, keyed "GPU 0" or
// "GPU 0-7", valued as gpuDetail writes them.
func GPUDetails(gpus []engine.GPUInfo) []Row {
	var out []Row
	for i := 0; i < len(gpus); {
		text := gpuDetail(gpus[i])
		j := i + 1
		for j < len(gpus) && gpuDetail(gpus[j]) == text {
			j++
		}
		key := fmt.Sprintf("GPU %d", gpus[i].Index)
		if j-i > 1 {
			key = fmt.Sprintf("GPU %d-%d", gpus[i].Index, gpus[j-1].Index)
		}
		if text == "" {
			text = "no details available"
		}
		out = append(out, Row{Key: key, Value: text})
		i = j
	}
	return out
}

// gpuDetail is "node2 · driver 570.86.15 · CUDA 12.8 · compute 8.6 · power
// limit 350 W · SM clock up to 1860 MHz · memory 936 GB/s (384-bit, 9751
// MHz)", leaving out what is unknown; the node comes first only for a GPU
// of another node, and the PCIe link is on the links line (gpuLinks).
func gpuDetail(g engine.GPUInfo) string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	if g.Host != "" {
		parts = append(parts, g.Host) // another node's GPU (DCGM exporter, Ray)
	}
	if g.DriverVersion != "" {
		add("driver %s", g.DriverVersion)
	}
	if g.CUDAVersion != "" {
		add("CUDA %s", g.CUDAVersion)
	}
	if g.ComputeCapability != "" {
		add("compute %s", g.ComputeCapability)
	}
	if g.PowerLimitW > 0 {
		add("power limit %.0f W", g.PowerLimitW)
	}
	if g.MaxSMClockMHz > 0 {
		add("SM clock up to %d MHz", g.MaxSMClockMHz)
	}
	if g.PeakBandwidthGBs > 0 {
		add("memory %s GB/s (%d-bit, %d MHz)", Int(int(math.Round(g.PeakBandwidthGBs))),
			g.MemoryBusWidthBits, g.MaxMemClockMHz)
	}
	if g.MIGEnabled {
		add("MIG on")
	}
	return strings.Join(parts, " · ")
}
