package measure

import (
	"math"
	"speedmatrix/engine"
	"testing"
	"time"
)

// TestEstimateIsTheRunsFirstETA: the estimate before a run is the ETA the
// run starts from, fitted to the server's limits and skipping the cells
// over its capacity.
func TestEstimateIsTheRunsFirstETA(t *testing.T) {
	t.Parallel()
	plan := engine.Plan{PrefillContexts: []int{4 * engine.K}, DecodeContexts: []int{4 * engine.K, 16 * engine.K}, Concurrency: []int{1, 8},
		Duration: 10 * time.Second, MaxOutputTokens: 1024}
	// 16K does not fit an 8K model: it is measured at 7K, and 8 requests of
	// 7K+1K do not fit 40K tokens of KV cache.
	l := engine.Limits{MaxModelLen: 8 * engine.K, KVCacheTokens: 40 * engine.K}
	fitted := l.Fit(plan)
	s := setup{MaxModelLen: l.MaxModelLen, KVTokens: l.KVCacheTokens, Prefill: fitted.PrefillContexts, Decode: fitted.DecodeContexts}
	e := newETAModel(plan, s)
	want := e.remaining(s.cells(plan), 0)
	if got := Estimate(plan, l); got != want {
		t.Fatalf("Estimate = %v, the run's first ETA is %v", got, want)
	}
	decode := seconds(10 + priorDecodeOverheadS + priorDecodeOverheadShare*10)
	prefill := seconds(priorPrefillS + float64(4*engine.K)/PriorPrefillTokPerS)
	// 4K×1, 4K×8, 7K×1 run; 7K×8 is over capacity.
	if want := prefill + 3*decode; Estimate(plan, l) != want {
		t.Fatalf("Estimate = %v, want %v (one prefill, three decode cells)", Estimate(plan, l), want)
	}
}

// TestETAPrefillRepeats: a prefill cell's estimate is its repeats times
// one request's, before anything is measured and after a cell whose
// repeats the model divides out.
func TestETAPrefillRepeats(t *testing.T) {
	t.Parallel()
	plan := engine.Plan{PrefillRepeats: 3, PrefillSingleFrom: 64 * engine.K}
	e := newETAModel(plan, setup{})
	prior := func(ctx int) time.Duration { return seconds(priorPrefillS + float64(ctx)/PriorPrefillTokPerS) }
	start := time.Now()
	measured := engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 8 * engine.K}, Status: engine.StatusValid,
		PrefillRepeats: 3, StartedAt: start, FinishedAt: start.Add(3 * time.Second)}
	for _, tc := range []struct {
		name     string
		observed bool
		context  int
		want     time.Duration
	}{
		{"prior, 3 repeats", false, 8 * engine.K, 3 * prior(8*engine.K)},
		{"prior, one from 64K", false, 64 * engine.K, prior(64 * engine.K)},
		// 3 s for 3 requests: 1 s each, 8 times that at 4 × the context.
		{"observed, 3 repeats", true, 32 * engine.K, 3 * 8 * time.Second},
		{"observed, one from 64K", true, 64 * engine.K, seconds(math.Pow(8, 1.5))},
	} {
		if tc.observed {
			e.observe(measured)
		}
		if got := e.estimate(engine.Cell{Phase: engine.PhasePrefill, ContextTokens: tc.context}); got != tc.want {
			t.Errorf("%s: estimate at %s = %v, want %v", tc.name, engine.ContextLabel(tc.context), got, tc.want)
		}
	}
}
