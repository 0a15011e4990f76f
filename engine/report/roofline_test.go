package report

import (
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/roofline"
)

func rooflineReport(totals ...float64) engine.Report {
	g := engine.RooflineGPU{Name: "test", Count: 1, BandwidthGBs: 1000, BF16TFLOPs: 1000}
	r := engine.Report{Run: engine.RunInfo{MaxOutputTokens: 0},
		Roofline: engine.NewRoofline(g, engine.RooflineModel{ComputeDType: engine.BF16, StepBytes: 4e9, ActiveParams: 2e9})}
	for i, tot := range totals {
		c := 1 << i
		r.Results = append(r.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: c},
			ContextLabel: "8K", Status: engine.StatusValid, TotalTokPerSec: tot})
	}
	r.ApplyRoofline()
	return r
}

func TestRooflineLine(t *testing.T) {
	// 4 GB a step at 1 TB/s: 250 steps a second, 250 × C tok/s.
	r := rooflineReport(100, 300)
	want := "Decode: 40–60 % of the memory-bandwidth roofline (8K × 2: 300.0 tok/s is 60 % of 500.0)"
	if got := RooflineLine(r, engine.PhaseDecode); got != want {
		t.Errorf("RooflineLine = %q\nwant %q", got, want)
	}
	if !strings.Contains(Markdown(r), want+"\n") {
		t.Errorf("report.md lacks the decode line")
	}
	if got := RooflineLine(r, engine.PhasePrefill); got != "" {
		t.Errorf("no prefill cells, yet %q", got)
	}
	above := rooflineReport(300)
	if got := RooflineLine(above, engine.PhaseDecode); !strings.HasSuffix(got, "is 120 % of 250.0); above the roofline: the facts are wrong") {
		t.Errorf("above the roofline: %q", got)
	}
	if !strings.Contains(Markdown(above), "above the roofline: the facts are wrong (300.0 tok/s is 120 %") {
		t.Errorf("report.md lacks the cell's flag")
	}
	none := engine.Report{Roofline: engine.RooflineUnavailable(roofline.ErrUnknownGPU)}
	if got := RooflineLine(none, engine.PhaseDecode); got != "Roofline unavailable: unknown GPU" {
		t.Errorf("unavailable: %q", got)
	}
	if got := RooflineLine(engine.Report{}, engine.PhaseDecode); got != "" {
		t.Errorf("no roofline section, yet %q", got)
	}
}
