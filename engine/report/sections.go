package report

import (
	"fmt"
	"strings"
	"time"

	"speedmatrix/engine"
)

// HardwareRows are the Hardware section's label/value pairs, empty ones left out.
func HardwareRows(h engine.HardwareInfo) [][2]string {
	var rows [][2]string
	add := func(k, v string) {
		if v != "" {
			rows = append(rows, [2]string{k, v})
		}
	}
	add("Type", h.Type)
	if len(h.GPUs) > 0 {
		names := map[string]int{}
		var order []string
		for _, g := range h.GPUs {
			if names[g.Name] == 0 {
				order = append(order, g.Name)
			}
			names[g.Name]++
		}
		var gpus []string
		for _, n := range order {
			if names[n] > 1 {
				n = fmt.Sprintf("%d× %s", names[n], n)
			}
			gpus = append(gpus, n)
		}
		add("GPU", strings.Join(gpus, ", "))
		add("VRAM", GB(h.GPUs[0].VRAMBytes))
	}
	cpu := h.CPU
	if cpu != "" && h.CPUCores > 0 {
		cpu = fmt.Sprintf("%s (%dC)", cpu, h.CPUCores)
	}
	add("CPU", cpu)
	if h.RAMBytes > 0 {
		add("RAM", GB(h.RAMBytes))
	}
	add("OS", h.OS)
	add("Note", h.Note)
	return rows
}

// EngineRows are the Engine section's label/value pairs; a simulated engine
// says so in its own row.
func EngineRows(e engine.EngineInfo) [][2]string {
	var rows [][2]string
	add := func(k, v string) {
		if v != "" {
			rows = append(rows, [2]string{k, v})
		}
	}
	add("Engine", e.Engine)
	add("Simulated", e.SimulatedLabel())
	add("Version", e.Version)
	add("Quantization", e.Quantization)
	add("Backend", e.Backend)
	add("Repository", e.Repository)
	add("Build", e.Build)
	add("Commit", e.Commit)
	if e.MaxModelLen > 0 {
		add("Max model length", Tokens(e.MaxModelLen))
	}
	if e.KVCacheTokens > 0 {
		add("KV cache", Tokens(e.KVCacheTokens))
	}
	if e.MaxNumSeqs > 0 {
		add("Max sequences", Int(e.MaxNumSeqs))
	}
	return rows
}

// RunRows are the Run section's label/value pairs.
func RunRows(r engine.RunInfo) [][2]string {
	var rows [][2]string
	add := func(k, v string) {
		if v != "" {
			rows = append(rows, [2]string{k, v})
		}
	}
	add("Served model", r.ServedModel)
	if r.Model != r.ServedModel {
		add("Model", r.Model)
	}
	add("Revision", r.Revision)
	add("Benchmark tool", r.BenchmarkTool)
	add("Decode test", r.DecodeTest)
	add("Prefill mode", r.PrefillMode)
	if r.DurationS > 0 {
		add("Time per measurement", WholeSeconds(r.DurationS))
	}
	if r.MaxOutputTokens > 0 {
		add("Max output", Tokens(r.MaxOutputTokens))
	}
	add("API", r.API)
	add("Endpoint", r.Endpoint)
	add("Started", stamp(r.StartedAt))
	add("Finished", stamp(r.FinishedAt))
	if r.Complete {
		add("Complete", "yes")
	} else {
		add("Complete", "no (partial run; finish it with speedmatrix run --resume DIR)")
	}
	return rows
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
