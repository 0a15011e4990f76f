package report

import (
	"testing"

	"speedmatrix/engine"
)

func TestCellLine(t *testing.T) {
	dec := engine.Result{
		Cell:         engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 8},
		ContextLabel: "8K", Status: engine.StatusValid,
		TotalTokPerSec: 1237.5, PerRequestTokPerSec: 2009, TTFTMs: 128, ITLMs: 6.2, AvgActive: 8,
	}
	powered := dec
	powered.Telemetry = &engine.Telemetry{TotalPowerW: engine.Stat{Avg: 412, Peak: 450}}
	powered.JoulesPerToken = 412 / 1237.5
	gap := powered
	gap.JoulesPerToken = 0
	gap.Flags = []engine.Flag{{Kind: engine.FlagTelemetryGap, Message: "telemetry incomplete: the DCGM exporter http://node2:9400/metrics did not answer; J/token left out"}}
	flagged := dec
	flagged.Flags = []engine.Flag{{Kind: engine.FlagPreempted, Message: "preempted 3 times"}}
	failed := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 8},
		Status: engine.StatusFailed, Error: "stream stalled", TotalTokPerSec: 5}
	for _, tc := range []struct {
		name string
		r    engine.Result
		want string
	}{
		{"decode", dec, "Sustained decode 8K × 8: Valid · 1,237.5 tok/s · 2009.0 tok/s/req · TTFT 128 ms · ITL 6.2 ms"},
		{"with power", powered, "Sustained decode 8K × 8: Valid · 1,237.5 tok/s · 2009.0 tok/s/req · TTFT 128 ms · ITL 6.2 ms · GPU 412 W, 0.333 J/token"},
		{"telemetry gap", gap, "Sustained decode 8K × 8: Valid · 1,237.5 tok/s · 2009.0 tok/s/req · TTFT 128 ms · ITL 6.2 ms · GPU 412 W · † telemetry incomplete: the DCGM exporter http://node2:9400/metrics did not answer; J/token left out"},
		{"flagged", flagged, "Sustained decode 8K × 8: Valid · 1,237.5 tok/s · 2009.0 tok/s/req · TTFT 128 ms · ITL 6.2 ms · † preempted 3 times"},
		{"prefill", engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 32768, Concurrency: 1},
			Status: engine.StatusValid, TotalTokPerSec: 9534, TTFTMs: 3437}, "Prefill 32K × 1: Valid · 9,534.0 prompt tok/s · TTFT 3,437 ms"},
		{"prefill, median of 3", engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 32768, Concurrency: 1},
			Status: engine.StatusValid, TotalTokPerSec: 9534, TTFTMs: 3437, PrefillRepeats: 3, PrefillSpreadPct: 1.24},
			"Prefill 32K × 1: Valid · 9,534.0 prompt tok/s (median of 3, spread 1.2 %) · TTFT 3,437 ms"},
		{"prefill, one request", engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 65536, Concurrency: 1},
			Status: engine.StatusValid, TotalTokPerSec: 9534, TTFTMs: 6874, PrefillRepeats: 1}, "Prefill 64K × 1: Valid · 9,534.0 prompt tok/s · TTFT 6,874 ms"},
		{"failed", failed, "Sustained decode 8K × 8: Failed · stream stalled"},
		{"over capacity", engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 131072, Concurrency: 64},
			Status: engine.StatusOverCapacity}, "Sustained decode 128K × 64: Over capacity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CellLine(tc.r); got != tc.want {
				t.Errorf("CellLine =\n %q, want\n %q", got, tc.want)
			}
		})
	}
}
