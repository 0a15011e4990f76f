package measure

import (
	"math"
	"testing"
	"time"

	"speedmatrix/engine"
)

// TestEstimateLoad: a load test's estimate is near what load tests took on
// the tiny simulator (the figures are data, measured once: see the
// priors), where a flat 10 s per rate made it twice as long or more.
func TestEstimateLoad(t *testing.T) {
	t.Parallel()
	out := engine.TokenRange{Min: 256, Max: 256}
	for _, c := range []struct {
		name  string
		plan  engine.LoadPlan
		tookS float64 // on the tiny simulator
	}{
		{"4 rates × 10", engine.LoadPlan{RatesRPS: []float64{1, 2, 4, 8}, Requests: 10, OutputTokens: out}, 23.7},
		{"20 req/s × 10", engine.LoadPlan{RatesRPS: []float64{20}, Requests: 10, OutputTokens: out}, 2.1},
		{"4 req/s × 40", engine.LoadPlan{RatesRPS: []float64{4}, Requests: 40, OutputTokens: out}, 12.1},
		{"2 req/s × 10 of 1,024 tokens", engine.LoadPlan{RatesRPS: []float64{2}, Requests: 10, OutputTokens: engine.TokenRange{Min: 1024, Max: 1024}}, 12.0},
		{"a burst of 100", engine.LoadPlan{Burst: 100, Requests: 100, OutputTokens: out}, 8.0},
	} {
		got := EstimateLoad(c.plan).Seconds()
		if ratio := got / c.tookS; ratio < 0.7 || ratio > 1.5 {
			t.Errorf("%s: estimated %.1f s for %.1f s measured", c.name, got, c.tookS)
		}
	}
	if got := EstimateLoad(engine.LoadPlan{Sweep: true, SweepRates: 2, Requests: 10, OutputTokens: out}); got <= 3*time.Duration(requestTime(engine.LoadPlan{OutputTokens: out})*float64(time.Second)) {
		t.Errorf("sweep: %s, want its limit and its 2 rates", got)
	}
	if got := EstimateLoad(engine.LoadPlan{RatesRPS: []float64{1e-13}, Requests: 2, OutputTokens: out}); got != math.MaxInt64 {
		t.Errorf("an absurd rate: %s, want the longest duration, not a wrapped one", got)
	}
}
