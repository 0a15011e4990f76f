package measure

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"speedmatrix/engine"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine/servers"
	"speedmatrix/engine/sim"
)

// sglangSim serves the tiny profile (8K context, 98,304 KV tokens, no
// /tokenize) as SGLang, at 5× real time (faster, sixteen streams take a
// busy machine's CPU and stall); wrap, when set, stands in front
// of it to change what some endpoints answer.
func sglangSim(t *testing.T, o sim.Options, wrap func(http.Handler) http.Handler) (*httptest.Server, *sim.Server) {
	t.Helper()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	o.Profile, o.Mode = p, sim.ModeSGLang
	if o.TimeScale == 0 {
		o.TimeScale = 5
	}
	s, err := sim.New(o)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = s
	if wrap != nil {
		h = wrap(s)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv, s
}

// sglangPlan measures 1K and 6K at 1, 4 and 16 requests with 1,024 output
// tokens: 16 × (6,144 + 1,024) tokens exceed the 98,304 of KV cache.
func sglangPlan() engine.Plan {
	return engine.Plan{PrefillContexts: []int{1 * engine.K, 6 * engine.K}, DecodeContexts: []int{1 * engine.K, 6 * engine.K}, Concurrency: []int{1, 4, 16},
		Duration: 400 * time.Millisecond, MaxOutputTokens: 1024, API: engine.APIChat}
}

// TestSGLangSimRun runs against the simulator in SGLang mode: the Engine
// section names sglang with its version, Over capacity comes from its
// max_total_num_tokens, the cross-check reads sglang:* metrics, every
// request still streaming at a window's end is aborted once by its id,
// and none runs on into the next cell. Prompts are sized without
// /tokenize on an 8K server, each within 1 % of its context.
func TestSGLangSimRun(t *testing.T) {
	t.Parallel()
	srv, s := sglangSim(t, sim.Options{}, nil)
	// No stream may time out on a busy machine: a stream we give up on is
	// aborted as it fails, not at the window's end, which this test counts.
	opts := testOptions()
	opts.firstTokenTimeout, opts.stallTimeout = time.Minute, time.Minute
	rep, _, err := runAll(t, t.Context(), sglangPlan(), Subject{Target: Target{BaseURL: srv.URL}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Server; e.Name != "sglang" || e.Version != sim.SGLangVersion || e.KVCacheTokens != 98304 || e.MaxNumSeqs != 64 || !e.Simulated {
		t.Errorf("engine %+v: want sglang %s, KV cache 98,304 tokens, 64 requests, simulated", e, sim.SGLangVersion)
	}
	aborted, checked := 0, 0
	for _, r := range rep.Results {
		over := r.Phase == engine.PhaseDecode && r.ContextTokens == 6*engine.K && r.Concurrency == 16
		switch {
		case over && r.Status != engine.StatusOverCapacity:
			t.Errorf("%s: %s, want Over capacity (16 × 7,168 tokens > 98,304)", r.Key(), r.Status)
		case over:
			continue
		case r.Status != engine.StatusValid:
			t.Errorf("%s: %s %s", r.Key(), r.Status, r.Error)
			continue
		}
		if d := float64(r.PromptTokens-r.ContextTokens) / float64(r.ContextTokens); d > 0.01 || d < -0.01 {
			t.Errorf("%s: %d prompt tokens, more than 1 %% off %d", r.Key(), r.PromptTokens, r.ContextTokens)
		}
		// SGLang keeps no prefix-cache counters: its hit-rate gauge,
		// averaged over the cell, stands in.
		if pc := r.PrefixCache; pc == nil || !strings.HasPrefix(pc.Source, "sglang:cache_hit_rate") || pc.QueriedTokens != 0 || pc.ServerHitRate > 1 {
			t.Errorf("%s: prefix cache %+v, want sglang:cache_hit_rate's average", r.Key(), pc)
		}
		if r.Phase == engine.PhasePrefill {
			continue
		}
		// The counter moves every step; on a starved machine scrapes can
		// miss steps (the check then falls back on sglang:gen_throughput)
		// or a window (no cross-check).
		if c := r.Server; c != nil {
			checked++
			if !strings.HasPrefix(c.TokSource, "sglang:") || c.TokPerSec <= 0 {
				t.Errorf("%s: cross-check %+v, want tok/s from sglang:generation_tokens_total", r.Key(), c)
			}
		}
		if r.Aborted < 1 || r.Aborted > r.Concurrency {
			t.Errorf("%s: %d aborted, want 1 to %d (the streams open at the window's end)", r.Key(), r.Aborted, r.Concurrency)
		}
		for _, f := range r.Flags {
			if f.Kind == engine.FlagNotDrained || f.Kind == engine.FlagAbortRejected {
				t.Errorf("%s: flagged %s", r.Key(), f.Message)
			}
		}
		aborted += r.Aborted
	}
	if checked == 0 {
		t.Error("no decode cell was cross-checked with the server's sglang:* metrics")
	}
	st := s.Aborts()
	// An abort may find its request just finished (the simulator runs 20×
	// faster than real time): it still named a request the server served.
	if st.Received < aborted || st.Live+st.Ended+st.Early != st.Received || st.Live == 0 || st.Repeated != 0 || st.Unknown != 0 || st.AbortAll != 0 {
		t.Errorf("the server saw %+v; want %d aborts (one per request open at a window's end), none repeated, unknown or of all", st, aborted)
	}
	if st.RanOn != 0 {
		t.Errorf("%d requests arrived while an earlier cell's request was still generating (aborts %+v)", st.RanOn, st)
	}
	if !slices.Contains(rep.Run.Checks, CheckServerMetrics) {
		t.Errorf("checks %q: want the server checks done", rep.Run.Checks)
	}
	if !slices.ContainsFunc(rep.Run.Notes, func(n string) bool { return strings.Contains(n, "aborted by id") }) {
		t.Errorf("notes %q: want the aborts summed up", rep.Run.Notes)
	}
}

// TestSGLangNoMetrics: an SGLang server started without --enable-metrics
// is measured, and the Checks line says the server checks were not done
// and how to have them.
func TestSGLangNoMetrics(t *testing.T) {
	t.Parallel()
	srv, _ := sglangSim(t, sim.Options{NoMetrics: true}, nil)
	plan := decodePlan(1*engine.K, 2, 300*time.Millisecond, 512, engine.APIChat)
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Server.Name != "sglang" {
		t.Errorf("engine %q, want sglang (from its server info)", rep.Server.Name)
	}
	if !slices.Contains(rep.Run.Checks, servers.CheckNoSGLangMetrics) || !strings.Contains(servers.CheckNoSGLangMetrics, "--enable-metrics") {
		t.Errorf("checks %q: want %q", rep.Run.Checks, servers.CheckNoSGLangMetrics)
	}
	if !slices.ContainsFunc(rep.Run.Notes, func(n string) bool { return strings.Contains(n, "without /metrics no drain barrier") }) {
		t.Errorf("notes %q: want the aborts noted without a drain barrier", rep.Run.Notes)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	if r.Status != engine.StatusValid || r.Server != nil || r.Aborted == 0 {
		t.Errorf("decode cell %s, cross-check %+v, %d aborted: want Valid, no cross-check, aborts", r.Status, r.Server, r.Aborted)
	}
}

// TestSGLangNoKVBudget: a server info without max_total_num_tokens leaves
// the capacity check off, and the Run section says so in one line.
func TestSGLangNoKVBudget(t *testing.T) {
	t.Parallel()
	srv, _ := sglangSim(t, sim.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/get_server_info" {
				writeTestJSON(w, map[string]any{"model_path": "speedmatrix/tiny-sim", "context_length": 8192, "version": "0.4.3", "dp_size": 1})
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	plan := decodePlan(6*engine.K, 16, 300*time.Millisecond, 1024, engine.APIChat)
	plan.Concurrency = []int{1}
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Run.Notes, servers.NoteSGLangNoKVBudget) || strings.Contains(servers.NoteSGLangNoKVBudget, "\n") {
		t.Errorf("notes %q: want %q", rep.Run.Notes, servers.NoteSGLangNoKVBudget)
	}
	if rep.Server.KVCacheTokens != 0 || rep.Server.Version != "0.4.3" {
		t.Errorf("engine %+v: want no KV cache size, version 0.4.3", rep.Server)
	}
	// With a KV budget given, the note goes.
	plan.KVBudgetTokens = 50000
	rep, _, err = runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil || slices.Contains(rep.Run.Notes, servers.NoteSGLangNoKVBudget) {
		t.Errorf("with a KV budget: notes %q, err %v; want no note", rep.Run.Notes, err)
	}
}

// TestSGLangAbortRejected: a server that refuses the aborts gets each
// cell flagged in one line, and the run goes on to the end. Each request
// runs about three times the window, so every window ends with requests
// to abort, however late a busy client restarts its streams (with
// requests a little shorter than the window, a starved client under
// -race once had none open at a window's end).
func TestSGLangAbortRejected(t *testing.T) {
	t.Parallel()
	srv, _ := sglangSim(t, sim.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/abort_request" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"object":"error","message":"abort is disabled on this server","type":"BadRequestError","code":400}`)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	plan := engine.Plan{DecodeContexts: []int{1 * engine.K}, Concurrency: []int{1, 2}, Duration: 300 * time.Millisecond, MaxOutputTokens: 1024, API: engine.APIChat}
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil || !rep.Run.Complete {
		t.Fatalf("err %v, complete %v: want the run to go on", err, rep.Run.Complete)
	}
	for _, r := range rep.Results {
		i := slices.IndexFunc(r.Flags, func(f engine.Flag) bool { return f.Kind == engine.FlagAbortRejected })
		if r.Status != engine.StatusValid || i < 0 || r.Aborted != 0 {
			t.Errorf("%s: %s, flags %+v, %d aborted: want Valid, flagged abort_rejected", r.Key(), r.Status, r.Flags, r.Aborted)
			continue
		}
		if m := r.Flags[i].Message; strings.Contains(m, "\n") || !strings.Contains(m, "HTTP 400: abort is disabled") {
			t.Errorf("%s: flag %q, want one line quoting the server", r.Key(), m)
		}
	}
}

// TestSGLangThroughputFallback: when sglang:generation_tokens_total moves
// only as requests end, the cross-check reads sglang:gen_throughput.
func TestSGLangThroughputFallback(t *testing.T) {
	t.Parallel()
	srv, _ := sglangSim(t, sim.Options{Faults: sim.Faults{GenTokensAtFinish: true}}, nil)
	plan := decodePlan(1*engine.K, 4, 500*time.Millisecond, 100000, engine.APIChat)
	plan.MaxOutputTokens = 4096
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	if r.Server == nil || r.Server.TokSource != "sglang:gen_throughput" || r.Server.TokPerSec <= 0 {
		t.Errorf("cross-check %+v: want tok/s from sglang:gen_throughput", r.Server)
	}
}

// TestCalibrationFitsSmallContext: on a 4K server without /tokenize the
// calibration probes fit max_model_len (the simulator answers 400 to a
// longer prompt) and every prompt lands within 1 % of its size.
func TestCalibrationFitsSmallContext(t *testing.T) {
	t.Parallel()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	p.MaxModelLen = 4096
	s, err := sim.New(sim.Options{Profile: p, Mode: sim.ModeSGLang, TimeScale: 20})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	plan := engine.Plan{PrefillContexts: []int{512, 2 * engine.K, 3 * engine.K}, Concurrency: []int{1}, Duration: time.Second, MaxOutputTokens: 256, API: engine.APICompletions}
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if d := float64(r.PromptTokens-r.ContextTokens) / float64(r.ContextTokens); r.Status != engine.StatusValid || d > 0.01 || d < -0.01 {
			t.Errorf("%s: %s, %d prompt tokens: want Valid within 1 %%", r.Key(), r.Status, r.PromptTokens)
		}
	}
}

func writeTestJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
