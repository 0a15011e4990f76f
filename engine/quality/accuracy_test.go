package quality

import (
	"errors"
	"math"
	"testing"
)

// TestWilson against intervals worked from the formula (and matching
// published tables, e.g. 19/20: 0.764–0.991).
func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{19, 20, 0.7639, 0.9911},
		{12, 20, 0.3866, 0.7812},
		{20, 20, 0.8389, 1},
		{0, 10, 0, 0.2775},
		{50, 100, 0.4038, 0.5962},
		{0, 0, 0, 1},
		{25, 20, 0.8389, 1}, // clamped to 20 of 20
	} {
		got := Wilson(tc.k, tc.n)
		if math.Abs(got.Lo-tc.lo) > 1e-4 || math.Abs(got.Hi-tc.hi) > 1e-4 {
			t.Errorf("Wilson(%d, %d) = %.4f–%.4f, want %.4f–%.4f", tc.k, tc.n, got.Lo, got.Hi, tc.lo, tc.hi)
		}
	}
}

// TestMcNemarIssueExample: the issue's "8K: 19/20 → 12/20, p = 0.016":
// 19 right before, 7 of them lost after, none gained.
func TestMcNemarIssueExample(t *testing.T) {
	before, after := make([]bool, 20), make([]bool, 20)
	for i := range 19 {
		before[i] = true
		after[i] = i >= 7
	}
	p, err := McNemar(before, after)
	if err != nil {
		t.Fatal(err)
	}
	if p.Before() != 19 || p.After() != 12 || p.Items() != 20 || p.BeforeOnly != 7 || p.AfterOnly != 0 {
		t.Fatalf("McNemar = %+v, want 19 → 12 with 7 and 0 discordant", p)
	}
	if math.Abs(p.P-0.015625) > 1e-12 || math.Round(p.P*1000)/1000 != 0.016 {
		t.Errorf("p = %v, want 2/2⁷ = 0.015625 (0.016)", p.P)
	}
}

// TestMcNemarP against exact values: 2·Σ C(n,i)/2ⁿ worked in fractions.
func TestMcNemarP(t *testing.T) {
	for _, tc := range []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},
		{5, 5, 1},
		{1, 0, 1},
		{10, 2, 2 * (1 + 12 + 66) / 4096.0},
		{2, 10, 2 * (1 + 12 + 66) / 4096.0},
		{7, 0, 2 / 128.0},
		{20, 0, 2 / 1048576.0},
		{600, 400, 2.7284641560660184e-10},
		{1600, 1400, 0.0002785639610392337}, // 2³⁰⁰⁰ and C(3000, i) are past float64's range: summed in logs
	} {
		got := mcnemarP(tc.b, tc.c)
		if math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("p(%d, %d) = %.6g, want %.6g", tc.b, tc.c, got, tc.want)
		}
	}
	if _, err := McNemar([]bool{true}, nil); !errors.Is(err, ErrUnpaired) {
		t.Errorf("unpaired runs: %v", err)
	}
}
