package quality

import (
	"math"
	"math/rand/v2"
	"slices"

	"speedmatrix/engine"
)

// z95 is the standard normal's two-sided 95 % quantile.
const z95 = 1.959963984540054

// DefaultResamples is how many resamples a bootstrap draws unless told:
// enough that the 2.5 % and 97.5 % quantiles of 2,000 draws move by well
// under their interval's width from one seed to another.
const DefaultResamples = 2000

// Bootstrap is how Summarize draws its intervals: the percentile bootstrap
// over probes. Each resample draws as many probes as there are, with
// replacement, pools their positions and computes every figure; a figure's
// 95 % interval is the 2.5 % and 97.5 % quantiles of its Resamples values.
// Probes, not positions, are drawn because positions within a probe are
// correlated (one prefix, one continuation): resampling positions would
// make the intervals too narrow. The draws come from a PCG seeded with
// Seed and the context's length, so the same inputs give the same
// intervals.
type Bootstrap struct {
	// Resamples is how many resamples to draw (0: DefaultResamples).
	Resamples int
	Seed      uint64
}

// bootstrap is the 95 % interval of each of the pool's figures.
func (s *pool) bootstrap(b Bootstrap, contextTokens int) [numFigures]Interval {
	n := len(s.probes)
	resamples := b.Resamples
	if resamples <= 0 {
		resamples = DefaultResamples
	}
	rng := rand.New(rand.NewPCG(b.Seed, uint64(contextTokens)))
	draws := make([][]float64, numFigures)
	for i := range draws {
		draws[i] = make([]float64, resamples)
	}
	w := make([]int, n)
	for r := range resamples {
		clear(w)
		for range n {
			w[rng.IntN(n)]++
		}
		f := s.figures(w)
		for i := range f {
			draws[i][r] = f[i]
		}
	}
	var out [numFigures]Interval
	for i, d := range draws {
		slices.Sort(d)
		a := expandedAlpha(n)
		out[i] = Interval{Lo: engine.Quantile(d, a), Hi: engine.Quantile(d, 1-a)}
	}
	return out
}

// weightedQuantiles are the qs-quantiles (linear interpolation between the
// closest ranks) of the multiset in which each value of sorted, ascending,
// counts w[its probe] times, total values in all: the quantiles of the
// resample's pooled values, read in one walk.
func weightedQuantiles(sorted []ranked, w []int, total int, qs ...float64) []float64 {
	ranks := make([]int, 0, 2*len(qs))
	for _, q := range qs {
		pos := q * float64(total-1)
		lo := int(math.Floor(pos))
		ranks = append(ranks, lo, min(lo+1, total-1))
	}
	order := slices.Clone(ranks)
	slices.Sort(order)
	values := make([]float64, len(order)) // values[j]: the value of rank order[j]
	cum, j := 0, 0
	for _, v := range sorted {
		cum += w[v.probe]
		for j < len(order) && order[j] < cum {
			values[j] = v.value
			j++
		}
		if j == len(order) {
			break
		}
	}
	at := func(rank int) float64 {
		i, _ := slices.BinarySearch(order, rank)
		return values[i]
	}
	out := make([]float64, len(qs))
	for i, q := range qs {
		pos := q * float64(total-1)
		lo, hi := at(ranks[2*i]), at(ranks[2*i+1])
		out[i] = lo + (hi-lo)*(pos-math.Floor(pos))
	}
	return out
}

// expandedAlpha is the lower quantile the expanded percentile interval reads
// for n probes (Hesterberg 2015): Φ(−√(n/(n−1))·t₀.₉₇₅,ₙ₋₁) in place of
// 0.025, which widens the interval to make up for the bootstrap's
// narrowness with few probes (0.0057 for 8 probes, 0.021 for 50).
func expandedAlpha(n int) float64 {
	if n < 2 {
		return 0.025
	}
	x := math.Sqrt(float64(n)/float64(n-1)) * engine.TQuantile95(n-1)
	return 0.5 * math.Erfc(x/math.Sqrt2)
}
