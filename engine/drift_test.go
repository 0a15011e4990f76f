package engine

import (
	"math/rand/v2"
	"testing"
)

// TestDrift: a rate that falls 1.9 % per 10 s says so, in those words; a
// steady one does not, whole steps included; under 5 buckets there is no
// drift to tell.
func TestDrift(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	falling := make([]float64, 20)
	for i := range falling {
		falling[i] = 1000 * (1 - 0.0019*(float64(i)+0.5)) * (1 + 0.002*r.NormFloat64())
	}
	d := EstimateDrift(falling, 0)
	if !d.Moving() || d.Text() != "falling 1.9 % per 10 s" {
		t.Errorf("falling 1.9 %% per 10 s: %+v, %q", d, d.Text())
	}
	steps := []float64{9216, 9216, 9216, 9216, 9216, 9216, 9216, 9216}
	if d := EstimateDrift(steps, 128); d == nil || d.Moving() || d.Text() != "" {
		t.Errorf("identical whole steps: %+v, want a drift that is not moving", d)
	}
	if d := EstimateDrift(steps[:4], 128); d != nil {
		t.Errorf("4 buckets: %+v, want none", d)
	}
	if d := EstimateDrift([]float64{0, 0, 0, 0, 0}, 0); d != nil {
		t.Errorf("a rate of zero: %+v, want none", d)
	}
}

// TestDriftFalseAlarms: of 1,000 steady windows, few read as moving: a
// false alarm holds an adaptive window open a second or two, so it must
// stay near the 5 % of a 95 % interval; at most 10 %, which correlated
// seconds in a window of 10 reach (9 %: a window of 2.5 correlation times
// can't tell a slow stretch from a slope). AR(1) seconds, and seconds
// that dip every fifth as a request ends (GuideLLM's mock server at one
// stream).
func TestDriftFalseAlarms(t *testing.T) {
	dips := func(r *rand.Rand, n int) ([]float64, float64) {
		x := make([]float64, n)
		phase := r.IntN(5)
		for i := range x {
			x[i] = 100 * (1 + 0.02*r.NormFloat64())
			if (i+phase)%5 == 0 {
				x[i] -= 5
			}
		}
		return x, 0
	}
	for _, c := range []struct {
		name string
		gen  synthetic
		n    int
	}{{"AR(1) φ=0.5, 10 s", ar1(0.5), 10}, {"AR(1) φ=0.5, 30 s", ar1(0.5), 30}, {"dips, 12 s", dips, 12}, {"independent, 6 s", ar1(0), 6}} {
		r := rand.New(rand.NewPCG(5, uint64(c.n)))
		moving := 0
		for range 1000 {
			x, _ := c.gen(r, c.n)
			if EstimateDrift(x, 0).Moving() {
				moving++
			}
		}
		t.Logf("%s: %d of 1,000 steady windows read as moving", c.name, moving)
		if moving > 100 {
			t.Errorf("%s: %d of 1,000 steady windows read as moving, want at most 100", c.name, moving)
		}
	}
}
