package quality

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"speedmatrix/engine"
)

func pos(top1 bool, kld, dp float64) PositionDrift {
	return PositionDrift{Top1: top1, KLD: kld, DP: dp, SameTokens: true}
}

// TestSummarizeHandComputed checks every point figure against values
// worked by hand: contexts apart and ascending, probes without positions
// left out, positions pooled.
func TestSummarizeHandComputed(t *testing.T) {
	probes := []ProbeDrift{
		{ContextTokens: 8192, Positions: []PositionDrift{pos(true, 0, 0)}},
		{ContextTokens: 512, Positions: []PositionDrift{pos(true, .1, -.1), pos(true, 0, 0), pos(false, .3, -.2)}},
		{ContextTokens: 512, Positions: []PositionDrift{pos(false, .2, -.3), pos(true, 0, 0)}},
		{ContextTokens: 512},
	}
	got := Summarize(probes, Bootstrap{})
	if len(got) != 2 || got[0].ContextTokens != 512 || got[1].ContextTokens != 8192 {
		t.Fatalf("contexts %+v, want 512 then 8192", got)
	}
	c := got[0]
	// KLDs sorted 0, 0, .1, .2, .3: median .1; p99 at rank 3.96 = .2 + .96·.1
	// first divergences 2 and 0: median 1
	want := ContextDrift{ContextTokens: 512, Probes: 2, Positions: 5, Top1Pct: 60, KLDMean: .12, KLDMedian: .1,
		KLDP99: .296, KLDMax: .3, DPMean: -.12, FirstDivergenceMedian: 1, SameTokensPct: 100}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"probes", float64(c.Probes), float64(want.Probes)}, {"positions", float64(c.Positions), float64(want.Positions)},
		{"top1", c.Top1Pct, want.Top1Pct}, {"kld mean", c.KLDMean, want.KLDMean}, {"kld median", c.KLDMedian, want.KLDMedian},
		{"kld p99", c.KLDP99, want.KLDP99}, {"kld max", c.KLDMax, want.KLDMax}, {"dp mean", c.DPMean, want.DPMean},
		{"first divergence", c.FirstDivergenceMedian, want.FirstDivergenceMedian}, {"same tokens", c.SameTokensPct, want.SameTokensPct},
	} {
		if math.Abs(f.got-f.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	if one := got[1]; one.CI.KLDMean != (Interval{Lo: 0, Hi: 0}) || one.CI.Top1Pct != (Interval{Lo: 100, Hi: 100}) || one.FirstDivergenceMedian != 1 {
		t.Errorf("one probe that never diverges: %+v; want its figures as its intervals, first divergence = its length", one)
	}
}

// TestSummarizeDeterministic: the same probes and seed give the same
// intervals, another seed others, and each interval holds its figure.
func TestSummarizeDeterministic(t *testing.T) {
	probes := simulatedProbes(rand.New(rand.NewPCG(5, 6)), 12, 16)
	a := Summarize(probes, Bootstrap{Seed: 1})[0]
	b := Summarize(probes, Bootstrap{Seed: 1})[0]
	c := Summarize(probes, Bootstrap{Seed: 2})[0]
	if a != b {
		t.Errorf("same seed, different results:\n%+v\n%+v", a, b)
	}
	if a.CI == c.CI {
		t.Errorf("another seed drew the same intervals %+v", a.CI)
	}
	for name, f := range map[string]struct {
		v  float64
		ci Interval
	}{"top1": {a.Top1Pct, a.CI.Top1Pct}, "kld mean": {a.KLDMean, a.CI.KLDMean}, "kld median": {a.KLDMedian, a.CI.KLDMedian},
		"kld p99": {a.KLDP99, a.CI.KLDP99}, "dp mean": {a.DPMean, a.CI.DPMean}, "first divergence": {a.FirstDivergenceMedian, a.CI.FirstDivergenceMedian}} {
		if !(f.ci.Lo <= f.v && f.v <= f.ci.Hi && f.ci.Lo < f.ci.Hi) {
			t.Errorf("%s %v outside its interval %+v, or the interval is empty", name, f.v, f.ci)
		}
	}
}

// TestWeightedQuantiles: the one-walk quantiles of a resample equal those
// of its pooled values, expanded and sorted.
func TestWeightedQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		probes := simulatedProbes(rng, 1+rng.IntN(6), 1+rng.IntN(5))
		p := newPool(probes)
		w := make([]int, len(probes))
		total := 0
		var expanded []float64
		for i := range w {
			w[i] = rng.IntN(3)
			for range w[i] {
				for _, d := range probes[i].Positions {
					expanded = append(expanded, d.KLD)
				}
			}
		}
		total = len(expanded)
		if total == 0 {
			continue
		}
		slices.Sort(expanded)
		got := weightedQuantiles(p.klds, w, total, 0.5, 0.99, 0, 1)
		for i, q := range []float64{0.5, 0.99, 0, 1} {
			if want := engine.Quantile(expanded, q); got[i] != want {
				t.Fatalf("q %v of %v (weights %v): %v, want %v", q, expanded, w, got[i], want)
			}
		}
	}
}

// TestBootstrapCoverage: over 500 simulated experiments, each 20 probes of
// 32 correlated positions (each probe has its own mean), the 95 %
// intervals of the KLD mean and of top-1 agreement hold the truth in
// 93–97 % of them. Resampling positions instead, as if they were
// independent, covers far less: the test can tell the methods apart.
func TestBootstrapCoverage(t *testing.T) {
	const experiments, truthKLD, truthTop1 = 500, 0.01, 95.0
	rng := rand.New(rand.NewPCG(38, 1))
	kld, top1, byPosition := 0, 0, 0
	for e := range experiments {
		probes := simulatedProbes(rng, 20, 32)
		c := Summarize(probes, Bootstrap{Resamples: 500, Seed: uint64(e)})[0]
		if c.CI.KLDMean.Lo <= truthKLD && truthKLD <= c.CI.KLDMean.Hi {
			kld++
		}
		if c.CI.Top1Pct.Lo <= truthTop1 && truthTop1 <= c.CI.Top1Pct.Hi {
			top1++
		}
		if e < 100 {
			var single []ProbeDrift
			for _, p := range probes {
				for i := range p.Positions {
					single = append(single, ProbeDrift{ContextTokens: p.ContextTokens, Positions: p.Positions[i : i+1]})
				}
			}
			s := Summarize(single, Bootstrap{Resamples: 500, Seed: uint64(e)})[0]
			if s.CI.KLDMean.Lo <= truthKLD && truthKLD <= s.CI.KLDMean.Hi {
				byPosition++
			}
		}
	}
	t.Logf("covered: kld mean %d, top1 %d of %d; resampling positions: %d of 100", kld, top1, experiments, byPosition)
	for name, n := range map[string]int{"kld mean": kld, "top1": top1} {
		if pct := 100 * float64(n) / experiments; pct < 93 || pct > 97 {
			t.Errorf("%s: the 95 %% interval held the truth in %.1f %% of %d experiments, want 93–97 %%", name, pct, experiments)
		}
	}
	if byPosition >= 80 {
		t.Errorf("resampling positions covered in %d of 100: the simulation's positions are not correlated enough to test the method", byPosition)
	}
}

// simulatedProbes are n probes of m positions at 512 tokens: each probe
// has its own KLD level, uniform in 0.005–0.015 (mean 0.01), and its own
// chance of top-1 agreement, uniform in 0.9–1 (mean 0.95); its positions
// vary ±20 % about its level.
func simulatedProbes(rng *rand.Rand, n, m int) []ProbeDrift {
	probes := make([]ProbeDrift, n)
	for i := range probes {
		mu, agree := 0.01*(0.5+rng.Float64()), 0.9+0.1*rng.Float64()
		ps := make([]PositionDrift, m)
		for j := range ps {
			ps[j] = PositionDrift{KLD: mu * (0.8 + 0.4*rng.Float64()), Top1: rng.Float64() < agree, DP: -mu * rng.Float64()}
		}
		probes[i] = ProbeDrift{ContextTokens: 512, Positions: ps}
	}
	return probes
}

// TestExpandedAlpha: the quantile read for n probes, against values
// worked from Student's t and the normal distribution.
func TestExpandedAlpha(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64
	}{{1, 0.025}, {8, 0.005731}, {20, 0.015882}, {50, 0.021179}, {1000, 0.024804}} {
		if got := expandedAlpha(tc.n); math.Abs(got-tc.want) > 2e-5 {
			t.Errorf("expandedAlpha(%d) = %.6f, want %.6f", tc.n, got, tc.want)
		}
	}
}

// TestFloor: the noise floor compares each probe under load with itself
// alone; probes recorded without load are left out.
func TestFloor(t *testing.T) {
	a, b := probs(map[int]float64{1: .9, 2: .1}), probs(map[int]float64{1: .8, 2: .2})
	ref := Reference{Probes: []Probe{
		{ContextTokens: 512, TopK: []TopK{a, a}, Loaded: []TopK{a, b}},
		{ContextTokens: 512, TopK: []TopK{a, a}, Loaded: []TopK{a, a}},
		{ContextTokens: 1024, TopK: []TopK{a}},
	}}
	f, err := Floor(ref, 2, Bootstrap{})
	if err != nil {
		t.Fatal(err)
	}
	at, ok := f.At(512)
	if !ok || at.Positions != 4 || at.Probes != 2 || at.KLDMax <= 0 || at.Top1Pct != 100 {
		t.Errorf("floor at 512 = %+v, %v; want 4 positions of 2 probes, one that drifts", at, ok)
	}
	if _, ok := f.At(1024); ok {
		t.Error("a floor at 1024, where no probe was recorded under load")
	}
	ref.Probes[0].Loaded = []TopK{a}
	if _, err := Floor(ref, 2, Bootstrap{}); err == nil {
		t.Error("a load pass one position short was compared")
	}
}

// TestReportJSONNames: quality.json has the names the issue fixes, which
// other tools read.
func TestReportJSONNames(t *testing.T) {
	c := Summarize(simulatedProbes(rand.New(rand.NewPCG(9, 9)), 3, 4), Bootstrap{Resamples: 10})
	data, err := json.Marshal(Report{Reference: validReference().Header, NoiseFloor: NoiseFloor{Contexts: c}, Contexts: c})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Reference  map[string]any   `json:"reference"`
		NoiseFloor map[string]any   `json:"noise_floor"`
		Contexts   []map[string]any `json:"contexts"`
	}
	if err := json.Unmarshal(data, &got); err != nil || got.Reference == nil || got.NoiseFloor == nil || len(got.Contexts) != 1 {
		t.Fatalf("quality.json %s: %v", data, err)
	}
	for _, key := range []string{"context_tokens", "positions", "top1_pct", "kld_mean", "kld_p99", "kld_max", "dp_mean", "first_divergence_median", "ci"} {
		if _, ok := got.Contexts[0][key]; !ok {
			t.Errorf("contexts[0] has no %q: %s", key, data)
		}
	}
	ci, _ := got.Contexts[0]["ci"].(map[string]any)
	for _, key := range []string{"top1_pct", "kld_mean", "kld_p99", "kld_max", "dp_mean", "first_divergence_median"} {
		if iv, _ := ci[key].(map[string]any); iv == nil || iv["lo"] == nil || iv["hi"] == nil {
			t.Errorf("ci has no %q interval with lo and hi: %v", key, ci)
		}
	}
	for _, key := range []string{"format_version", "model", "tokenizer", "engine", "k", "contexts"} {
		if _, ok := got.Reference[key]; !ok {
			t.Errorf("reference has no %q", key)
		}
	}
}
