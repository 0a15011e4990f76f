package quality

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// probs is a TopK from token → probability, for tables written in
// probabilities (0 is a logprob of −Inf).
func probs(m map[int]float64) TopK {
	lp := make(map[int]float64, len(m))
	for id, p := range m {
		lp[id] = math.Log(p)
	}
	return NewTopK(lp)
}

// TestCompareHandComputed checks each figure against values worked by
// hand (docs/METHODOLOGY.md, "Quality", gives the formula).
func TestCompareHandComputed(t *testing.T) {
	ln := math.Log
	for _, tc := range []struct {
		name      string
		ref, cand TopK
		k         int
		want      PositionDrift
	}{
		{"identical", probs(map[int]float64{1: .5, 2: .3, 3: .1}), probs(map[int]float64{1: .5, 2: .3, 3: .1}), 3,
			PositionDrift{Top1: true, KLD: 0, DP: 0, SameTokens: true}},
		{"same tokens, other masses; the tie goes to the lower id", probs(map[int]float64{1: .5, 2: .3, 3: .1}), probs(map[int]float64{1: .4, 2: .4, 3: .1}), 3,
			PositionDrift{Top1: true, KLD: .5*ln(.5/.4) + .3*ln(.3/.4), DP: -.1, SameTokens: true}},
		{"top token changes", probs(map[int]float64{1: .5, 2: .3}), probs(map[int]float64{1: .3, 2: .5}), 2,
			PositionDrift{Top1: false, KLD: .5*ln(.5/.3) + .3*ln(.3/.5), DP: -.2, SameTokens: true}},
		// each side gives the other's tokens min(its k-th, tail/m): 0.05 each, no tail left
		{"disjoint", probs(map[int]float64{1: .6, 2: .3}), probs(map[int]float64{3: .5, 4: .4}), 2,
			PositionDrift{Top1: false, KLD: .6*ln(.6/.05) + .3*ln(.3/.05) + .05*ln(.05/.5) + .05*ln(.05/.4), DP: .05 - .6}},
		// the candidate gives token 2 its k-th (0.1), under its tail (0.3); the reference gives token 3 all its tail (0.2)
		{"partial overlap, capped by the k-th", probs(map[int]float64{1: .5, 2: .3}), probs(map[int]float64{1: .6, 3: .1}), 2,
			PositionDrift{Top1: true, KLD: .5*ln(.5/.6) + .3*ln(.3/.1) + .2*ln(.2/.1), DP: .1}},
		// fills 0.1 and 0.2 leave tail buckets of 0.2 and 0.1
		{"partial overlap, tail kept", probs(map[int]float64{1: .6, 2: .1}), probs(map[int]float64{1: .5, 3: .2}), 2,
			PositionDrift{Top1: true, KLD: .6*ln(.6/.5) + .1*ln(.1/.2) + .1*ln(.1/.2) + .2*ln(.2/.1), DP: -.1}},
		{"-Inf in the reference: no mass, no term", probs(map[int]float64{1: 1, 2: 0}), probs(map[int]float64{1: .9, 2: .1}), 2,
			PositionDrift{Top1: true, KLD: ln(1 / .9), DP: -.1, SameTokens: true}},
		{"-Inf in the candidate where the reference has mass: MinProb", probs(map[int]float64{1: .5, 2: .5}), probs(map[int]float64{1: 1, 2: 0}), 2,
			PositionDrift{Top1: true, KLD: .5*ln(.5) + .5*ln(.5/MinProb), DP: .5, SameTokens: true}},
		{"vLLM's extra (k+1-th) entry is cut", probs(map[int]float64{1: .5, 2: .3, 9: .01}), probs(map[int]float64{1: .5, 2: .3, 8: .02}), 2,
			PositionDrift{Top1: true, KLD: 0, DP: 0, SameTokens: true}},
		{"sums just past 1 are scaled", probs(map[int]float64{1: .6004, 2: .4}), probs(map[int]float64{1: .6, 2: .4}), 2,
			PositionDrift{Top1: true, KLD: 0, DP: 0, SameTokens: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Compare(tc.ref, tc.cand, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if got.Top1 != tc.want.Top1 || got.SameTokens != tc.want.SameTokens ||
				math.Abs(got.KLD-tc.want.KLD) > 1e-4 || math.Abs(got.DP-tc.want.DP) > 1e-3 {
				t.Errorf("Compare = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestCompareIdenticalIsExactlyZero: a server against itself is 0, not
// a rounding error that a floor would show as drift.
func TestCompareIdenticalIsExactlyZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		tk := randomTopK(rng, 40, 20)
		d, err := Compare(tk, tk, 20)
		if err != nil || d.KLD != 0 || d.DP != 0 || !d.Top1 || !d.SameTokens {
			t.Fatalf("Compare(x, x) = %+v, %v; want exactly 0 and agreeing", d, err)
		}
	}
}

// TestCompareRefuses: NaN, +Inf and positive logprobs, too short a list (K
// mismatch), k out of range, a token twice, sums past 1.
func TestCompareRefuses(t *testing.T) {
	good := probs(map[int]float64{1: .5, 2: .3})
	for _, tc := range []struct {
		name      string
		ref, cand TopK
		k         int
		want      error
		side      string
	}{
		{"NaN", good, TopK{{1, math.NaN()}, {2, -1}}, 2, ErrLogprob, "candidate"},
		{"+Inf", TopK{{1, math.Inf(1)}, {2, -1}}, good, 2, ErrLogprob, "reference"},
		{"positive", good, TopK{{1, 0.5}, {2, -1}}, 2, ErrLogprob, "candidate"},
		{"K mismatch", good, probs(map[int]float64{1: .5}), 2, ErrShortTopK, "candidate"},
		{"k 0", good, good, 0, ErrK, ""},
		{"k 21", good, good, 21, ErrK, ""},
		{"a token twice", TopK{{1, -1}, {1, -2}}, good, 2, ErrDuplicate, "reference"},
		{"sum 1.5", probs(map[int]float64{1: .9, 2: .6}), good, 2, ErrMass, "reference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compare(tc.ref, tc.cand, tc.k)
			if !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), tc.side) {
				t.Errorf("Compare = %v, want %v about the %s", err, tc.want, tc.side)
			}
		})
	}
}

// TestCompareLowerBound: when both lists name the same tokens, the KLD is
// at most the full-vocabulary KL divergence (the chain rule), and equals
// it when k covers the vocabulary.
func TestCompareLowerBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		vocab := 20 + rng.IntN(30)
		p, q := randomDist(rng, vocab), randomDist(rng, vocab)
		for j := range q { // a nearby candidate, so that the top-K often agree
			q[j] = 0.9*p[j] + 0.1*q[j]
		}
		k := 1 + rng.IntN(20)
		if i%10 == 0 {
			vocab, k = 20, 20
			p, q = p[:20], q[:20]
			normalize(p)
			normalize(q)
		}
		d, err := Compare(topOf(p, k), topOf(q, k), k)
		if err != nil {
			t.Fatal(err)
		}
		full := fullKL(p, q)
		if d.SameTokens && d.KLD > full+1e-9 {
			t.Fatalf("vocab %d k %d: KLD %.6g above the full KL %.6g", vocab, k, d.KLD, full)
		}
		if k == vocab && math.Abs(d.KLD-full) > 1e-9 {
			t.Fatalf("k covers the vocabulary: KLD %.9g, full KL %.9g", d.KLD, full)
		}
	}
}

// TestCompareProbe: positions compared in order; lengths must agree.
func TestCompareProbe(t *testing.T) {
	a, b := probs(map[int]float64{1: .9, 2: .1}), probs(map[int]float64{1: .1, 2: .9})
	d, err := CompareProbe([]TopK{a, a}, []TopK{a, b}, 2)
	if err != nil || len(d) != 2 || !d[0].Top1 || d[1].Top1 {
		t.Fatalf("CompareProbe = %+v, %v", d, err)
	}
	if _, err := CompareProbe([]TopK{a, a}, []TopK{a}, 2); !errors.Is(err, ErrPositions) {
		t.Errorf("one position short: %v, want ErrPositions", err)
	}
	if _, err := CompareProbe([]TopK{a, a}, []TopK{a, {{1, math.NaN()}, {2, -1}}}, 2); err == nil || !strings.HasPrefix(err.Error(), "position 2: candidate") {
		t.Errorf("a NaN at position 2: %v", err)
	}
}

func randomDist(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = math.Exp(3 * rng.NormFloat64())
	}
	normalize(p)
	return p
}

func normalize(p []float64) {
	s := 0.0
	for _, v := range p {
		s += v
	}
	for i := range p {
		p[i] /= s
	}
}

func topOf(p []float64, k int) TopK {
	all := make(map[int]float64, len(p))
	for i, v := range p {
		all[i] = math.Log(v)
	}
	return NewTopK(all)[:k]
}

func fullKL(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		if p[i] > 0 {
			s += p[i] * math.Log(p[i]/q[i])
		}
	}
	return s
}

func randomTopK(rng *rand.Rand, vocab, k int) TopK { return topOf(randomDist(rng, vocab), k) }
