package engine

import (
	"math"
	"math/rand/v2"
	"slices"
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

// TestSectionedCoverage checks the interval of a median (the cell's ITL,
// per-request tok/s) on 1,000 seeded windows: each second holds gaps
// whose scale drifts as AR(1) from second to second, and whose
// distribution has two modes (a long step now and then, as a prefill
// interrupts decode). The interval from sectioning (EstimateSectioned over
// per-batch medians, batched by the plan of the per-second medians) must
// hold the median of a run 200 times as long in 93–97 % of windows.
// Deterministic: no clock, a fixed seed.
func TestSectionedCoverage(t *testing.T) {
	gaps := func(r *rand.Rand, n, perS int, phi float64) [][]float64 {
		out := make([][]float64, n)
		e := r.NormFloat64() * 0.03 / math.Sqrt(1-phi*phi)
		for i := range out {
			e = phi*e + r.NormFloat64()*0.03
			out[i] = make([]float64, perS)
			for j := range out[i] {
				g := 10 * math.Exp(e) * (1 + 0.1*r.NormFloat64())
				if r.Float64() < 0.3 {
					g *= 1.4 // the second mode
				}
				out[i][j] = g
			}
		}
		return out
	}
	medianOf := func(v []float64) float64 {
		s := slices.Clone(v)
		slices.Sort(s)
		return Quantile(s, 0.5)
	}
	for _, c := range []struct {
		name      string
		n, perS   int
		phi       float64
		minCover  float64
		maxCovers float64
	}{
		{"independent seconds, 10 s", 10, 100, 0, 0.93, 0.985},
		{"AR(1) φ=0.5, 30 s", 30, 100, 0.5, 0.93, 0.985},
		{"AR(1) φ=0.5, 12 s, few gaps", 12, 20, 0.5, 0.90, 0.985},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(31, uint64(c.n)))
			truth := medianOf(slices.Concat(gaps(r, 200*c.n, c.perS, c.phi)...))
			hit := 0
			const windows = 1000
			for range windows {
				g := gaps(r, c.n, c.perS, c.phi)
				perSecond := make([]float64, c.n)
				for i := range g {
					perSecond[i] = medianOf(g[i])
				}
				b, rho := BatchPlan(perSecond)
				var secs []float64
				for _, s := range Sections(c.n, b) {
					secs = append(secs, medianOf(slices.Concat(g[s[0]:s[1]]...)))
				}
				whole := medianOf(slices.Concat(g...))
				p := EstimateSectioned(whole, secs, b, rho, c.n)
				if math.Abs(whole-truth) <= p.RelCI95*whole {
					hit++
				}
			}
			cover := float64(hit) / windows
			t.Logf("sectioned median: %.3f of %d windows hold the long run's median", cover, windows)
			if cover < c.minCover || cover > c.maxCovers {
				t.Errorf("coverage %.3f, want %.2f–%.3f", cover, c.minCover, c.maxCovers)
			}
		})
	}
}

// renewal is one stream of GuideLLM's mock server at 5 ms ± 1.5 ms
// between tokens (normal), in requests of 512 tokens with 54 ms between
// one request's last token and the next one's first: tokens a second,
// from a random phase. Its seconds dip as requests end, at a period of
// 2.7 s that no lag-1 correlation sees, and its mean is whatever the
// long run's is (the coverage below is of the mean of all windows).
func renewal(r *rand.Rand, n int) ([]float64, float64) {
	x := make([]float64, n)
	t := -3000 * r.Float64() // ms
	k := r.IntN(512)
	for t < float64(n)*1000 {
		if k == 512 {
			k, t = 0, t+54
		}
		t += max(0.1, 5+1.5*r.NormFloat64())
		k++
		if t > 0 && t < float64(n)*1000 {
			x[int(t/1000)]++
		}
	}
	return x, 0
}

// TestRenewalIntervals: at one stream of a server whose gaps vary by
// ±30 %, the interval of total tok/s covers the mean of 1,000 windows at
// least as often as a 95 % interval should, and is at most twice as wide
// as one from the true spread of the windows' means (it is 1.4–1.8 times
// as wide: the dips of requests' ends read as noise, and few degrees of
// freedom pay Student's t). Logged: what it costs an adaptive window.
func TestRenewalIntervals(t *testing.T) {
	for _, n := range []int{6, 10, 15, 30} {
		r := rand.New(rand.NewPCG(3, uint64(n)))
		var means, widths []float64
		for range 1000 {
			x, _ := renewal(r, n)
			means, widths = append(means, meanOf(x)), append(widths, EstimatePrecision(x, 1).RelCI95)
		}
		m, sd, hit := meanCover(means, widths)
		slices.Sort(widths)
		ideal := 1.96 * sd / m
		t.Logf("%d s: window means spread %.2f %% (a known-variance ±%.2f %%), median ± %.2f %% (%.1f×), %d of 1,000 cover",
			n, 100*sd/m, 100*ideal, 100*widths[500], widths[500]/ideal, hit)
		if hit < 930 || widths[500] > 2*ideal {
			t.Errorf("%d s: %d of 1,000 cover, median ± %.2f %% against %.2f %%: want at least 930, and at most twice", n, hit, 100*widths[500], 100*ideal)
		}
	}
}

// meanCover is the mean of windows' means and their spread (sd), and how
// many of the windows' relative half-widths hold that mean.
func meanCover(means, widths []float64) (m, sd float64, hit int) {
	m, sd = meanOf(means), math.Sqrt(sampleVariance(means))
	for i := range means {
		if math.Abs(means[i]-m) <= widths[i]*means[i] {
			hit++
		}
	}
	return m, sd, hit
}

// TestStoppingRule compares the adaptive window's rule (Stopper: two
// checks in a row) with one check, over 1,000 runs of 30 s each: the mean
// window, and how often the interval at the end holds the mean of all
// runs. Two checks must not cover less. Logged for METHODOLOGY.
func TestStoppingRule(t *testing.T) {
	scaled := func(gen synthetic, f float64) synthetic {
		return func(r *rand.Rand, n int) ([]float64, float64) {
			x, mu := gen(r, n)
			for i := range x {
				x[i] = 1000 + (x[i]-1000)*f
			}
			return x, mu
		}
	}
	sum := func(gen synthetic, k int) synthetic {
		return func(r *rand.Rand, n int) ([]float64, float64) {
			x, _ := gen(r, n)
			for range k - 1 {
				y, _ := gen(r, n)
				for i := range x {
					x[i] += y[i]
				}
			}
			return x, 0
		}
	}
	for _, c := range []struct {
		name string
		gen  synthetic
	}{{"renewal, 1 stream", renewal}, {"renewal, 4 streams", sum(renewal, 4)},
		{"AR(1) φ=0.5", scaled(ar1(0.5), 0.8)}, {"AR(1) φ=0.8", scaled(ar1(0.8), 0.3)}} {
		var cover [2]float64
		for twice := range 2 {
			r := rand.New(rand.NewPCG(5, 9))
			var xs, ws, lens []float64
			for range 1000 {
				x, _ := c.gen(r, 30)
				w := len(x)
				var stop Stopper
				for n := 4; n < len(x); n++ {
					p := EstimatePrecision(x[:n], 1)
					check := CellPrecision{TotalTokPerSec: p, Target: 0.01, Drift: EstimateDrift(x[:n], 1)}
					done := check.Ends() && n >= 5
					if twice == 1 {
						done = stop.Done(check)
					}
					if done {
						w = n
						break
					}
				}
				xs, ws, lens = append(xs, meanOf(x[:w])), append(ws, EstimatePrecision(x[:w], 1).RelCI95), append(lens, float64(w))
			}
			m := meanOf(xs)
			for i := range xs {
				if math.Abs(xs[i]-m) <= ws[i]*xs[i] {
					cover[twice]++
				}
			}
			t.Logf("%s, %s: mean window %.1f s, %.0f of 1,000 intervals hold the mean", c.name, []string{"one check", "two checks in a row"}[twice], meanOf(lens), cover[twice])
		}
		if cover[1] < cover[0]-10 {
			t.Errorf("%s: two checks in a row cover %.0f, one check %.0f: want no fewer", c.name, cover[1], cover[0])
		}
	}
}
