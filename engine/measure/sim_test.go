package measure

import (
	"net/http/httptest"
	"slices"
	"speedmatrix/engine"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine/sim"
)

// simServer serves the simulator with o, on the tiny profile unless o
// names another, for the rest of t.
func simServer(t *testing.T, o sim.Options) *httptest.Server {
	t.Helper()
	if o.Profile.Name == "" {
		p, err := sim.LookupProfile("tiny")
		if err != nil {
			t.Fatal(err)
		}
		o.Profile = p
	}
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
	t.Parallel()
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
		// The prefix cache: a prefill's prompts start uniquely and miss; a
		// decode cell's requests send the prompt its context's first request
		// planted, and find it.
		switch pc := r.PrefixCache; {
		case pc == nil || pc.QueriedTokens < float64(r.ContextTokens):
			t.Errorf("%s: prefix cache %+v, want the server's counters over the cell's prompts", r.Key(), pc)
		case r.Phase == engine.PhasePrefill && (pc.ServerHitRate > engine.PrefixCacheHitShare || slices.ContainsFunc(r.Flags, isPrefixHit)):
			t.Errorf("%s: a prefill found %.1f %% of its prompts in the cache (flags %v), want them cold", r.Key(), 100*pc.ServerHitRate, r.Flags)
		case r.Phase == engine.PhaseDecode && pc.ServerHitRate < 0.4:
			t.Errorf("%s: a decode cell found %.1f %% of its prompts in the cache, want most", r.Key(), 100*pc.ServerHitRate)
		}
		t.Logf("%s: %.1f tok/s, per request %.1f, TTFT %.1f ms, ITL %.2f ms, active %.2f", r.Key(),
			r.TotalTokPerSec, r.PerRequestTokPerSec, r.TTFTMs, r.ITLMs, r.AvgActive)
	}
	// The chat template's tokens, counted once: the server's usage of a
	// short chat request beside /tokenize's count of its text.
	if rep.Run.ChatTemplateTokens <= 0 || rep.Run.ChatTemplateTokens > 64 {
		t.Errorf("chat template of %d tokens, want the few the simulator's template adds", rep.Run.ChatTemplateTokens)
	}
	if rep.Server.Version == "" || rep.Server.KVCacheTokens == 0 || rep.Run.ServedModel != "tiny" {
		t.Errorf("engine %+v served %q: want version, KV cache from /metrics, served model", rep.Server, rep.Run.ServedModel)
	}
	// Reached over HTTP with no header, the simulator is still labelled.
	if !rep.Server.Simulated || rep.Server.SimProfile != "tiny" || !strings.Contains(rep.Hardware.Note, "simulated") {
		t.Errorf("engine %+v, hardware note %q: want simulated (profile tiny)", rep.Server, rep.Hardware.Note)
	}
}

func isPrefixHit(f engine.Flag) bool { return f.Kind == engine.FlagPrefixCacheHit }

// TestSimAtAnEndpointIsItsRig: a run that finds the simulator at an
// endpoint reports the rig of the profile it serves as its Hardware, marked
// the simulator's, not the measuring machine it was given (whose CPU is
// not what served the model); a profile it does not know leaves no
// hardware of the machine either; without SimulatorFor (the caller's DCGM
// exporters describe the server) the caller's hardware stands, noted.
func TestSimAtAnEndpointIsItsRig(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 20})
	plan := engine.Plan{PrefillContexts: []int{1 * engine.K}, Duration: 200 * time.Millisecond, MaxOutputTokens: 64, API: engine.APIChat}
	here := engine.HardwareInfo{CPU: "AMD EPYC 7B13", CPUCores: 2, Whose: engine.HardwareOfServer}
	rig := engine.HardwareInfo{Type: "Discrete GPU (simulated)", GPUs: []engine.GPUInfo{{Name: "Simulated GPU", VRAMBytes: 8 << 30}}, Note: "simulated rig"}
	var asked string
	target := Subject{Target: Target{BaseURL: srv.URL}}
	target.Header.Hardware = here
	target.SimulatorFor = func(profile string) (engine.Report, bool) {
		asked = profile
		return engine.Report{Hardware: rig}, true
	}
	rep, _, err := runAll(t, t.Context(), plan, target, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	h := rep.Hardware
	if asked != "tiny" || h.Whose != engine.HardwareOfSimulator || len(h.GPUs) != 1 || h.CPU != "" || !strings.Contains(h.Note, "Speed Matrix simulator (profile tiny)") {
		t.Errorf("asked for %q; Hardware %+v: want the tiny rig, the simulator's, without this machine's CPU", asked, h)
	}

	// A stand-in launched here is known as simulated before it answers,
	// without its profile; its report then names the profile, and keeps no
	// roofline of the measuring machine's.
	standIn := target
	standIn.Header.Server = engine.ServerInfo{Name: "vllm", Simulated: true}
	standIn.Header.Roofline = &engine.RooflineFacts{Unavailable: "roofline unavailable: no GPU detected on this machine"}
	rep, _, err = runAll(t, t.Context(), plan, standIn, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Server; e.SimProfile != "tiny" || e.SimulatedLabel() != "simulated (profile tiny)" || rep.Hardware.Whose != engine.HardwareOfSimulator || rep.Roofline != nil {
		t.Errorf("a launched stand-in: engine %+v, hardware %+v, roofline %+v: want the tiny rig's, no roofline", e, rep.Hardware, rep.Roofline)
	}

	target.SimulatorFor = func(string) (engine.Report, bool) { return engine.Report{}, false }
	rep, _, err = runAll(t, t.Context(), plan, target, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if h := rep.Hardware; h.Whose != engine.HardwareOfSimulator || h.CPU != "" || len(h.GPUs) != 0 {
		t.Errorf("a profile unknown here: Hardware %+v, want the simulator's, empty", h)
	}

	target.SimulatorFor = nil
	rep, _, err = runAll(t, t.Context(), plan, target, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if h := rep.Hardware; h.Whose != engine.HardwareOfServer || h.CPU != here.CPU || !strings.Contains(h.Note, "simulator (profile tiny)") {
		t.Errorf("without SimulatorFor: Hardware %+v, want the caller's, with a note", h)
	}
}

// TestSimFaults injects faults: each cell fails with a clear error while
// the run goes on.
func TestSimFaults(t *testing.T) {
	t.Parallel()
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
