package measure

import (
	"speedmatrix/engine"
	"strings"
	"testing"
	"time"
)

// TestBadInputRunErrors: what stops a run before any cell gives one line
// naming what to change.
func TestBadInputRunErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		o      fakeOpts
		target func(url string) Subject
		plan   engine.Plan
		want   string
	}{
		{"wrong API key", fakeOpts{APIKey: "right"}, func(u string) Subject { return Subject{Target: Target{BaseURL: u, APIKey: "wrong"}} },
			decodePlan(engine.K, 1, time.Second, 64, engine.APIChat), "the key it was started with"},
		{"unknown model", fakeOpts{}, func(u string) Subject { return Subject{Target: Target{BaseURL: u, Model: "llama"}} },
			decodePlan(engine.K, 1, time.Second, 64, engine.APIChat), `"fake-model"`},
		{"max output larger than the model", fakeOpts{MaxModelLen: 4096}, func(u string) Subject { return Subject{Target: Target{BaseURL: u}} },
			decodePlan(engine.K, 1, time.Second, 8192, engine.APIChat), "do not fit the model's max_model_len 4096"},
		{"empty plan", fakeOpts{}, func(u string) Subject { return Subject{Target: Target{BaseURL: u}} }, engine.Plan{API: engine.APIChat}, "no context to measure"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeServer(t, c.o)
			rep, _, err := runAll(t, t.Context(), c.plan, c.target(f.URL), testOptions())
			t.Logf("error: %v", err)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), " --") {
				t.Errorf("error = %v, want one line mentioning %s, in the engine's terms (no flag)", err, c.want)
			}
			if len(rep.Results) != 0 {
				t.Errorf("%d results, want none", len(rep.Results))
			}
		})
	}
}

// TestBadInputCellsFail: what goes wrong inside a cell is recorded with the
// server's message, and the other cells go on.
func TestBadInputCellsFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		o    fakeOpts
		want string
	}{
		{"context too long (400)", fakeOpts{MaxModelLen: 3000, ListedMaxLen: 32768}, "maximum context length"},
		{"server error (500)", fakeOpts{FailStatus: 500, FailMessage: "CUDA out of memory", FailFrom: 1}, "CUDA out of memory"},
		{"stream closed mid-way", fakeOpts{DisconnectAt: 10}, ""},
		{"malformed SSE", fakeOpts{Malformed: true}, "not a completion chunk"},
		{"stalled stream", fakeOpts{StallAt: 10}, "stall"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.o.Interval = 2 * time.Millisecond
			f := newFakeServer(t, c.o)
			plan := engine.Plan{PrefillContexts: []int{engine.K}, DecodeContexts: []int{engine.K, 4 * engine.K}, Concurrency: []int{1, 2},
				Duration: 300 * time.Millisecond, MaxOutputTokens: 500, API: engine.APICompletions}
			opts := testOptions()
			if c.o.StallAt > 0 {
				// Under the window, so the stall fails requests. Only
				// here: on a busy machine a healthy stream of the other
				// cases can pause for 100 ms, and its cell would then
				// fail for a stall instead of its own error.
				opts.stallTimeout = 100 * time.Millisecond
			}
			rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, opts)
			if err != nil {
				t.Fatalf("run error %v: a failing cell must not stop the run", err)
			}
			if len(rep.Results) != 5 || !rep.Run.Complete {
				t.Fatalf("%d results (complete %v), want all 5 cells", len(rep.Results), rep.Run.Complete)
			}
			failed := 0
			for _, r := range rep.Results {
				if r.Status == engine.StatusFailed {
					if failed == 0 {
						t.Logf("%s: %s", r.Key(), r.Error)
					}
					failed++
					if r.Error == "" || !strings.Contains(r.Error, c.want) || strings.Contains(r.Error, "\n") {
						t.Errorf("%s: error %q, want one line with %q", r.Key(), r.Error, c.want)
					}
				}
			}
			if failed == 0 {
				t.Errorf("no cell failed: %+v", rep.Results)
			}
		})
	}
}

// TestEventTooLargeInWindow: a stream whose server sends an event over the
// client's limit inside the window fails the cell with what happened, not
// as a stream cut off. The window is long: the failure ends the cell.
func TestEventTooLargeInWindow(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, HugeEventAt: 5})
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 1, time.Minute, 500, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	want := "1 of 1 stream failed: POST /v1/completions: malformed response: the server sent an event over 16 MiB, the most one event may hold"
	if r.Status != engine.StatusFailed || r.Error != want {
		t.Errorf("cell %s %q, want Failed: %s", r.Status, r.Error, want)
	}
}

// TestContextLargerThanModel replaces a context that doesn't fit by the
// largest that does, labelled with its real size.
func TestContextLargerThanModel(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{MaxModelLen: 8192, Interval: 2 * time.Millisecond})
	plan := decodePlan(64*engine.K, 1, 200*time.Millisecond, 1024, engine.APICompletions)
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	if r.ContextTokens != 8192-1024-engine.TemplateReserveTokens || r.ContextLabel != "6.75K" || r.Status != engine.StatusValid {
		t.Errorf("cell %d tokens %q %s, want %d tokens labelled 6.75K, Valid", r.ContextTokens, r.ContextLabel, r.Status, 8192-1024-engine.TemplateReserveTokens)
	}
}

// TestTargetStallTimeout: a stall shorter than the default stall timeout
// but longer than Target.StallTimeout fails the cell instead of passing as
// a slow Valid one.
func TestTargetStallTimeout(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{StallAt: 10, Interval: 2 * time.Millisecond})
	plan := decodePlan(engine.K, 1, 300*time.Millisecond, 500, engine.APICompletions)
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL, StallTimeout: 100 * time.Millisecond}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	if r.Status != engine.StatusFailed || !strings.Contains(r.Error, "stall") {
		t.Errorf("cell %s %q: want Failed with a stall error", r.Status, r.Error)
	}
}
