package charts

import (
	"fmt"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

func buildSections(r engine.Report) []Section {
	return []Section{
		{Title: "Hardware", Rows: hardwareRows(r.Hardware)},
		{Title: "Engine", Rows: engineRows(r.Engine)},
		{Title: "Run", Rows: runRows(r.Run)},
	}
}

// addKV appends a line when its value is known.
func addKV(rows []KV, key, value string) []KV {
	if strings.TrimSpace(value) == "" {
		return rows
	}
	return append(rows, KV{Key: key, Value: value})
}

func hardwareRows(hw engine.HardwareInfo) []KV {
	var rows []KV
	rows = addKV(rows, "Type", hw.Type)
	rows = addKV(rows, "GPU", gpuLabel(hw))
	if v := totalVRAM(hw); v > 0 {
		rows = addKV(rows, "VRAM", report.GB(v))
	}
	cpu := hw.CPU
	if cpu != "" && hw.CPUCores > 0 {
		cpu = fmt.Sprintf("%s (%dC)", cpu, hw.CPUCores)
	}
	rows = addKV(rows, "CPU", cpu)
	if hw.RAMBytes > 0 {
		rows = addKV(rows, "RAM", report.GB(hw.RAMBytes))
	}
	rows = addKV(rows, "OS", hw.OS)
	rows = addKV(rows, "Note", hw.Note)
	return rows
}

func engineRows(e engine.EngineInfo) []KV {
	var rows []KV
	rows = addKV(rows, "Engine", e.Engine)
	rows = addKV(rows, "Version", e.Version)
	rows = addKV(rows, "Quantization", e.Quantization)
	rows = addKV(rows, "Backend", e.Backend)
	rows = addKV(rows, "Repository", e.Repository)
	rows = addKV(rows, "Build", e.Build)
	rows = addKV(rows, "Commit", e.Commit)
	rows = addKV(rows, "Simulated", e.SimulatedLabel())
	return rows
}

func runRows(run engine.RunInfo) []KV {
	var rows []KV
	rows = addKV(rows, "Served model", run.ServedModel)
	rows = addKV(rows, "Revision", run.Revision)
	rows = addKV(rows, "Benchmark tool", run.BenchmarkTool)
	rows = addKV(rows, "Decode test", run.DecodeTest)
	rows = addKV(rows, "Prefill mode", run.PrefillMode)
	if run.DurationS > 0 {
		rows = addKV(rows, "Time per measurement", report.WholeSeconds(run.DurationS))
	}
	if run.MaxOutputTokens > 0 {
		rows = addKV(rows, "Max output", report.Int(run.MaxOutputTokens)+" tokens")
	}
	return rows
}
