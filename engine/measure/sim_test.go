package measure

import (
	"net/http/httptest"
	"speedmatrix/engine"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine/sim"
)

func simServer(t *testing.T, o sim.Options) *httptest.Server {
	t.Helper()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	o.Profile = p
	s, err := sim.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv
}

// TestSimEndToEnd runs a small matrix against the simulator (tiny profile,
// 20× real time): prompts exact, every cell Valid, the report filled in.
func TestSimEndToEnd(t *testing.T) {
	srv := simServer(t, sim.Options{TimeScale: 20, APIKey: "k"})
	plan := engine.Plan{PrefillContexts: []int{1 * engine.K, 4 * engine.K}, DecodeContexts: []int{1 * engine.K, 4 * engine.K}, Concurrency: []int{1, 4},
		Duration: 500 * time.Millisecond, MaxOutputTokens: 2048, API: engine.APIChat, LoopDetection: true}
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL, APIKey: "k"}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 6 || !rep.Run.Complete {
		t.Fatalf("%d results, complete %v; want 6, complete", len(rep.Results), rep.Run.Complete)
	}
	for _, r := range rep.Results {
		if r.Status != engine.StatusValid {
			t.Errorf("%s: %s %s", r.Key(), r.Status, r.Error)
			continue
		}
		if r.Phase == engine.PhasePrefill && r.PromptTokens != r.ContextTokens {
			t.Errorf("%s: %d prompt tokens, want exactly %d", r.Key(), r.PromptTokens, r.ContextTokens)
		}
		if r.Phase == engine.PhaseDecode && (r.TotalTokPerSec <= 0 || r.ITLMs <= 0 || r.OutputTokens == 0 || r.Underfilled) {
			t.Errorf("%s: figures %+v", r.Key(), r)
		}
		t.Logf("%s: %.1f tok/s, per request %.1f, TTFT %.1f ms, ITL %.2f ms, active %.2f", r.Key(),
			r.TotalTokPerSec, r.PerRequestTokPerSec, r.TTFTMs, r.ITLMs, r.AvgActive)
	}
	if rep.Engine.Version == "" || rep.Engine.KVCacheTokens == 0 || rep.Run.ServedModel != "tiny" {
		t.Errorf("engine %+v served %q: want version, KV cache from /metrics, served model", rep.Engine, rep.Run.ServedModel)
	}
	// Reached over HTTP with no header, the simulator is still labelled.
	if !rep.Engine.Simulated || rep.Engine.SimProfile != "tiny" || !strings.Contains(rep.Hardware.Note, "simulated") {
		t.Errorf("engine %+v, hardware note %q: want simulated (profile tiny)", rep.Engine, rep.Hardware.Note)
	}
}

// TestSimFaults injects faults: each cell fails with a clear error while
// the run goes on.
func TestSimFaults(t *testing.T) {
	cases := []struct {
		name   string
		faults sim.Faults
		want   string
	}{
		{"errors", sim.Faults{ErrorRate: 1}, "500"},
		{"disconnects", sim.Faults{DisconnectAfterTokens: 20}, "stream"},
		{"stalls", sim.Faults{StallAfterTokens: 20}, "stall"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := simServer(t, sim.Options{TimeScale: 20, Faults: c.faults})
			plan := engine.Plan{DecodeContexts: []int{1 * engine.K}, Concurrency: []int{1, 2},
				Duration: 400 * time.Millisecond, MaxOutputTokens: 256, API: engine.APICompletions}
			opts := testOptions()
			opts.stallTimeout = 100 * time.Millisecond // a quarter of the window: stalls fail requests
			rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, opts)
			if err != nil {
				t.Fatalf("run error %v: faults inside cells must not stop the run", err)
			}
			if len(rep.Results) != 2 {
				t.Fatalf("%d results, want 2", len(rep.Results))
			}
			for _, r := range rep.Results {
				if r.Status != engine.StatusFailed || !strings.Contains(r.Error, c.want) {
					t.Errorf("%s: %s %q, want Failed mentioning %q", r.Key(), r.Status, r.Error, c.want)
				}
			}
		})
	}
}
