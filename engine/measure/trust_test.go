package measure

import (
	"errors"
	"net/http"
	"speedmatrix/engine"
	"speedmatrix/engine/servers"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestStallInsideWindowFails: a stream that stalls after its first token
// inside the window fails the cell, with a reason that counts the streams,
// and its partial figures stay out of the headline columns.
func TestStallInsideWindowFails(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{StallAt: 10, Interval: 2 * time.Millisecond})
	opts := testOptions()
	opts.firstTokenTimeout, opts.stallTimeout = time.Minute, 100*time.Millisecond
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 2, time.Second, 500, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	if r.Status != engine.StatusFailed || r.Error != "2 of 2 streams stalled (no token for 100 ms)" {
		t.Errorf("cell %s %q, want Failed: 2 of 2 streams stalled (no token for 100 ms)", r.Status, r.Error)
	}
	if r.TotalTokPerSec != 0 || r.PerRequestTokPerSec != 0 || r.Partial == nil || r.Partial.OutputTokens < 20 {
		t.Errorf("headline %v tok/s, partial %+v: want no headline figures and the partial ones kept", r.TotalTokPerSec, r.Partial)
	}
	if !rep.Run.Complete {
		t.Error("a Failed cell on a live server must not make the run incomplete")
	}
}

// TestServerKilledMidRun: when the server goes away the run ends at once,
// incomplete, with the cells it never reached Not run; resuming against a
// live server measures exactly those.
func TestServerKilledMidRun(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, KVTokens: 1 << 20})
	plan := engine.Plan{DecodeContexts: []int{engine.K}, Concurrency: []int{1, 2, 4, 8}, Duration: 200 * time.Millisecond,
		MaxOutputTokens: 1000, API: engine.APICompletions}
	var last engine.Event
	killed := time.Time{}
	for ev := range runWith(t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions()) {
		if ev.Kind == engine.EventResult && killed.IsZero() {
			f.CloseClientConnections()
			f.Close()
			killed = time.Now()
		}
		last = ev
	}
	if took := time.Since(killed); took > 5*time.Second {
		t.Errorf("the run ended %v after the server died, want at once", took)
	}
	rep := *last.Report
	if !errors.Is(last.Err, ErrServerStopped) || rep.Run.Complete || !strings.Contains(rep.Run.Incomplete, "stopped answering") {
		t.Fatalf("err %v, complete %v, incomplete %q: want ErrServerStopped, incomplete with the reason", last.Err, rep.Run.Complete, rep.Run.Incomplete)
	}
	notRun := 0
	for _, r := range rep.Results {
		if r.Status == engine.StatusNotRun {
			notRun++
		}
	}
	if len(rep.Results) != 4 || rep.Results[0].Status != engine.StatusValid || notRun < 2 {
		t.Fatalf("results %+v: want 1×1 Valid, the rest Failed or Not run", rep.Results)
	}

	back := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, KVTokens: 1 << 20})
	rep2, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: back.URL}, RunOptions: RunOptions{Resume: &Resume{Report: rep}}}, testOptions())
	if err != nil || !rep2.Run.Complete || rep2.Run.Incomplete != "" {
		t.Fatalf("resume: %v, complete %v (%q)", err, rep2.Run.Complete, rep2.Run.Incomplete)
	}
	if !rep2.Results[0].StartedAt.Equal(rep.Results[0].StartedAt) {
		t.Error("resume measured the kept 1×1 cell again")
	}
	for _, r := range rep2.Results {
		if r.Status != engine.StatusValid {
			t.Errorf("%s after resume: %s %q, want Valid", r.Key(), r.Status, r.Error)
		}
	}
}

// TestHungServer: a server that accepts connections and never answers
// stops the run with an error naming the endpoint, at the start (after its
// first request, the one the error names) and in the middle of a run.
func TestHungServer(t *testing.T) {
	t.Parallel()
	hang := &atomic.Bool{}
	hang.Store(true)
	f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, Hang: hang})
	opts := testOptions()
	opts.requestTimeout, opts.probeTimeout = 200*time.Millisecond, 200*time.Millisecond
	var sent atomic.Int64
	opts.wrapTransport = func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			sent.Add(1)
			return next.RoundTrip(req)
		})
	}
	_, _, err := runAll(t, t.Context(), decodePlan(engine.K, 1, 200*time.Millisecond, 100, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, opts)
	if err == nil || !strings.HasPrefix(err.Error(), "detect the server: GET /version: ") || !strings.Contains(err.Error(), "no answer within 200 ms") {
		t.Errorf("start against a hung server: %v, want a timeout naming GET /version", err)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("the run sent %d requests to a server that never answered, want 1: it should give up after the first", n)
	}
	opts.wrapTransport = nil

	hang.Store(false)
	// A long request timeout, so that a slow /tokenize (under -race) isn't
	// taken for a hang; the probe, which the next cell's connections double
	// as, stays short.
	opts.requestTimeout, opts.stallTimeout, opts.probeTimeout = 10*time.Second, 200*time.Millisecond, time.Second
	plan := engine.Plan{DecodeContexts: []int{engine.K}, Concurrency: []int{1, 2}, Duration: 300 * time.Millisecond, MaxOutputTokens: 5000, API: engine.APICompletions}
	var last engine.Event
	for ev := range runWith(t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, opts) {
		if ev.Kind == engine.EventResult {
			hang.Store(true)
			f.CloseClientConnections()
		}
		last = ev
	}
	if !errors.Is(last.Err, ErrServerStopped) || last.Report.Run.Complete {
		t.Errorf("a server that hangs mid-run: %v, complete %v; want ErrServerStopped, incomplete", last.Err, last.Report.Run.Complete)
	}
}

// TestMetricsHangAtStart: a server that answered detection and then does
// not answer /metrics, before the first cell, stops the run there, with
// the request that got no answer.
func TestMetricsHangAtStart(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, KVTokens: 1 << 20})
	opts := testOptions()
	// The hang is endless, so the timeout decides only how long the test
	// waits; it must leave a busy machine's fake room to answer the
	// requests before it (a tokenize under -race took over 200 ms).
	opts.requestTimeout = 3 * time.Second
	var scrapes atomic.Int64
	opts.wrapTransport = func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.URL.Path == "/metrics" && scrapes.Add(1) > 1 { // detection's scrape is answered
				<-req.Context().Done()
				return nil, req.Context().Err()
			}
			return next.RoundTrip(req)
		})
	}
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 1, 200*time.Millisecond, 100, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, opts)
	want := "read the server's metrics: GET /metrics: timed out: no answer within 3 s"
	if err == nil || !strings.HasPrefix(err.Error(), want) || len(rep.Results) != 0 {
		t.Errorf("run: %v, %d results; want %q and nothing measured", err, len(rep.Results), want)
	}
}

// TestResumeRetriesFailed: resuming measures Failed cells again unless
// KeepFailed, and refuses another server unless Force.
func TestResumeRetriesFailed(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond})
	plan := decodePlan(engine.K, 1, 200*time.Millisecond, 100, engine.APICompletions)
	failed := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: engine.K, Concurrency: 1}, Status: engine.StatusFailed, Error: "boom"}
	prev := engine.Report{Run: engine.RunInfo{ServedModel: "fake-model"}, Server: engine.ServerInfo{Version: "0.0.0-fake"}, Results: []engine.Result{failed}}

	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Resume: &Resume{Report: prev}}}, testOptions())
	if err != nil || findResult(t, rep, engine.PhaseDecode).Status != engine.StatusValid {
		t.Errorf("resume: %v, %+v; want the Failed cell measured again", err, rep.Results)
	}
	rep, _, err = runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Resume: &Resume{Report: prev, KeepFailed: true}}}, testOptions())
	if err != nil || findResult(t, rep, engine.PhaseDecode).Error != "boom" {
		t.Errorf("resume keeping failed: %v, %+v; want the Failed cell kept", err, rep.Results)
	}

	other := prev
	other.Server.Version, other.Server.MaxModelLen = "0.9.9", 4096
	_, _, err = runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Resume: &Resume{Report: other}}}, testOptions())
	var changed *ServerChangedError
	if !errors.As(err, &changed) || len(changed.Changes) != 2 || !strings.Contains(err.Error(), "engine version 0.9.9 → 0.0.0-fake") {
		t.Errorf("resume on another server: %v, want ServerChangedError naming version and max_model_len", err)
	}
	if _, _, err = runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Resume: &Resume{Report: other, Force: true}}}, testOptions()); err != nil {
		t.Errorf("forced resume: %v", err)
	}
}

// TestThrottleFlag: a Valid cell whose telemetry says the GPU throttled is
// flagged with the verdict.
func TestThrottleFlag(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond})
	tel := throttledTelemetry{}
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 1, 200*time.Millisecond, 100, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Telemetry: tel}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	if !r.HasFlag(engine.FlagThrottled) || !strings.Contains(r.Flags[0].Message, "power cap in 40 % of samples (GPU 0)") {
		t.Errorf("flags %+v, want the throttle verdict", r.Flags)
	}
}

type throttledTelemetry struct{}

func (throttledTelemetry) Summary(from, to time.Time) *engine.Telemetry {
	return &engine.Telemetry{Samples: 10, Throttle: &engine.Throttle{Verdict: engine.ThrottlePowerCap, Samples: 10,
		Reasons: []engine.ThrottleReason{{Reason: engine.ThrottlePowerCap, Share: 0.4, GPUs: []int{0}}}}}
}

// TestNoMetricsChecksNotDone: a server without /metrics is measured, and
// the report says which checks were not done.
func TestNoMetricsChecksNotDone(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond})
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 1, 200*time.Millisecond, 100, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if err != nil || len(rep.Run.Checks) != 1 || rep.Run.Checks[0] != servers.CheckNoVLLMMetrics || findResult(t, rep, engine.PhaseDecode).Server != nil {
		t.Errorf("err %v, checks %q: want the cross-check marked not done", err, rep.Run.Checks)
	}
}

// TestUnderfilledFallback: without /metrics, the short wait at every
// restart of a short request does not flag the cell as underfilled. The
// requests last about 350 ms, so each stream restarts two or three times
// in the window; with a 150 ms first token a busy machine's delays stay
// inside the grace of twice the median TTFT (with 10 ms and 50 ms
// requests they did not, at a load average of 6 on 2 cores; with 40 ms
// first tokens they did not under -race beside seven other tests and a
// build, 2026-12-06).
func TestUnderfilledFallback(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 5 * time.Millisecond, TTFT: 150 * time.Millisecond})
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 4, time.Second, 40, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r := findResult(t, rep, engine.PhaseDecode); r.Status != engine.StatusValid || r.Underfilled || r.HasFlag(engine.FlagUnderfilled) {
		t.Errorf("cell %s, underfilled %v (%.2f active), flags %+v: a restart gap is not idle", r.Status, r.Underfilled, r.AvgActive, r.Flags)
	}
}

// TestStallShorterThanTimeout: a stream that goes quiet inside a window
// shorter than the stall timeout still fails the cell: silent for more
// than half the window, it wasn't measured as planned.
func TestStallShorterThanTimeout(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{StallAt: 10, Interval: 2 * time.Millisecond})
	opts := testOptions()
	opts.firstTokenTimeout, opts.stallTimeout = time.Minute, time.Minute
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 2, 3*time.Second, 500, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	if r.Status != engine.StatusFailed || !strings.HasPrefix(r.Error, "2 of 2 streams stalled (no token for the last ") || r.Partial == nil {
		t.Errorf("cell %s %q, want Failed: 2 of 2 streams stalled (no token for the last … of the window)", r.Status, r.Error)
	}
}
