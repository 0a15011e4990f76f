package measure

import (
	"bufio"
	"math"
	"net/http"
	"speedmatrix/engine"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine/sim"
)

// TestSummarizePrefill: a prefill cell's figures from its repeats, with
// fixed TTFTs: the median TTFT makes prompt tok/s, the spread is (max −
// min) ÷ median of the repeats' rates, and one request has none.
func TestSummarizePrefill(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                        string
		ttftsMs                     []float64
		wantTTFT, wantTPS, wantSprd float64
	}{
		// 8,192 tokens in 400, 410, 500 ms: 20,480, 19,980.5, 16,384 tok/s.
		{"three", []float64{410, 500, 400}, 410, 8192 / 0.41, (20480 - 16384) / (8192 / 0.41) * 100},
		// Even: the median TTFT is 450 ms; the rates' median is their mean.
		{"two", []float64{400, 500}, 450, 8192 / 0.45, (20480.0 - 16384) / ((20480.0 + 16384) / 2) * 100},
		{"one", []float64{400}, 400, 20480, 0},
	} {
		res := engine.Result{PromptTokens: 8192}
		for _, ms := range tc.ttftsMs {
			res.Requests = append(res.Requests, engine.RequestSample{TTFTMs: ms, TokensPerSec: 8192 / (ms / 1000)})
		}
		summarizePrefill(&res)
		near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*max(1, math.Abs(want)) }
		if res.PrefillRepeats != len(tc.ttftsMs) || res.TTFTPct.N != len(tc.ttftsMs) || !near(res.TTFTMs, tc.wantTTFT) ||
			!near(res.TotalTokPerSec, tc.wantTPS) || !near(res.PrefillSpreadPct, tc.wantSprd) {
			t.Errorf("%s: repeats %d (N %d), TTFT %v ms, %v tok/s, spread %v %%; want %d, %v ms, %v tok/s, spread %v %%", tc.name,
				res.PrefillRepeats, res.TTFTPct.N, res.TTFTMs, res.TotalTokPerSec, res.PrefillSpreadPct,
				len(tc.ttftsMs), tc.wantTTFT, tc.wantTPS, tc.wantSprd)
		}
	}
}

// TestPrefillRepeatsAreCold runs prefill repeats on the simulator, whose
// prefix cache is vLLM's (hashes of whole blocks chained from the first
// token): each repeat is a request of the whole context that the cache
// found nothing of, so their prompts differ from the first block on; and
// the decode cells after still find the context's shared prefix cached,
// every one of their requests from the first (the last repeat warmed it).
// It counts tokens in the server's counters, which timing cannot move.
func TestPrefillRepeatsAreCold(t *testing.T) {
	t.Parallel()
	const context = 4 * engine.K
	for _, tc := range []struct {
		name    string
		api     engine.API
		repeats int
		decode  bool
	}{
		{"completions, 3 repeats", engine.APICompletions, 3, false},
		{"chat, 3 repeats", engine.APIChat, 3, false},
		{"completions, 3 repeats, then decode", engine.APICompletions, 3, true},
		{"completions, one request, then decode", engine.APICompletions, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := simServer(t, sim.Options{TimeScale: 20})
			plan := engine.Plan{PrefillContexts: []int{context}, MaxOutputTokens: 64, API: tc.api, PrefillRepeats: tc.repeats}
			if tc.decode {
				plan.DecodeContexts, plan.Concurrency, plan.Duration = []int{context}, []int{2}, 300*time.Millisecond
			}
			rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			p := statusOf(t, rep, engine.PhasePrefill, context, 1)
			if p.Status != engine.StatusValid || p.PrefillRepeats != tc.repeats || len(p.Requests) != tc.repeats || p.Completed != tc.repeats {
				t.Fatalf("prefill %s %q: %d repeats, %d requests, %d completed; want Valid, %d of each", p.Status, p.Error,
					p.PrefillRepeats, len(p.Requests), p.Completed, tc.repeats)
			}
			for i, s := range p.Requests {
				if s.PromptTokens != context || !s.Completed || s.TTFTMs <= 0 {
					t.Errorf("repeat %d: %+v, want a completed request of %d prompt tokens", i+1, s, context)
				}
			}
			// One scrape: a decode request the window's end cut off can
			// still reach the scheduler after the run, between two.
			c := simCounters(t, srv.URL, "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total")
			hits, queries := c[0], c[1]
			if !tc.decode {
				if hits != 0 {
					t.Errorf("the prefix cache held %v of the repeats' tokens, want none", hits)
				}
				return
			}
			// Every decode request found all of its 4,096 tokens but the
			// last, partial, block of 16 (the one with its own tail) cached.
			decodeRequests := (queries - float64(tc.repeats*context)) / context
			if decodeRequests < 2 || hits != decodeRequests*(context-16) {
				t.Errorf("%v tokens hit of %v queried: want the %v decode requests' %d tokens each and no repeat's",
					hits, queries, decodeRequests, context-16)
			}
		})
	}
}

// simCounters reads counters of the simulator's /metrics, all from one
// scrape.
func simCounters(t *testing.T, url string, names ...string) []float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	vals, found := make([]float64, len(names)), make([]bool, len(names))
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		for i, name := range names {
			if !found[i] && strings.HasPrefix(line, name+"{") {
				v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				vals[i], found[i] = v, true
			}
		}
	}
	for i, ok := range found {
		if !ok {
			t.Fatalf("no %s in /metrics", names[i])
		}
	}
	return vals
}

// TestPrefillRepeatFails: a repeat that fails fails its cell, with the
// error and the requests sent so far, and the run goes on.
func TestPrefillRepeatFails(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 5 * time.Millisecond, FailStatus: 500, FailMessage: "boom", FailFrom: 1, FailUntil: 2})
	plan := engine.Plan{PrefillContexts: []int{engine.K, 2 * engine.K}, MaxOutputTokens: 64, API: engine.APICompletions, PrefillRepeats: 3}
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	p := statusOf(t, rep, engine.PhasePrefill, engine.K, 1)
	if p.Status != engine.StatusFailed || !strings.HasPrefix(p.Error, "prefill repeat 2 of 3: ") || !strings.Contains(p.Error, "boom") ||
		len(p.Requests) != 2 || !p.Requests[0].Completed || p.Requests[1].Error == "" {
		t.Errorf("1K: %s %q, requests %+v; want Failed at repeat 2 of 3, one request completed and one failed", p.Status, p.Error, p.Requests)
	}
	if p := statusOf(t, rep, engine.PhasePrefill, 2*engine.K, 1); p.Status != engine.StatusValid || p.PrefillRepeats != 3 {
		t.Errorf("2K: %s %q, %d repeats; want the run to go on: Valid, 3", p.Status, p.Error, p.PrefillRepeats)
	}
}
