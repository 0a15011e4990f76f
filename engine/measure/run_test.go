package measure

import (
	"context"
	"errors"
	"net/http/httptest"
	"speedmatrix/engine"
	"speedmatrix/engine/openai"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func statusOf(t *testing.T, rep engine.Report, phase engine.Phase, ctxTokens, conc int) engine.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.Phase == phase && r.ContextTokens == ctxTokens && r.Concurrency == conc {
			return r
		}
	}
	t.Fatalf("no %s %d×%d result in %d results", phase, ctxTokens, conc, len(rep.Results))
	return engine.Result{}
}

func TestOverCapacity(t *testing.T) {
	t.Parallel()
	s := setup{KVTokens: 100000, MaxNumSeqs: 8}
	cases := []struct {
		ctxTokens, conc int
		want            bool
	}{{8 * engine.K, 8, false}, {8 * engine.K, 16, true}, {32 * engine.K, 4, true}, {24 * engine.K, 3, false}}
	for _, c := range cases {
		if got := s.overCapacity(c.ctxTokens, c.conc, 4096); got != c.want {
			t.Errorf("overCapacity(%d, %d) = %v, want %v", c.ctxTokens, c.conc, got, c.want)
		}
	}
	if (setup{}).overCapacity(1<<20, 1000, 4096) {
		t.Error("unknown KV and max-num-seqs must never be over capacity")
	}
}

// TestRunMatrix runs a small matrix: order, capacity from /metrics (2K×4)
// and max-num-seqs (1K×4), server
// samples, progress, telemetry and the report header.
func TestRunMatrix(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{KVTokens: 4800, Interval: 5 * time.Millisecond})
	plan := engine.Plan{PrefillContexts: []int{2 * engine.K, 1 * engine.K}, DecodeContexts: []int{2 * engine.K, 1 * engine.K}, Concurrency: []int{4, 1},
		Duration: 300 * time.Millisecond, MaxOutputTokens: 64, API: engine.APICompletions}
	tel := &fakeTelemetry{}
	target := Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Telemetry: tel, Header: engine.Report{Server: engine.ServerInfo{MaxNumSeqs: 3}, Run: engine.RunInfo{BenchmarkTool: engine.BenchmarkTool("1.2.3")}}}}
	rep, events, err := runAll(t, t.Context(), plan, target, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range rep.Results {
		keys = append(keys, r.Key()+"="+string(r.Status))
	}
	want := "prefill/1024/1=Valid prefill/2048/1=Valid decode/1024/1=Valid decode/1024/4=Over capacity decode/2048/1=Valid decode/2048/4=Over capacity"
	if strings.Join(keys, " ") != want {
		t.Errorf("results\n got %s\nwant %s", strings.Join(keys, " "), want)
	}
	if !rep.Run.Complete || rep.Run.BenchmarkTool != "speedmatrix v1.2.3" || rep.Run.ServedModel != "fake-model" ||
		rep.Server.Version != "0.0.0-fake" || rep.Server.KVCacheTokens != 4800 || rep.Server.MaxModelLen != 32768 {
		t.Errorf("header: run %+v engine %+v", rep.Run, rep.Server)
	}
	counts := map[engine.EventKind]int{}
	for _, ev := range events {
		counts[ev.Kind]++
		if ev.Kind == engine.EventProgress && (ev.Progress.CellCount != 6 || ev.Progress.CellIndex < 1) {
			t.Errorf("progress %+v: want cell i of 6", *ev.Progress)
		}
	}
	if counts[engine.EventResult] != 6 || counts[engine.EventServer] == 0 || counts[engine.EventProgress] < 6 || counts[engine.EventDone] != 1 {
		t.Errorf("events by kind = %v, want 6 results, server samples, progress, one done", counts)
	}
	d := statusOf(t, rep, engine.PhaseDecode, 2*engine.K, 1)
	if d.Telemetry == nil || d.JoulesPerToken <= 0 || tel.calls == 0 {
		t.Errorf("telemetry %+v, J/token %v: want the source's summary and J/token", d.Telemetry, d.JoulesPerToken)
	}
}

type fakeTelemetry struct{ calls int }

func (f *fakeTelemetry) Summary(from, to time.Time) *engine.Telemetry {
	f.calls++
	return &engine.Telemetry{Samples: 3, TotalPowerW: engine.Stat{Avg: 250, Peak: 300}, CPUUtilPct: engine.Stat{Avg: 90, Peak: 100},
		GPUs: []engine.GPUTelemetry{{Index: 0, PowerW: engine.Stat{Avg: 250, Peak: 300}}}}
}

// TestRunOnCPUClaimsNoGPU: a server that ran on the CPU of a machine with
// a GPU gets the CPU's load per cell, and neither the idle GPU's figures
// nor a J/token made of its power.
func TestRunOnCPUClaimsNoGPU(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{KVTokens: 4800, Interval: 5 * time.Millisecond})
	plan := engine.Plan{DecodeContexts: []int{1 * engine.K}, Concurrency: []int{1}, Duration: 200 * time.Millisecond, MaxOutputTokens: 64, API: engine.APICompletions}
	h := engine.HardwareInfo{CPU: "AMD EPYC 7B13", CPUCores: 2, GPUs: []engine.GPUInfo{{Name: "NVIDIA H200"}}}
	h.ServeOnCPU("vLLM CPU build 0.32.0")
	target := Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Telemetry: &fakeTelemetry{}, Header: engine.Report{Hardware: h}}}
	rep, _, err := runAll(t, t.Context(), plan, target, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	d := statusOf(t, rep, engine.PhaseDecode, 1*engine.K, 1)
	if d.Telemetry == nil || d.Telemetry.CPUUtilPct.Avg != 90 || len(d.Telemetry.GPUs) != 0 || d.Telemetry.TotalPowerW.Avg != 0 || d.JoulesPerToken != 0 {
		t.Errorf("telemetry %+v, J/token %v: want the CPU's load only", d.Telemetry, d.JoulesPerToken)
	}
	if !rep.Hardware.OnCPU() || len(rep.Hardware.GPUs) != 0 || rep.Hardware.CPUServer != "vLLM CPU build 0.32.0" {
		t.Errorf("hardware %+v", rep.Hardware)
	}
}

// TestCancel cancels a run mid-cell: every stream stops within 1 s, the
// finished cell is kept and the interrupted one is Cancelled.
func TestCancel(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 5 * time.Millisecond})
	plan := decodePlan(1*engine.K, 8, time.Minute, 20000, engine.APIChat)
	plan.PrefillContexts = []int{1 * engine.K}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelled time.Time
	var last engine.Event
	for ev := range runWith(ctx, plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions()) {
		if ev.Kind == engine.EventProgress && ev.Progress.Cell.Phase == engine.PhaseDecode && ev.Progress.LiveTokPerSec > 0 && cancelled.IsZero() {
			cancelled = time.Now()
			cancel()
		}
		last = ev
	}
	if took := time.Since(cancelled); cancelled.IsZero() || took > time.Second {
		t.Fatalf("the run ended %v after cancel, want under 1 s", took)
	}
	if !errors.Is(last.Err, context.Canceled) {
		t.Errorf("done error = %v, want context.Canceled", last.Err)
	}
	rep := *last.Report
	if len(rep.Results) != 2 || rep.Results[0].Status != engine.StatusValid || rep.Results[1].Status != engine.StatusCancelled || rep.Run.Complete {
		t.Errorf("results %+v, complete %v: want prefill Valid, decode Cancelled, incomplete", rep.Results, rep.Run.Complete)
	}
}

// TestResume keeps the cells of a previous run and measures only the rest.
func TestResume(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 5 * time.Millisecond})
	plan := engine.Plan{PrefillContexts: []int{1 * engine.K}, DecodeContexts: []int{1 * engine.K}, Concurrency: []int{1, 2},
		Duration: 200 * time.Millisecond, MaxOutputTokens: 50, API: engine.APICompletions}
	prev := []engine.Result{
		{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 1 * engine.K, Concurrency: 1}, Status: engine.StatusValid, TotalTokPerSec: 12345},
		{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 1 * engine.K, Concurrency: 1}, Status: engine.StatusLooped},
		{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 1 * engine.K, Concurrency: 2}, Status: engine.StatusCancelled},
	}
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Resume: &Resume{Report: engine.Report{Results: prev}}}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if p := statusOf(t, rep, engine.PhasePrefill, engine.K, 1); p.TotalTokPerSec != 12345 {
		t.Errorf("prefill was measured again: %v tok/s", p.TotalTokPerSec)
	}
	if r := statusOf(t, rep, engine.PhaseDecode, engine.K, 1); r.Status != engine.StatusLooped {
		t.Errorf("decode 1K×1 = %s, want the previous Looped kept", r.Status)
	}
	if r := statusOf(t, rep, engine.PhaseDecode, engine.K, 2); r.Status != engine.StatusValid || !rep.Run.Complete {
		t.Errorf("decode 1K×2 = %s (complete %v), want measured again: Valid, complete", r.Status, rep.Run.Complete)
	}
	for _, q := range f.requestsLog() {
		if len(q.Sent) == 1 && q.PromptTokens == engine.K {
			return // the warm-up request for the resumed decode cells
		}
	}
	t.Error("no warm-up request before the resumed decode cells")
}

// TestLoopedCell marks a cell whose streams loop.
func TestLoopedCell(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: time.Millisecond, TokensPerChunk: 8, LoopAfter: 100})
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 2, 10*time.Second, 20000, engine.APIChat), Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	if r.Status != engine.StatusLooped || r.TotalTokPerSec != 0 || r.FinishedAt.Sub(r.StartedAt) > 5*time.Second {
		t.Errorf("status %s, %v tok/s, took %v: want Looped, no figures, stopped early", r.Status, r.TotalTokPerSec, r.FinishedAt.Sub(r.StartedAt))
	}
	plan := decodePlan(engine.K, 1, 300*time.Millisecond, 20000, engine.APIChat)
	plan.LoopDetection = false
	rep, _, _ = runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if r := findResult(t, rep, engine.PhaseDecode); r.Status != engine.StatusValid {
		t.Errorf("with loop detection off: %s, want Valid", r.Status)
	}
}

func TestAliveFails(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 5 * time.Millisecond})
	var calls atomic.Int64 // Alive is asked from the run and from its monitor
	alive := func() error {
		if calls.Add(1) > 3 {
			return errors.New("vllm exited with status 1")
		}
		return nil
	}
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 1, 10*time.Second, 20000, engine.APIChat), Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Alive: alive}}, testOptions())
	if err == nil || !strings.Contains(err.Error(), "vllm exited") {
		t.Fatalf("run error = %v, want the server's death", err)
	}
	if r := findResult(t, rep, engine.PhaseDecode); r.Status != engine.StatusFailed || !strings.Contains(r.Error, "vllm exited") {
		t.Errorf("cell %s %q, want Failed with the reason", r.Status, r.Error)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close()
	_, _, err := runAll(t, t.Context(), engine.DefaultPlan(), Subject{Target: Target{BaseURL: url}}, testOptions())
	if !errors.Is(err, openai.ErrUnreachable) || !strings.Contains(err.Error(), "cannot reach "+url) {
		t.Errorf("error = %v, want ErrUnreachable naming the server", err)
	}
}
