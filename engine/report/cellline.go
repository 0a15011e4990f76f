package report

import (
	"fmt"
	"strings"

	"speedmatrix/engine"
)

// CellLine is the one line a finished cell gets in the CLI's output and the
// app's event log: "Sustained decode 8K × 8: Valid · 1,237.5 tok/s ·
// 160.1 tok/s/req · TTFT 128 ms · ITL 5.9 ms", total tok/s with its ±
// (PlusMinus) when the cell carries precision and how its adaptive window
// ended (WindowText), a prefill cell's prompt tok/s with what it is the
// median of (PrefillRepeatsText), then the GPU power and
// energy when measured and each flag (" · † message"); a cell without
// figures gives its status and error.
func CellLine(r engine.Result) string {
	parts := []string{string(r.Status)}
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	switch {
	case r.Measured() && r.Phase == engine.PhasePrefill:
		tps := TokPerSec(r.TotalTokPerSec) + " prompt tok/s"
		if text := PrefillRepeatsText(r); text != "" {
			tps += " (" + text + ")"
		}
		add("%s", tps)
		add("TTFT %s", Millis(r.TTFTMs))
	case r.Measured():
		add("%s", WithWindow(TokPerSec(r.TotalTokPerSec)+" tok/s", r))
		add("%s tok/s/req", PerRequest(r.PerRequestTokPerSec))
		add("TTFT %s", Millis(r.TTFTMs))
		add("ITL %s", millisFine(r.ITLMs))
		switch {
		case r.Telemetry == nil || r.Telemetry.TotalPowerW.Avg <= 0:
		case r.Energy != nil && r.JoulesPerToken > 0: // the power J/token divides: the serving GPUs', by counter where they have one
			add("GPU %.0f W, %.3f J/token", r.Energy.PowerW, r.JoulesPerToken)
		case r.JoulesPerToken > 0:
			add("GPU %.0f W, %.3f J/token", r.Telemetry.TotalPowerW.Avg, r.JoulesPerToken)
		default: // left out: the power of some GPUs is missing (a flag says why)
			add("GPU %.0f W", r.Telemetry.TotalPowerW.Avg)
		}
	case r.Error != "":
		parts = append(parts, r.Error)
	}
	if r.Measured() {
		for _, fl := range cellFlags(r) {
			parts = append(parts, FlagMarker+" "+fl.Message)
		}
	}
	return CellName(r) + ": " + strings.Join(parts, " · ")
}
