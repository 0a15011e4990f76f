package report

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"speedmatrix/engine"
)

func TestSummarize(t *testing.T) {
	s := summarize(seedReport())
	if s.Model != "gemma-4-E2B-it" || s.GPU != "RTX PRO 6000 Blackwell Server Edition 96GB" || s.Partial || s.Simulated || s.Imported != "" {
		t.Errorf("summary %+v", s)
	}
	// The default plan has 5 prefill + 5 × 8 decode cells; the seed report
	// holds 12 of them, all with a final status.
	if s.Cells != 45 || s.Finished != 12 || s.CellsLine() != "12 of 45 cells" || s.PeakTokPerSec != 9005.7 {
		t.Errorf("cells %d, finished %d (%q), peak %v", s.Cells, s.Finished, s.CellsLine(), s.PeakTokPerSec)
	}
	imp, _, err := Read(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	s = summarize(imp)
	if s.Imported != "llm-inference-bench 0.4.18" || s.Partial || s.CellsLine() != "8 cells" || s.PeakTokPerSec != 4863.426438965844 {
		t.Errorf("imported summary %+v (%q)", s, s.CellsLine())
	}
	partial := imp
	partial.Run.Complete = false
	partial.Results = slices.Clone(imp.Results)
	partial.Results[7].Status = engine.StatusNotRun
	if s := summarize(partial); !s.Partial || s.CellsLine() != "7 of 8 cells" {
		t.Errorf("partial summary %+v (%q)", s, s.CellsLine())
	}
}

// TestSummaryTarget: runs of one model tell apart by what they measured:
// the simulator's profile, or the endpoint without its password.
func TestSummaryTarget(t *testing.T) {
	r := seedReport()
	r.Run.Endpoint = "http://bench:s3cret@gpu1:8000"
	if got := summarize(r).Target; got != "http://bench:<redacted>@gpu1:8000" {
		t.Errorf("endpoint target %q", got)
	}
	r.Server.Simulated, r.Server.SimProfile = true, "tiny"
	if got := summarize(r).Target; got != "profile tiny" {
		t.Errorf("simulator target %q", got)
	}
}

func TestDifferences(t *testing.T) {
	ours := seedReport()
	imp, _, err := Read(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	got := Differences(imp, ours)
	want := []string{
		"benchmark tool: llm-inference-bench 0.4.18 → speedmatrix v0.1.0",
		"model: tiny → gemma-4-E2B-it",
		"GPU: unknown → RTX PRO 6000 Blackwell Server Edition 96GB",
		"engine: vllm 0.32.0 → vllm 0.30.1rc1.dev452+g73a583112",
		"server: unknown → real", // the other tool's file can't say
		"time per measurement: 6 s → 30 s",
		"max output: 512 tokens → 4,096 tokens",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Differences =\n%q\nwant\n%q", got, want)
	}
	if d := Differences(ours, ours); len(d) != 0 {
		t.Errorf("a run differs from itself: %q", d)
	}
	// Two profiles of the simulator: the line names the fact once, not
	// "simulated: simulated (profile tiny) → …".
	tiny, big := ours, ours
	tiny.Server.Simulated, tiny.Server.SimProfile = true, "tiny"
	big.Server.Simulated, big.Server.SimProfile = true, "big"
	if d := Differences(tiny, big); !slices.Equal(d, []string{"server: simulated (profile tiny) → simulated (profile big)"}) {
		t.Errorf("Differences of two profiles = %q", d)
	}
}

// TestLoadSummary: reading only the summary's part of report.json gives
// what reading all of it gives.
func TestLoadSummary(t *testing.T) {
	imp, _, err := Read(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []engine.Report{seedReport(), imp} {
		dir := t.TempDir()
		if err := Save(dir, r); err != nil {
			t.Fatal(err)
		}
		full, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LoadSummary(dir)
		if want := summarize(full); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("LoadSummary = %+v, %v\nwant %+v", got, err, want)
		}
	}
	if _, err := LoadSummary(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("a missing run has a summary")
	}
}

// TestSummaryOfALoadTest: a load test is listed by its rates (those it
// finished, else its plan's), read from a saved report.json as from the
// report.
func TestSummaryOfALoadTest(t *testing.T) {
	rep := engine.Report{SchemaVersion: engine.SchemaVersion, Run: engine.RunInfo{ServedModel: "m", Complete: true},
		Load: &engine.LoadSection{Plan: engine.LoadPlan{RatesRPS: []float64{1, 2, 4}, Arrivals: engine.ArrivalsPoisson, Requests: 10},
			Results: []engine.LoadResult{{RateRPS: 1, Status: engine.StatusValid, RequestThroughputRPS: 0.98},
				{RateRPS: 2, Status: engine.StatusValid, RequestThroughputRPS: 1.9}, {RateRPS: 4, Status: engine.StatusNotRun}}}}
	want := []float64{1, 2}
	if got := summarize(rep).RatesRPS; !reflect.DeepEqual(got, want) {
		t.Errorf("rates of a load test = %v, want %v", got, want)
	}
	dir := t.TempDir()
	if err := Save(dir, rep); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadSummary(dir); err != nil || !reflect.DeepEqual(got.RatesRPS, want) {
		t.Errorf("LoadSummary of a load test = %+v, %v; want rates %v", got, err, want)
	}
	planned := rep
	planned.Load = &engine.LoadSection{Plan: rep.Load.Plan}
	if got := summarize(planned).RatesRPS; !reflect.DeepEqual(got, []float64{1, 2, 4}) {
		t.Errorf("rates of a load test with none finished = %v, want the plan's", got)
	}
	if summarize(seedReport()).RatesRPS != nil {
		t.Error("a matrix run has rates")
	}
}
