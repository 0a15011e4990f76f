package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"speedmatrix/engine"
)

// TelemetryCSVFile holds what the hardware did during each cell. It sits
// beside results.csv, whose header is fixed, as that file's extra columns.
const TelemetryCSVFile = "telemetry.csv"

// telemetryCSVHeader is the header of telemetry.csv. GPU figures are over
// all GPUs: utilization averaged, power and memory summed, temperature the
// hottest; each as the cell's average and peak. simulated is "yes" for
// figures from the simulator's model of its GPUs, "no" for readings.
var telemetryCSVHeader = []string{
	"phase", "context_tokens", "concurrency", "status", "samples",
	"gpu_util_avg_pct", "gpu_util_peak_pct", "power_avg_w", "power_peak_w",
	"vram_used_avg_mib", "vram_used_peak_mib", "temp_avg_c", "temp_peak_c",
	"sm_clock_avg_mhz", "mem_clock_avg_mhz", "pcie_rx_avg_mb_s", "pcie_tx_avg_mb_s",
	"cpu_util_avg_pct", "cpu_util_peak_pct", "joules_per_token", "simulated",
}

// HasTelemetry reports whether any cell of r carries hardware telemetry.
func HasTelemetry(r engine.Report) bool {
	for _, res := range r.Results {
		if res.Telemetry != nil {
			return true
		}
	}
	return false
}

// WriteTelemetryCSV writes one row per cell that has telemetry.
func WriteTelemetryCSV(w io.Writer, r engine.Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(telemetryCSVHeader); err != nil {
		return err
	}
	for _, res := range r.Results {
		if res.Telemetry == nil {
			continue
		}
		if err := cw.Write(telemetryRow(res)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// gpuTotals folds every GPU's figures into the machine's.
type gpuTotals struct {
	utilAvg, utilPeak, memAvg, memPeak, tempAvg, tempPeak float64
	smClock, memClock, rx, tx                             float64
}

func sumGPUs(gpus []engine.GPUTelemetry) gpuTotals {
	var t gpuTotals
	for _, g := range gpus {
		t.utilAvg += g.UtilizationPct.Avg / float64(len(gpus))
		t.utilPeak = max(t.utilPeak, g.UtilizationPct.Peak)
		t.memAvg += g.MemoryUsedMiB.Avg
		t.memPeak += g.MemoryUsedMiB.Peak
		t.tempAvg = max(t.tempAvg, g.TemperatureC.Avg)
		t.tempPeak = max(t.tempPeak, g.TemperatureC.Peak)
		t.smClock += g.SMClockMHz.Avg / float64(len(gpus))
		t.memClock += g.MemClockMHz.Avg / float64(len(gpus))
		t.rx += g.PCIeRxMBs.Avg
		t.tx += g.PCIeTxMBs.Avg
	}
	return t
}

func telemetryRow(r engine.Result) []string {
	tm := r.Telemetry
	row := []string{string(r.Phase), strconv.Itoa(r.ContextTokens), strconv.Itoa(r.Concurrency), string(r.Status),
		strconv.Itoa(tm.Samples)}
	gpu := make([]string, 12)
	if len(tm.GPUs) > 0 {
		t := sumGPUs(tm.GPUs)
		for i, v := range []float64{t.utilAvg, t.utilPeak, tm.TotalPowerW.Avg, tm.TotalPowerW.Peak, t.memAvg, t.memPeak,
			t.tempAvg, t.tempPeak, t.smClock, t.memClock, t.rx, t.tx} {
			gpu[i] = num(v, 1)
		}
	}
	row = append(row, gpu...)
	jPerToken, simulated := "", "no"
	if r.JoulesPerToken > 0 {
		jPerToken = num(r.JoulesPerToken, 4)
	}
	if tm.Simulated {
		simulated = "yes"
	}
	return append(row, num(tm.CPUUtilPct.Avg, 1), num(tm.CPUUtilPct.Peak, 1), jPerToken, simulated)
}
