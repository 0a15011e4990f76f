package measure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"speedmatrix/engine"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"speedmatrix/engine/sim"
)

// runLoadAll runs a load test to the end and returns the final report,
// its error and every event.
func runLoadAll(t *testing.T, ctx context.Context, plan engine.LoadPlan, target Subject, opts runOptions) (engine.Report, []engine.Event, error) {
	t.Helper()
	var events []engine.Event
	for ev := range runLoadWith(ctx, plan, target, opts) {
		events = append(events, ev)
	}
	last := events[len(events)-1]
	if last.Kind != engine.EventDone || last.Report == nil || last.Report.Load == nil {
		t.Fatalf("last event is %v, want EventDone with a load report", last.Kind)
	}
	return *last.Report, events, last.Err
}

func loadPlan(api engine.API) engine.LoadPlan {
	return engine.LoadPlan{RatesRPS: []float64{20, 40}, Arrivals: engine.ArrivalsPoisson, Requests: 12,
		InputTokens: engine.TokenRange{Min: 200, Max: 400}, OutputTokens: engine.TokenRange{Min: 16, Max: 16}, Seed: 7, API: api}
}

// TestLoadSim runs two rates against the simulator with both APIs: every
// request completes with exactly its drawn prompt and its asked output,
// each rate is reported as it ends and the report holds them all.
func TestLoadSim(t *testing.T) {
	t.Parallel()
	for _, api := range []engine.API{engine.APIChat, engine.APICompletions} {
		t.Run(string(api), func(t *testing.T) {
			srv := simServer(t, sim.Options{TimeScale: 10})
			plan := loadPlan(api)
			rep, events, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			loads, progress := 0, 0
			for _, ev := range events {
				if ev.Kind == engine.EventProgress && ev.Progress.Load != nil && ev.Progress.Load.Requests == plan.Requests {
					progress++
				}
				if ev.Kind == engine.EventLoad {
					loads++
					if ev.Report == nil || ev.Report.Load == nil || len(ev.Report.Load.Results) != loads {
						t.Errorf("EventLoad %d: report snapshot %+v, want the rates so far", loads, ev.Report)
					}
				}
			}
			if loads != 2 || len(rep.Load.Results) != 2 || !rep.Run.Complete || !rep.Server.Simulated {
				t.Fatalf("%d EventLoad, %d results, complete %v, simulated %v; want 2, 2, complete, simulated", loads, len(rep.Load.Results), rep.Run.Complete, rep.Server.Simulated)
			}
			if (api == engine.APIChat) != (rep.Run.ChatTemplateTokens > 0) {
				t.Errorf("%s: chat template of %d tokens, want some for chat alone", api, rep.Run.ChatTemplateTokens)
			}
			if !slices.Contains(rep.Run.Checks, CheckServerMetricsLoad) {
				t.Errorf("checks %q, want the load test's", rep.Run.Checks)
			}
			if progress == 0 {
				t.Error("no progress event with the rate's requests")
			}
			drawn := 0
			for _, q := range loadSchedule(plan.Arrivals, 20, plan.Requests, plan.InputTokens, plan.OutputTokens, plan.Seed, 0, 0) {
				drawn += q.InputTokens
			}
			for _, r := range rep.Load.Results {
				if r.InputTokens != drawn {
					t.Errorf("rate %g: the server counted %d prompt tokens, want exactly the %d drawn", r.RateRPS, r.InputTokens, drawn)
				}
				// Each request's prompt starts uniquely: the server looks all
				// of it up in its prefix cache and finds next to nothing.
				if pc := r.PrefixCache; pc == nil || pc.QueriedTokens < float64(drawn) || pc.ServerHitRate > engine.PrefixCacheHitShare {
					t.Errorf("rate %g: prefix cache %+v, want the %d prompt tokens looked up and missed", r.RateRPS, pc, drawn)
				}
				if r.Status != engine.StatusValid || r.Completed != plan.Requests || r.Failed != 0 {
					t.Errorf("rate %g: %s %q, %d completed, %d failed", r.RateRPS, r.Status, r.Error, r.Completed, r.Failed)
				}
				if r.OutputTokens != 16*plan.Requests {
					t.Errorf("rate %g: %d output tokens, want %d", r.RateRPS, r.OutputTokens, 16*plan.Requests)
				}
				for _, f := range r.Flags {
					if f.Kind == engine.FlagPromptSize {
						t.Errorf("rate %g: %s", r.RateRPS, f.Message)
					}
				}
				// A busy client reads a request's tokens in fewer, larger
				// chunks (most of them in one, under -race beside other
				// tests): some requests then show no time between tokens,
				// but not every one.
				if r.TTFTMs.N != plan.Requests || r.E2EMs.P50 < r.TTFTMs.P50 || r.TPOTMs.P99 <= 0 || r.ITLMs.N == 0 || r.ITLMs.N > 15*plan.Requests || r.E2EMs.Mean <= r.TTFTMs.Mean {
					t.Errorf("rate %g: TTFT %+v E2E %+v TPOT %+v ITL %+v", r.RateRPS, r.TTFTMs, r.E2EMs, r.TPOTMs, r.ITLMs)
				}
				if r.GoodputRPS != r.RequestThroughputRPS || r.DurationS <= 0 {
					t.Errorf("rate %g: goodput %g with the SLO off, want the throughput %g", r.RateRPS, r.GoodputRPS, r.RequestThroughputRPS)
				}
				t.Logf("rate %g: %.2f req/s, TTFT p50 %.1f ms, TPOT p50 %.2f ms, E2E p99 %.1f ms, behind %.1f ms, in %d tokens, flags %v",
					r.RateRPS, r.RequestThroughputRPS, r.TTFTMs.P50, r.TPOTMs.P50, r.E2EMs.P99, r.BehindMs, r.InputTokens, r.Flags)
			}
		})
	}
}

// TestLoadBadPlan: a plan that cannot run ends before any request with
// the plan's problems.
func TestLoadBadPlan(t *testing.T) {
	t.Parallel()
	plan := loadPlan(engine.APIChat)
	plan.RatesRPS = []float64{0}
	_, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: "http://127.0.0.1:1"}}, testOptions())
	var pe *engine.PlanError
	if !errors.As(err, &pe) || pe.Problems[0].Field != engine.FieldRates {
		t.Fatalf("err %v, want a PlanError about the rates", err)
	}
}

// TestLoadNoCoordinatedOmission: under a cap of one request at a time, a
// server that takes 100 ms per request holds every later request up; its
// latency counts from its scheduled arrival (10 ms apart), so it grows
// with its place in the queue, where counted from its send it would stay
// at the server's 100 ms. The bounds are lower bounds a busy machine only
// raises.
func TestLoadNoCoordinatedOmission(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{TTFT: 100 * time.Millisecond, Interval: 10 * time.Millisecond, KVTokens: 100000})
	plan := engine.LoadPlan{RatesRPS: []float64{100}, Arrivals: engine.ArrivalsConstant, Requests: 5, MaxConcurrency: 1,
		InputTokens: engine.TokenRange{Min: 64, Max: 64}, OutputTokens: engine.TokenRange{Min: 2, Max: 2}, API: engine.APICompletions}
	rep, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Load.Results[0]
	if r.Completed != 5 || r.MaxInFlight != 1 {
		t.Fatalf("%d completed, %d in flight at most; want 5 and 1", r.Completed, r.MaxInFlight)
	}
	// Request k (0-based) is sent after k requests of ≥ 110 ms each and
	// was due at k × 10 ms: its TTFT from the schedule is ≥ k×100 + 100 ms.
	if r.TTFTMs.P50 < 300 || r.TTFTMs.P99 < 430 || r.E2EMs.P99 < 440 {
		t.Errorf("TTFT %+v, E2E %+v: want the queue's wait counted (p50 ≥ 300 ms, p99 ≥ 430 ms)", r.TTFTMs, r.E2EMs)
	}
	if r.DurationS < 0.5 {
		t.Errorf("duration %.3f s, want at least the 5 × 110 ms the requests took one after another", r.DurationS)
	}
}

// TestLoadCapAndBurst: a burst of 8 under a cap of 2 is one row at rate 0
// that never has more than 2 requests open, at the server too.
func TestLoadCapAndBurst(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{TTFT: 20 * time.Millisecond, Interval: 5 * time.Millisecond})
	plan := engine.LoadPlan{Burst: 8, MaxConcurrency: 2, InputTokens: engine.TokenRange{Min: 64, Max: 64},
		OutputTokens: engine.TokenRange{Min: 4, Max: 4}, API: engine.APIChat}
	rep, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Load.Results) != 1 {
		t.Fatalf("%d rows, want 1", len(rep.Load.Results))
	}
	r := rep.Load.Results[0]
	if r.RateRPS != 0 || r.Arrivals != engine.ArrivalsBurst || r.Requests != 8 || r.Completed != 8 || r.MaxInFlight < 1 || r.MaxInFlight > 2 {
		t.Errorf("burst row %+v: want rate 0, burst, 8 of 8 completed, at most 2 in flight", r)
	}
	log := f.requestsLog()
	for _, q := range log[len(log)-8:] { // after the sizing probes
		if q.PromptTokens != 64 {
			t.Errorf("the server got a prompt of %d tokens, want exactly 64 (%+v)", q.PromptTokens, rep.Load.Results[0])
		}
	}
}

// TestLoadSweep measures the limit first, then rates spread up to it.
func TestLoadSweep(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 20})
	plan := loadPlan(engine.APICompletions)
	plan.RatesRPS, plan.Sweep, plan.SweepRates, plan.Requests = nil, true, 3, 8
	rep, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	lim := rep.Load.LimitRPS
	if lim <= 0 || len(rep.Load.Results) != 3 || !rep.Run.Complete {
		t.Fatalf("limit %g, %d rates, complete %v: want a limit and 3 rates", lim, len(rep.Load.Results), rep.Run.Complete)
	}
	for i, r := range rep.Load.Results {
		if want := lim * float64(i+1) / 3; math.Abs(r.RateRPS-want) > 1e-9*lim || r.RateRPS > lim || r.Status != engine.StatusValid {
			t.Errorf("rate %d: %g (%s), want %g, at most the limit %g", i, r.RateRPS, r.Status, want, lim)
		}
	}
}

// TestLoadServerDies: a server that goes away in the middle of the second
// rate (at its third request) ends the test as stopped, with the first
// rate kept.
func TestLoadServerDies(t *testing.T) {
	t.Parallel()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sim.Options{Profile: p, TimeScale: 20})
	if err != nil {
		t.Fatal(err)
	}
	plan := loadPlan(engine.APIChat)
	plan.InputTokens = engine.TokenRange{Min: 256, Max: 256}
	var srv *httptest.Server
	var generated atomic.Int64
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" && generated.Add(1) == int64(plan.Requests)+3 {
			srv.Listener.Close()
			go srv.CloseClientConnections()
			return
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { srv.Close(); s.Close() })
	rep, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if !errors.Is(err, ErrServerStopped) {
		t.Fatalf("err %v, want ErrServerStopped", err)
	}
	rs := rep.Load.Results
	if len(rs) != 2 || rs[0].Status != engine.StatusValid || rs[1].Status != engine.StatusFailed || rep.Run.Complete || rep.Run.Incomplete == "" {
		t.Errorf("results %+v, complete %v, incomplete %q: want the first rate kept, the second failed, the run incomplete", rs, rep.Run.Complete, rep.Run.Incomplete)
	}
}

// TestLoadCancel: cancelling ends the test as interrupted, keeping what it
// measured.
func TestLoadCancel(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 20})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var err error
	var rep engine.Report
	for ev := range runLoadWith(ctx, loadPlan(engine.APIChat), Subject{Target: Target{BaseURL: srv.URL}}, testOptions()) {
		switch ev.Kind {
		case engine.EventLoad:
			cancel()
		case engine.EventDone:
			rep, err = *ev.Report, ev.Err
		}
	}
	if !errors.Is(err, ErrInterrupted) || len(rep.Load.Results) == 0 || rep.Load.Results[0].Status != engine.StatusValid {
		t.Fatalf("err %v, results %+v: want ErrInterrupted with the first rate kept", err, rep.Load.Results)
	}
}

// TestLoadDataset sends a dataset's prompts.
func TestLoadDataset(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 20})
	path := filepath.Join(t.TempDir(), "prompts.jsonl")
	data := `{"prompt": "Tell me about the sea."}
{"conversations": [{"from": "system", "value": "Be brief."}, {"from": "human", "value": "Why is the sky blue?"}]}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := loadPlan(engine.APIChat)
	plan.Dataset, plan.InputTokens, plan.RatesRPS, plan.Requests = path, engine.TokenRange{}, []float64{50}, 4
	rep, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Load.Results[0]; r.Completed != 4 || r.InputTokens <= 0 {
		t.Errorf("%+v: want 4 completed with their prompts counted", r)
	}
}

// TestLoadServerIgnoresMaxTokens: a server that streams on past max_tokens
// is cut off, its request failed, so that it cannot fill memory.
func TestLoadServerIgnoresMaxTokens(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{TTFT: time.Millisecond, Interval: time.Millisecond, ExtraTokens: 1000})
	plan := engine.LoadPlan{Burst: 2, InputTokens: engine.TokenRange{Min: 64, Max: 64}, OutputTokens: engine.TokenRange{Min: 8, Max: 8}, API: engine.APICompletions}
	rep, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Load.Results[0]
	if r.Failed != 2 || r.Status != engine.StatusFailed || !strings.Contains(r.Error, "the server sent more than the 8 tokens asked for") {
		t.Errorf("%+v: want both requests failed for the tokens past max_tokens", r)
	}
}

// TestLoadDatasetTooLong: a dataset prompt that does not fit the model with
// its output is refused before any request, naming the prompt.
func TestLoadDatasetTooLong(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 20})
	path := filepath.Join(t.TempDir(), "long.jsonl")
	long := strings.Repeat("The river ran past the old stone mill. ", 2000) // ~16K tokens, over tiny's 8K
	if err := os.WriteFile(path, []byte(`{"prompt": "short"}`+"\n"+`{"prompt": "`+long+`"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := loadPlan(engine.APIChat)
	plan.Dataset, plan.InputTokens = path, engine.TokenRange{}
	rep, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	var pe *engine.PlanError
	if !errors.As(err, &pe) || pe.Problems[0].Field != engine.FieldDataset || !strings.Contains(err.Error(), "prompt 2 of long.jsonl has") {
		t.Fatalf("err %v, want a dataset problem naming prompt 2", err)
	}
	if len(rep.Load.Results) != 0 {
		t.Errorf("%d rates measured, want none", len(rep.Load.Results))
	}
}

// TestLoadOpenCap: a rate with no cap holds no more requests open than
// fit in the client's memory (here 2); the rest wait for a slot, and the
// rate says so.
func TestLoadOpenCap(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{TTFT: 20 * time.Millisecond, Interval: 5 * time.Millisecond})
	plan := engine.LoadPlan{RatesRPS: []float64{1000}, Arrivals: engine.ArrivalsConstant, Requests: 8, InputTokens: engine.TokenRange{Min: 64, Max: 64},
		OutputTokens: engine.TokenRange{Min: 4, Max: 4}, API: engine.APIChat}
	opts := testOptions()
	opts.maxOpen = 2
	rep, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Load.Results[0]
	held := slices.ContainsFunc(r.Flags, func(f engine.Flag) bool {
		return f.Kind == engine.FlagClientBehind && strings.Contains(f.Message, "the client held 2 requests open at once, the most that fit in the memory")
	})
	if r.Completed != 8 || r.MaxInFlight != 2 || !held {
		t.Errorf("%d completed, %d at most in flight, flags %+v: want 8, 2, and the client's cap flagged", r.Completed, r.MaxInFlight, r.Flags)
	}
}

// TestLoadDatasetBurstTooBig: a burst that fits short prompts but not the
// dataset's longest is refused once the dataset is read, with the memory
// it would take and the most that fit.
func TestLoadDatasetBurstTooBig(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 20})
	path := filepath.Join(t.TempDir(), "long.jsonl")
	text := strings.Repeat("The river ran past the old stone mill.", 513) // ~4K tokens, inside tiny's 8K
	if err := os.WriteFile(path, []byte(`{"prompt": "`+text+`"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := engine.LoadPlan{Burst: 10_000, Dataset: path, OutputTokens: engine.TokenRange{Min: 4, Max: 4}, API: engine.APIChat}
	if err := engine.ValidateLoadPlan(plan, engine.Limits{}); err != nil {
		t.Fatalf("the plan alone: %v, want it to pass before the dataset is read", err)
	}
	rep, _, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	var pe *engine.PlanError
	if !errors.As(err, &pe) || pe.Problems[0].Field != engine.FieldBurst || !strings.Contains(err.Error(), fmt.Sprintf("use at most %d", engine.MaxOpenFor(engine.DatasetPromptTokens(len(text))))) {
		t.Fatalf("err %v, want the burst refused for the dataset's prompts", err)
	}
	if len(rep.Load.Results) != 0 {
		t.Errorf("%d rates measured, want none", len(rep.Load.Results))
	}
}

// TestLoadShortPromptsReason: prompts drawn shorter than the shortest a
// test sends are flagged with the true reason: on a server with /tokenize
// (it blamed a missing /tokenize), their own start and the chat template,
// said once as a warning before; without /tokenize, its absence.
func TestLoadShortPromptsReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		engine, want string
		warned       bool
	}{
		{sim.ModeVLLM, "the shortest prompt this test sends is ", true},
		{sim.ModeSGLang, "the server has no /tokenize to size them exactly", false},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			srv := simServer(t, sim.Options{TimeScale: 20, Mode: tc.engine})
			plan := engine.LoadPlan{RatesRPS: []float64{50, 100}, Arrivals: engine.ArrivalsConstant, Requests: 4, InputTokens: engine.TokenRange{Min: 32, Max: 32},
				OutputTokens: engine.TokenRange{Min: 4, Max: 4}, API: engine.APIChat}
			rep, events, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Load.Results {
				i := slices.IndexFunc(r.Flags, func(f engine.Flag) bool { return f.Kind == engine.FlagPromptSize })
				if i < 0 || !strings.Contains(r.Flags[i].Message, tc.want) {
					t.Errorf("rate %g: flags %+v, want %s saying %q", r.RateRPS, r.Flags, engine.FlagPromptSize, tc.want)
				}
			}
			warned := 0
			for _, ev := range events {
				if ev.Kind == engine.EventLog && strings.HasPrefix(ev.Log, "warning: prompts shorter than ") {
					warned++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tc.warned]; warned != want {
				t.Errorf("the short prompts were warned of %d times, want %d", warned, want)
			}
		})
	}
}
