package measure

import (
	"speedmatrix/engine"
	"testing"
	"time"
)

// TestEstimateIsTheRunsFirstETA: the estimate before a run is the ETA the
// run starts from, fitted to the server's limits and skipping the cells
// over its capacity.
func TestEstimateIsTheRunsFirstETA(t *testing.T) {
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
	prefill := seconds(priorPrefillS + float64(4*engine.K)/priorPrefillTokPerS)
	// 4K×1, 4K×8, 7K×1 run; 7K×8 is over capacity.
	if want := prefill + 3*decode; Estimate(plan, l) != want {
		t.Fatalf("Estimate = %v, want %v (one prefill, three decode cells)", Estimate(plan, l), want)
	}
}
