package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/history"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// standardReport is a run of the Standard plan as the engine saves it: 5
// prefill cells and 5 × 8 decode cells, each decode cell with one request
// sample per stream and one GPU's telemetry.
func standardReport(at time.Time) engine.Report {
	plan := engine.DefaultPlan()
	rep := engine.Report{SchemaVersion: engine.SchemaVersion, Plan: plan,
		Run: engine.RunInfo{Model: "RedHatAI/gemma-4-E2B-it", ServedModel: "gemma", StartedAt: at, Complete: true}}
	stat := engine.Stat{Avg: 2, Peak: 3}
	for _, ctx := range plan.PrefillContexts {
		rep.Results = append(rep.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: ctx, Concurrency: 1},
			Status: engine.StatusValid, TotalTokPerSec: 40000, TTFTMs: 200, Requests: []engine.RequestSample{{PromptTokens: ctx}}})
	}
	for _, ctx := range plan.DecodeContexts {
		for _, c := range plan.Concurrency {
			res := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: c},
				Status: engine.StatusValid, TotalTokPerSec: 100 * float64(c), PerRequestTokPerSec: 100, MeasuredS: 30,
				Telemetry: &engine.Telemetry{Samples: 30, GPUs: []engine.GPUTelemetry{{UtilizationPct: stat, PowerW: stat}}}}
			for range c {
				res.Requests = append(res.Requests, engine.RequestSample{PromptTokens: ctx, OutputTokens: 3000, TTFTMs: 120.5, TokensPerSec: 99.5, FinishReason: "length"})
			}
			rep.Results = append(rep.Results, res)
		}
	}
	return rep
}

// BenchmarkHistoryReload lists 50 saved Standard runs. "first" reads
// every report.json (the first list after an upgrade, or of runs copied
// in): each run's summary file is removed before each list; "start-up"
// reads the summary files (History's first list when the app starts);
// "again" only looks at the folders (every later list).
func BenchmarkHistoryReload(b *testing.B) {
	d := testDeps(b, &fakeEngine{})
	var folders []string
	for i := range 50 {
		rep := standardReport(time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC))
		folders = append(folders, filepath.Join(d.RunsDir, fmt.Sprintf("run-%02d", i)))
		if err := report.Save(folders[i], rep); err != nil {
			b.Fatal(err)
		}
	}
	u := newUI(apptest.NewTempApp(b), test.NewTempWindow(b, nil), d, app.Options{})
	h := u.history
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			for _, f := range folders {
				_ = os.Remove(filepath.Join(f, history.SummaryFile))
			}
			h.Cache = map[string]history.Entry{}
			b.StartTimer()
			h.Reload()
		}
	})
	b.Run("start-up", func(b *testing.B) {
		for b.Loop() {
			h.Cache = map[string]history.Entry{}
			h.Reload()
		}
	})
	b.Run("again", func(b *testing.B) {
		for b.Loop() {
			h.Reload()
		}
	})
	if len(h.Entries) != 50 || h.Entries[0].Sum.Cells != 45 {
		b.Fatalf("listed %d runs", len(h.Entries))
	}
}
