package report

import (
	"cmp"

	"speedmatrix/engine"
)

// Differences says how two runs differ in what decides their figures, one
// phrase each, from a to b: "benchmark tool: llm-inference-bench 0.4.18 →
// speedmatrix v0.1.0", "time per measurement: 6 s → 30 s". A fact a run
// doesn't know reads "unknown". Two load tests also differ in their plans
// (loadDifferences); LoadComparison lines up their figures. Empty when the
// runs agree on all of them.
func Differences(a, b engine.Report) []string {
	seconds := func(r engine.Report) string {
		if r.Run.DurationS <= 0 {
			return ""
		}
		return wholeSeconds(r.Run.DurationS)
	}
	output := func(r engine.Report) string {
		if r.Run.MaxOutputTokens <= 0 {
			return ""
		}
		return tokens(r.Run.MaxOutputTokens)
	}
	facts := []struct {
		name string
		of   func(engine.Report) string
	}{
		{"benchmark tool", func(r engine.Report) string { return r.Run.BenchmarkTool }},
		{"model", func(r engine.Report) string { return modelName(r.Run) }},
		{"GPU", servedOn},
		{"engine", func(r engine.Report) string { return r.Server.Name + " " + r.Server.Version }},
		{"server", server},
		{"time per measurement", seconds},
		{"max output", output},
	}
	var out []string
	for _, f := range facts {
		va, vb := cmp.Or(f.of(a), "unknown"), cmp.Or(f.of(b), "unknown")
		if va != vb {
			out = append(out, f.name+": "+va+" → "+vb)
		}
	}
	return append(out, loadDifferences(a, b)...)
}

// server is the Engine section's simulated label ("simulated (profile
// tiny)"), "real" for a run of ours against a real server, and unknown ("")
// for an imported run: the other tool's file cannot say whether its server
// was our simulator.
func server(r engine.Report) string {
	switch {
	case r.Server.Simulated:
		return r.Server.SimulatedLabel()
	case r.Run.Imported != nil:
		return ""
	}
	return "real"
}
