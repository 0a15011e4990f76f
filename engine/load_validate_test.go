package engine

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidateLoadPlan(t *testing.T) {
	good := LoadPlan{RatesRPS: []float64{1, 2}, Arrivals: ArrivalsPoisson, Requests: 200, InputTokens: TokenRange{1024, 1024},
		OutputTokens: TokenRange{256, 256}, API: APIChat}
	with := func(f func(*LoadPlan)) LoadPlan {
		p := good
		f(&p)
		return p
	}
	for _, tc := range []struct {
		name  string
		plan  LoadPlan
		lim   Limits
		field PlanField
		want  string
	}{
		{"good", good, Limits{}, "", ""},
		{"sweep", with(func(p *LoadPlan) { p.RatesRPS, p.Sweep = nil, true }), Limits{}, "", ""},
		{"burst", with(func(p *LoadPlan) { p.RatesRPS, p.Burst, p.Arrivals, p.Requests = nil, 64, "", 0 }), Limits{}, "", ""},
		{"dataset", with(func(p *LoadPlan) { p.Dataset, p.InputTokens = "d.jsonl", TokenRange{} }), Limits{}, "", ""},
		{"no rate", with(func(p *LoadPlan) { p.RatesRPS = nil }), Limits{}, FieldRates, "no rate to measure"},
		{"rate 0", with(func(p *LoadPlan) { p.RatesRPS = []float64{1, 0} }), Limits{}, FieldRates, "a rate of 0 or below"},
		{"rate below 0", with(func(p *LoadPlan) { p.RatesRPS = []float64{-2} }), Limits{}, FieldRates, "a rate of 0 or below"},
		{"rate too high", with(func(p *LoadPlan) { p.RatesRPS = []float64{20000} }), Limits{}, FieldRates, "use at most 10000"},
		{"more than a day", with(func(p *LoadPlan) { p.RatesRPS, p.Requests = []float64{0.001}, 1000 }), Limits{}, FieldRates, "more than a day"},
		{"rates and sweep", with(func(p *LoadPlan) { p.Sweep = true }), Limits{}, FieldRates, "give one of"},
		{"no requests", with(func(p *LoadPlan) { p.Requests = 0 }), Limits{}, FieldRequests, "use 1 to 1000000"},
		{"too many tokens", with(func(p *LoadPlan) {
			p.RatesRPS, p.Requests, p.OutputTokens = []float64{1000}, 1_000_000, TokenRange{256, 256}
		}), Limits{}, FieldRequests, "more tokens than a rate keeps"},
		{"bad arrivals", with(func(p *LoadPlan) { p.Arrivals = "gamma" }), Limits{}, FieldArrivals, `"gamma" is not an arrival process`},
		{"cap", with(func(p *LoadPlan) { p.MaxConcurrency = -1 }), Limits{}, FieldMaxConcurrency, "use 0 (no cap)"},
		// Requests ÷ rate past 292 years wrapped a time.Duration negative,
		// and the day's bound let it through (then 920 GB were asked for).
		{"rate 1e-13", with(func(p *LoadPlan) { p.RatesRPS, p.Requests = []float64{1e-13}, 2 }), Limits{}, FieldRates, "more than a day"},
		{"rate 5e-324", with(func(p *LoadPlan) { p.RatesRPS, p.Requests = []float64{5e-324}, 2 }), Limits{}, FieldRates, "more than a day"},
		{"burst too big", with(func(p *LoadPlan) { p.RatesRPS, p.Burst = nil, MaxLoadRequests+1 }), Limits{}, FieldBurst, "use at most 18396"},
		{"burst past memory", with(func(p *LoadPlan) { p.RatesRPS, p.Burst = nil, 100_000 }), Limits{}, FieldBurst,
			"100000 requests open at once would take about 5.4 GiB of this machine's memory (57 KiB each with 1024-token prompts): use at most 18396"},
		{"burst of long prompts", with(func(p *LoadPlan) { p.RatesRPS, p.Burst, p.InputTokens = nil, 500, TokenRange{1 << 20, 1 << 20} }), Limits{}, FieldBurst, "use at most 113"},
		{"burst negative", with(func(p *LoadPlan) { p.RatesRPS, p.Burst = nil, -1 }), Limits{}, FieldBurst, "use 1 to 18396"},
		{"cap of long prompts", with(func(p *LoadPlan) { p.MaxConcurrency, p.InputTokens = 4000, TokenRange{1 << 20, 1 << 20} }), Limits{}, FieldMaxConcurrency, "use at most 113"},
		{"short prompt", with(func(p *LoadPlan) { p.InputTokens = TokenRange{8, 8} }), Limits{}, FieldInputTokens, "use at least 32"},
		{"backwards range", with(func(p *LoadPlan) { p.InputTokens = TokenRange{2048, 512} }), Limits{}, FieldInputTokens, "runs backwards"},
		{"no output", with(func(p *LoadPlan) { p.OutputTokens = TokenRange{0, 0} }), Limits{}, FieldOutputTokens, "use at least 1"},
		{"over the context", with(func(p *LoadPlan) { p.InputTokens = TokenRange{512, 4000} }), Limits{MaxModelLen: 4096}, FieldInputTokens, "do not fit the model's max_model_len 4096"},
		{"api", with(func(p *LoadPlan) { p.API = "grpc" }), Limits{}, FieldAPI, "use chat or completions"},
		{"slo percentile", with(func(p *LoadPlan) { p.SLO = SLO{TTFT: time.Second, Percentile: 95} }), Limits{}, FieldSLOPercentile, "use 50, 90 or 99"},
		{"sweep rates", with(func(p *LoadPlan) { p.RatesRPS, p.Sweep, p.SweepRates = nil, true, 100 }), Limits{}, FieldSweepRates, "use 1 to 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateLoadPlan(tc.plan, tc.lim)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("%v, want none", err)
				}
				return
			}
			pe, ok := err.(*PlanError)
			if !ok || pe.Problems[0].Field != tc.field || !strings.Contains(pe.Problems[0].Problem, tc.want) {
				t.Errorf("%v, want %s: …%s…", err, tc.field, tc.want)
			}
		})
	}
}

// TestLoadWarnings: a burst above max_num_seqs is a warning.
func TestLoadWarnings(t *testing.T) {
	p := LoadPlan{Burst: 300}
	if w := LoadWarnings(p, Limits{MaxNumSeqs: 256}); len(w) != 1 || w[0].Field != FieldBurst || !strings.Contains(w[0].Problem, "max_num_seqs 256") {
		t.Errorf("warnings %+v, want one about max_num_seqs", w)
	}
	if w := LoadWarnings(p, Limits{}); w != nil {
		t.Errorf("warnings %+v with max_num_seqs unknown, want none", w)
	}
}

// TestSweepRatesFor spreads the rates evenly up to the limit.
func TestSweepRatesFor(t *testing.T) {
	got := LoadPlan{SweepRates: 4}.SweepRatesFor(8)
	if len(got) != 4 || got[0] != 2 || got[3] != 8 {
		t.Errorf("%v, want 2, 4, 6, 8", got)
	}
	if none := (LoadPlan{}); len(none.SweepRatesFor(8)) != DefaultSweepRates || none.SweepRatesFor(0) != nil {
		t.Error("want DefaultSweepRates rates, and none without a limit")
	}
}

// TestDurationOf: seconds past what a time.Duration holds saturate
// instead of wrapping round.
func TestDurationOf(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want time.Duration
	}{
		{1.5, 1500 * time.Millisecond}, {2 / 1e-13, math.MaxInt64}, {math.Inf(1), math.MaxInt64},
		{-1e300, math.MinInt64}, {math.NaN(), 0}, {0, 0},
	} {
		if got := DurationOf(tc.s); got != tc.want {
			t.Errorf("DurationOf(%g) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// TestMaxOpenFor: the open requests a load test holds fit in its memory
// budget, fewer with longer prompts.
func TestMaxOpenFor(t *testing.T) {
	for _, tokens := range []int{0, 32, 1024, 128 * K, MaxContextTokens} {
		n := MaxOpenFor(tokens)
		if n < 1 || int64(n)*OpenRequestBytes(tokens) > MaxLoadOpenBytes || int64(n+1)*OpenRequestBytes(tokens) <= MaxLoadOpenBytes {
			t.Errorf("MaxOpenFor(%d) = %d: not the most that fit in %d bytes at %d each", tokens, n, MaxLoadOpenBytes, OpenRequestBytes(tokens))
		}
	}
	if OpenProblem(MaxOpenFor(1024), 1024) != "" || OpenProblem(MaxOpenFor(1024)+1, 1024) == "" {
		t.Error("OpenProblem does not refuse exactly past MaxOpenFor")
	}
}
