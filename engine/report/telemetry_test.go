package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestTelemetryCSV: two GPUs fold into machine totals, a cell without
// telemetry has no row, and Save writes the file only when there is some.
func TestTelemetryCSV(t *testing.T) {
	tm := &engine.Telemetry{
		Samples: 30,
		GPUs: []engine.GPUTelemetry{
			{UtilizationPct: engine.Stat{Avg: 90, Peak: 100}, MemoryUsedMiB: engine.Stat{Avg: 1000, Peak: 1100},
				TemperatureC: engine.Stat{Avg: 60, Peak: 65}, SMClockMHz: engine.Stat{Avg: 1800}, PCIeRxMBs: engine.Stat{Avg: 5}},
			{UtilizationPct: engine.Stat{Avg: 70, Peak: 80}, MemoryUsedMiB: engine.Stat{Avg: 2000, Peak: 2100},
				TemperatureC: engine.Stat{Avg: 70, Peak: 72}, SMClockMHz: engine.Stat{Avg: 1600}, PCIeRxMBs: engine.Stat{Avg: 7}},
		},
		CPUUtilPct:  engine.Stat{Avg: 12.5, Peak: 40},
		TotalPowerW: engine.Stat{Avg: 600, Peak: 700},
	}
	r := engine.Report{Results: []engine.Result{
		{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 4}, Status: engine.StatusValid,
			TotalTokPerSec: 1200, Telemetry: tm, JoulesPerToken: 0.5},
		{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 128}, Status: engine.StatusOverCapacity},
	}}
	var b strings.Builder
	if err := WriteTelemetryCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(telemetryCSVHeader, ",") + "\n" +
		"decode,8192,4,Valid,30,80.0,100.0,600.0,700.0,3000.0,3200.0,70.0,72.0,1700.0,0.0,12.0,0.0,12.5,40.0,0.5000,no\n"
	if b.String() != want {
		t.Errorf("telemetry.csv =\n%s\nwant\n%s", b.String(), want)
	}

	dir := t.TempDir()
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, TelemetryCSVFile)); err != nil {
		t.Errorf("Save with telemetry: %v", err)
	}
	bare := t.TempDir()
	r.Results[0].Telemetry = nil
	if err := Save(bare, r); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bare, TelemetryCSVFile)); !os.IsNotExist(err) {
		t.Errorf("Save without telemetry wrote %s (err %v)", TelemetryCSVFile, err)
	}
}
