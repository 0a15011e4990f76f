package quality

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

// Apply fills r's Budget and Verdicts from its contexts, their floor and b.
func (b Budget) Apply(r *Report) {
	r.Budget, r.Verdicts = b.String(), r.Verdicts[:0]
	for _, c := range r.Contexts {
		floor, ok := r.NoiseFloor.At(c.ContextTokens)
		v, _ := Judge(c, floor)
		r.Verdicts = append(r.Verdicts, Judged{ContextTokens: c.ContextTokens, Floor: ok, Real: ok && v.Real(), OverBudget: b.Check(c, floor).Over()})
	}
}

// ProbeDrift is one probe's positions compared (CompareProbe).
type ProbeDrift struct {
	ContextTokens int
	Positions     []PositionDrift
}

// Summarize is the drift per context of the probes compared, ascending by
// context, each with its bootstrap intervals (b). A probe without
// positions is left out.
func Summarize(probes []ProbeDrift, b Bootstrap) []ContextDrift {
	byContext := map[int][]ProbeDrift{}
	for _, p := range probes {
		if len(p.Positions) > 0 {
			byContext[p.ContextTokens] = append(byContext[p.ContextTokens], p)
		}
	}
	var out []ContextDrift
	for _, c := range slices.Sorted(maps.Keys(byContext)) {
		out = append(out, summarizeContext(c, byContext[c], b))
	}
	return out
}

// Floor is the noise floor of ref at k logprobs: each probe's positions
// under load compared with the same positions alone. Probes recorded
// without a load pass are left out; a context none of whose probes has one
// has no floor.
func Floor(ref Reference, k int, b Bootstrap) (NoiseFloor, error) {
	var probes []ProbeDrift
	for i, p := range ref.Probes {
		if len(p.Loaded) == 0 {
			continue
		}
		d, err := CompareProbe(p.TopK, p.Loaded, k)
		if err != nil {
			return NoiseFloor{}, fmt.Errorf("probe %d: %w", i+1, err)
		}
		probes = append(probes, ProbeDrift{ContextTokens: p.ContextTokens, Positions: d})
	}
	return NoiseFloor{Contexts: Summarize(probes, b)}, nil
}

// summarizeContext is Summarize's figures for one context's probes.
func summarizeContext(contextTokens int, probes []ProbeDrift, b Bootstrap) ContextDrift {
	s := newPool(probes)
	ones := make([]int, len(probes))
	for i := range ones {
		ones[i] = 1
	}
	f := s.figures(ones)
	c := ContextDrift{
		ContextTokens: contextTokens, Probes: len(probes), Positions: s.positions,
		Top1Pct: f[figTop1], KLDMean: f[figKLDMean], KLDMedian: f[figKLDMedian], KLDP99: f[figKLDP99],
		KLDMax: f[figKLDMax], DPMean: f[figDPMean], FirstDivergenceMedian: f[figFirstDiv],
		SameTokensPct: 100 * float64(s.same) / float64(s.positions),
	}
	ci := s.bootstrap(b, contextTokens)
	c.CI = Intervals{Top1Pct: ci[figTop1], KLDMean: ci[figKLDMean], KLDMedian: ci[figKLDMedian], KLDP99: ci[figKLDP99],
		KLDMax: ci[figKLDMax], DPMean: ci[figDPMean], FirstDivergenceMedian: ci[figFirstDiv]}
	return c
}

// The figures a pool computes, in the order figures returns them.
const (
	figTop1 = iota
	figKLDMean
	figKLDMedian
	figKLDP99
	figKLDMax
	figDPMean
	figFirstDiv
	numFigures
)

// probeSums are one probe's sums, from which any resample's means follow.
type probeSums struct {
	n, agree        int
	kld, dp, maxKLD float64
	firstDivergence float64
}

// ranked is a value and the probe it belongs to.
type ranked struct {
	value float64
	probe int
}

// pool is one context's probes ready to be resampled: each probe's sums,
// every position's KLD sorted once, and the probes' first divergences
// sorted once, so that a resample's quantiles are one walk, not a sort.
type pool struct {
	probes          []probeSums
	klds, firstDivs []ranked
	positions, same int
}

// newPool prepares probes (each with positions) for figures.
func newPool(probes []ProbeDrift) *pool {
	s := &pool{probes: make([]probeSums, len(probes))}
	for i, p := range probes {
		ps := probeSums{n: len(p.Positions), firstDivergence: float64(len(p.Positions))}
		for j, d := range p.Positions {
			if d.Top1 {
				ps.agree++
			} else if ps.firstDivergence == float64(len(p.Positions)) {
				ps.firstDivergence = float64(j)
			}
			if d.SameTokens {
				s.same++
			}
			ps.kld += d.KLD
			ps.dp += d.DP
			ps.maxKLD = max(ps.maxKLD, d.KLD)
			s.klds = append(s.klds, ranked{d.KLD, i})
		}
		s.probes[i] = ps
		s.positions += ps.n
		s.firstDivs = append(s.firstDivs, ranked{ps.firstDivergence, i})
	}
	byValue := func(a, b ranked) int { return cmp.Compare(a.value, b.value) }
	slices.SortFunc(s.klds, byValue)
	slices.SortFunc(s.firstDivs, byValue)
	return s
}

// figures are the pool's figures when probe i counts w[i] times.
func (s *pool) figures(w []int) [numFigures]float64 {
	var f [numFigures]float64
	n, agree, kld, dp, probes := 0, 0, 0.0, 0.0, 0
	for i, p := range s.probes {
		if w[i] == 0 {
			continue
		}
		c := w[i]
		n, agree, probes = n+c*p.n, agree+c*p.agree, probes+c
		kld, dp = kld+float64(c)*p.kld, dp+float64(c)*p.dp
		f[figKLDMax] = max(f[figKLDMax], p.maxKLD)
	}
	if n == 0 {
		return f
	}
	f[figTop1] = 100 * float64(agree) / float64(n)
	f[figKLDMean], f[figDPMean] = kld/float64(n), dp/float64(n)
	q := weightedQuantiles(s.klds, w, n, 0.5, 0.99)
	f[figKLDMedian], f[figKLDP99] = q[0], q[1]
	f[figFirstDiv] = weightedQuantiles(s.firstDivs, w, probes, 0.5)[0]
	return f
}
