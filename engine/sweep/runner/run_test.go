package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/telemetry"
)

// fakeSweep drives a Runner whose servers are fakes: launches of names in
// failLaunch fail, and the run of interruptAt is interrupted after its
// first cell (cancelling the sweep).
type fakeSweep struct {
	failLaunch  map[string]bool
	interruptAt string
	cancel      context.CancelFunc
	measured    []string // "name" or "name (resumed)"
	memory      []float64
	stops       int
}

func (f *fakeSweep) runner(dir string) *Runner {
	return &Runner{Dir: dir, Server: "server.toml", Base: baseTOML, MemoryPoll: time.Millisecond, MemoryWait: time.Minute,
		Hooks: Hooks{
			Launch: func(ctx context.Context, c sweep.Config, cfg launch.ServerConfig) (measure.Subject, func(), error) {
				if f.failLaunch[c.Name] {
					return measure.Subject{}, nil, errors.New("vLLM server exited (exit status 1) before it was ready: the GPU ran out of memory\nmore")
				}
				if c.Name == "a" && cfg.MaxNumSeqs != 4 {
					return measure.Subject{}, nil, errors.New("a launched without its setting")
				}
				f.memory = []float64{30000, 20000, 1500}
				return measure.Subject{}, func() { f.stops++ }, nil
			},
			Measure: func(ctx context.Context, c sweep.Config, _ measure.Subject, dir string, prev *engine.Report) (engine.Report, error) {
				name := c.Name
				if prev != nil {
					name += " (resumed)"
				}
				f.measured = append(f.measured, name)
				r := engine.Report{Plan: engine.Plan{DecodeContexts: []int{1024}, Concurrency: []int{1, 8}}}
				r.Results = []engine.Result{decodeCell(1024, 1, engine.StatusValid, 100, 0.01), decodeCell(1024, 8, engine.StatusValid, 400, 0.01)}
				if c.Name == "a" {
					r.Results[1].TotalTokPerSec = 600
				}
				if c.Name == f.interruptAt && prev == nil {
					r.Results[1] = decodeCell(1024, 8, engine.StatusNotRun, 0, 0)
					if err := report.Save(dir, r); err != nil {
						return r, err
					}
					f.cancel()
					return r, measure.ErrInterrupted
				}
				r.Run.Complete = true
				return r, report.Save(dir, r)
			},
		},
		GPUs: f}
}

// Read is one GPU's memory in use: the next of f.memory, else 1000 MiB.
func (f *fakeSweep) Read() telemetry.Sample {
	m := 1000.0
	if len(f.memory) > 0 {
		m, f.memory = f.memory[0], f.memory[1:]
	}
	return telemetry.Sample{GPUs: []engine.GPUSample{{MemoryUsedMiB: m}}}
}

func TestRunFailsOnInterruptsAndResumes(t *testing.T) {
	dir := t.TempDir()
	cs := named([]sweep.Config{{Name: sweep.BaselineName, Baseline: true}, {Name: "a", Settings: []sweep.Setting{{Key: "max_num_seqs", Value: "4"}}}, {Name: "b", Settings: []sweep.Setting{{Key: "max_num_seqs", Value: "8"}}}})
	s := sweep.New("server.toml", engine.Plan{DecodeContexts: []int{1024}, Concurrency: []int{1, 8}}, cs, "test")
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeSweep{failLaunch: map[string]bool{"a": true}, interruptAt: "b", cancel: cancel}
	err := f.runner(dir).Run(ctx, &s)
	if !errors.Is(err, measure.ErrInterrupted) {
		t.Fatalf("Run = %v, want interrupted", err)
	}
	got := []string{}
	for _, c := range s.Configs {
		got = append(got, string(c.Status)+":"+c.Reason)
	}
	want := "Done:|Failed to start:vLLM server exited (exit status 1) before it was ready: the GPU ran out of memory|Partial:interrupted"
	if strings.Join(got, "|") != want {
		t.Errorf("statuses\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	saved, err := sweep.Load(dir)
	if err != nil || saved.Configs[2].Status != sweep.StatusPartial || saved.Answer == nil {
		t.Fatalf("sweep.json = %+v, %v", saved, err)
	}
	for _, name := range []string{sweep.MDFile, sweep.CSVFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written after the interrupt: %v", name, err)
		}
	}

	// Resume: the failed start-up is tried again, the partial run finished.
	Reopen(dir, &saved)
	f2 := &fakeSweep{cancel: func() {}}
	if err := f2.runner(dir).Run(context.Background(), &saved); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f2.measured, ",") != "a,b (resumed)" {
		t.Errorf("resume measured %v, want a, then b resumed", f2.measured)
	}
	if f2.stops != 2 || len(f2.memory) != 0 {
		t.Errorf("%d stops, memory readings left %v: each server stops and its memory is waited for", f2.stops, f2.memory)
	}
	for _, c := range saved.Configs {
		if c.Status != sweep.StatusDone {
			t.Errorf("%s: %s", c.Name, c.Status)
		}
	}
	if saved.Ended.IsZero() || saved.ActualS <= 0 || saved.EstimateS <= 0 {
		t.Errorf("times: ended %v, actual %v, estimate %v", saved.Ended, saved.ActualS, saved.EstimateS)
	}
	if ca := saved.Answer.Cells[1]; ca.Best != "a" || ca.OverBaseline == nil || ca.OverBaseline.Gain != 0.5 {
		t.Errorf("1K × 8: %+v", ca)
	}
}

// TestServerDeathLeavesItPartialAndGoesOn: a run that ends because its
// server died leaves its configuration Partial with the reason, without
// the run's own advice to resume it alone, and the sweep measures the next.
func TestServerDeathLeavesItPartialAndGoesOn(t *testing.T) {
	dir := t.TempDir()
	cs := named([]sweep.Config{{Name: sweep.BaselineName, Baseline: true}, {Name: "b", Settings: []sweep.Setting{{Key: "max_num_seqs", Value: "8"}}}})
	s := sweep.New("server.toml", engine.Plan{DecodeContexts: []int{1024}, Concurrency: []int{1, 8}}, cs, "test")
	f := &fakeSweep{cancel: func() {}}
	r := f.runner(dir)
	measure0 := r.Measure
	r.Measure = func(ctx context.Context, c sweep.Config, tg measure.Subject, d string, prev *engine.Report) (engine.Report, error) {
		if c.Baseline {
			return engine.Report{}, errors.New("run incomplete: 0 of 2 cells done (the server stopped answering); when the server is back, finish with: speedmatrix run --resume x")
		}
		return measure0(ctx, c, tg, d, prev)
	}
	if err := r.Run(context.Background(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Configs[0].Status != sweep.StatusPartial || s.Configs[0].Reason != "run incomplete: 0 of 2 cells done (the server stopped answering)" || s.Configs[1].Status != sweep.StatusDone {
		t.Errorf("configs %+v", s.Configs)
	}
}
