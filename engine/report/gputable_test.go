package report

import (
	"reflect"
	"strings"
	"testing"

	"speedmatrix/engine"
)

func TestGPURows(t *testing.T) {
	stat := func(avg, peak float64) engine.Stat { return engine.Stat{Avg: avg, Peak: peak} }
	cell := func(samples int, util1, power1 float64, events1 int) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 8}, Status: engine.StatusValid,
			Telemetry: &engine.Telemetry{Samples: samples, GPUs: []engine.GPUTelemetry{
				{Index: 0, UtilizationPct: stat(90, 100), PowerW: stat(300, 320), TemperatureC: stat(60, 65), SMClockMHz: stat(1800, 1900),
					MemoryUsedMiB: stat(20480, 21504), ClockEvents: map[string]int{}, ClockEventSamples: samples},
				{Index: 1, UtilizationPct: stat(util1, 100), PowerW: stat(power1, 350), TemperatureC: stat(70, 80), SMClockMHz: stat(1600, 1700),
					MemoryUsedMiB: stat(20480, 22528), ClockEvents: map[string]int{engine.ThrottlePowerCap: events1}, ClockEventSamples: samples,
					PCIe: &engine.PCIeLoad{Link: engine.PCIeLink{Gen: 4, Width: 8}, Max: engine.PCIeLink{Gen: 4, Width: 16}, Samples: samples}},
			}}}
	}
	// 10 samples at 80 % and 320 W, 30 at 100 % and 340 W: 95 % and 335 W.
	rs := []engine.Result{cell(10, 80, 320, 0), cell(30, 100, 340, 17)}
	want := [][]string{
		{"GPU 0", "90 %", "300 W", "60 °C (65 °C)", "1800 MHz", "21.0 GB", "no", Dash},
		{"GPU 1", "95 %", "335 W", "70 °C (80 °C)", "1600 MHz", "22.0 GB", "power cap 42 %", "PCIe 4.0 x8 (max 4.0 x16)"},
		{"Total", "92 %", "635 W", "80 °C", Dash, "43.0 GB", Dash, Dash},
	}
	if got := gpuRows(rs); !reflect.DeepEqual(got, want) {
		t.Errorf("GPURows =\n%q\nwant\n%q", got, want)
	}
	md := Markdown(engine.Report{Results: rs})
	if !strings.Contains(md, "## GPUs") || !strings.Contains(md, "| GPU 1 | 95 % | 335 W |") {
		t.Errorf("report.md lacks the GPUs table:\n%s", md)
	}
	// One GPU: the totals say it all.
	one := cell(10, 80, 320, 0)
	one.Telemetry.GPUs = one.Telemetry.GPUs[:1]
	if got := gpuRows([]engine.Result{one}); got != nil {
		t.Errorf("one GPU: %q, want no table", got)
	}
}
