package engine

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPrecisionOfEdges covers the series a window can give: too short,
// flat, all zero, and a stall of zeros inside.
func TestPrecisionOfEdges(t *testing.T) {
	cases := []struct {
		name    string
		values  []float64
		unknown string // "" when known
		zero    bool   // RelCI95 exactly 0
	}{
		{"none", nil, "0 one-second buckets: too few", true},
		{"three buckets", []float64{100, 101, 99}, "3 one-second buckets: too few", true},
		{"four flat buckets", []float64{100, 100, 100, 100}, "", true},
		{"all zero", []float64{0, 0, 0, 0, 0}, "the figure is zero", true},
		{"a stall of zeros inside", []float64{100, 100, 0, 0, 100, 100, 100, 100}, "", false},
		// A 12 s window of the tiny profile, drifting down at its end: a
		// lag-1 correlation of 0.76 over batches of 3 leaves batchBias at its
		// cap, which once divided by zero (an infinite interval that
		// report.json could not save).
		{"drift at the cap", []float64{193, 193, 196, 193, 193, 194, 192, 192, 192, 192, 187, 188}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := EstimatePrecision(c.values, 0)
			if p.Buckets != len(c.values) {
				t.Errorf("buckets %d, want %d", p.Buckets, len(c.values))
			}
			if !strings.HasPrefix(p.Unknown, c.unknown) || (c.unknown == "") != p.Known() {
				t.Errorf("unknown %q (known %v), want %q", p.Unknown, p.Known(), c.unknown)
			}
			if (p.RelCI95 == 0) != c.zero || math.IsNaN(p.RelCI95) || math.IsInf(p.RelCI95, 0) {
				t.Errorf("rel ci95 %v, want zero %v", p.RelCI95, c.zero)
			}
		})
	}
}

// TestTQuantile95 holds the t quantiles to their published values and the
// expansion beyond the table to the normal's limit.
func TestTQuantile95(t *testing.T) {
	cases := []struct {
		df   int
		want float64
	}{{1, 12.706}, {3, 3.182}, {30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}, {100000, 1.960}}
	for _, c := range cases {
		if got := TQuantile95(c.df); math.Abs(got-c.want) > 0.001 {
			t.Errorf("t(%d) = %.4f, want %.3f", c.df, got, c.want)
		}
	}
	if !math.IsInf(TQuantile95(0), 1) {
		t.Error("t(0) must be infinite: one batch says nothing about the spread")
	}
}

// synthetic makes one window of buckets and the mean of the process it
// came from.
type synthetic func(r *rand.Rand, n int) (values []float64, mean float64)

// ar1 is a stationary AR(1) around 1,000 tok/s: a slow second is followed
// by another with correlation phi.
func ar1(phi float64) synthetic {
	return func(r *rand.Rand, n int) ([]float64, float64) {
		const mu, sd = 1000, 20
		x := make([]float64, n)
		e := r.NormFloat64() * sd / math.Sqrt(1-phi*phi)
		for i := range x {
			e = phi*e + r.NormFloat64()*sd
			x[i] = mu + e
		}
		return x, mu
	}
}

// hiccups is a server at 1,000 tok/s with 2 % jitter per second that
// stalls now and then: up for an exponential time of mean 4 s, then stalled
// for 0.2–0.6 s, across bucket edges as they fall. Over time it is stalled
// 0.4 s of every 4.4 s.
func hiccups(r *rand.Rand, n int) ([]float64, float64) {
	const rate, meanUpS, meanStallS = 1000, 4.0, 0.4
	stalled := make([]float64, n) // seconds stalled in each bucket
	t := -50.0                    // start long before the window: stationary
	for t < float64(n) {
		t += r.ExpFloat64() * meanUpS
		end := t + 0.2 + 0.4*r.Float64()
		for b := max(0, int(math.Floor(t))); b < n && float64(b) < end; b++ {
			stalled[b] += math.Max(0, math.Min(end, float64(b+1))-math.Max(t, float64(b)))
		}
		t = end
	}
	x := make([]float64, n)
	for b := range x {
		x[b] = rate * (1 - stalled[b]) * (1 + 0.02*r.NormFloat64())
	}
	return x, rate * (1 - meanStallS/(meanUpS+meanStallS))
}

// coverage is the share of windows whose interval holds the process's
// mean, for estimator ci (a relative half-width).
func coverage(gen synthetic, n, windows int, seed uint64, ci func([]float64) float64) float64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	hit := 0
	for range windows {
		x, mu := gen(r, n)
		m := meanOf(x)
		if math.Abs(m-mu) <= ci(x)*m {
			hit++
		}
	}
	return float64(hit) / float64(windows)
}

// naiveRelCI95 is the textbook interval that treats buckets as independent:
// t·s/√n. It is what this estimator must not be.
func naiveRelCI95(x []float64) float64 {
	return TQuantile95(len(x)-1) * math.Sqrt(sampleVariance(x)/float64(len(x))) / meanOf(x)
}

func batchMeansRelCI95(x []float64) float64 { return EstimatePrecision(x, 0).RelCI95 }

// TestPrecisionCoverage checks, on 1,000 seeded synthetic windows of each
// kind, that about 95 % of the intervals hold the true mean, and that the
// naive interval over correlated buckets holds it far less often.
// Deterministic: no clock, a fixed seed.
func TestPrecisionCoverage(t *testing.T) {
	cases := []struct {
		name     string
		gen      synthetic
		buckets  int
		lo, hi   float64 // bounds on the batch means' coverage
		naiveMax float64 // the naive interval's coverage stays under this
	}{
		{"AR(1) φ=0.8, 60 s", ar1(0.8), 60, 0.90, 0.98, 0.6},
		// 30 buckets are only 3 correlation times (τ = 9 s at φ = 0.8):
		// four batches of 7 s still correlate, and even corrected (batchBias)
		// the interval covers a little under 95 %.
		{"AR(1) φ=0.8, 30 s", ar1(0.8), 30, 0.88, 0.98, 0.6},
		{"AR(1) φ=0.5, 30 s", ar1(0.5), 30, 0.90, 0.98, 0.85},
		{"independent, 10 s", ar1(0), 10, 0.90, 0.98, 1},
		{"hiccups, 30 s", hiccups, 30, 0.90, 0.98, 1},
		{"hiccups, 60 s", hiccups, 60, 0.90, 0.98, 1},
	}
	const windows = 1000
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ours := coverage(c.gen, c.buckets, windows, 27, batchMeansRelCI95)
			naive := coverage(c.gen, c.buckets, windows, 27, naiveRelCI95)
			t.Logf("coverage of %d windows: batch means %.3f, naive %.3f", windows, ours, naive)
			if ours < c.lo || ours > c.hi {
				t.Errorf("batch means cover %.3f, want %.2f–%.2f", ours, c.lo, c.hi)
			}
			if naive >= c.naiveMax {
				t.Errorf("naive covers %.3f, want under %.2f: the series is meant to show it wrong", naive, c.naiveMax)
			}
		})
	}
}
