package engine

import "testing"

// TestNoisePctFromAFile: a comparison takes a cell's ± as its noise only
// where the ± is Known; an absurd one from a report file someone wrote
// (1e300, which would print as 300 digits in sweep.md's margins) is
// compared as an unknown one, at the Standard plan's target.
func TestNoisePctFromAFile(t *testing.T) {
	for _, c := range []struct {
		rel  float64
		want float64
	}{{0.004, 0.4}, {3.5, 350}, {1e300, UnknownNoisePct}, {-5, UnknownNoisePct}} {
		r := Result{Precision: &CellPrecision{TotalTokPerSec: Precision{RelCI95: c.rel, Buckets: 10, Batches: 5, Method: "batch means"}}}
		if got := NoisePct(r); got != c.want {
			t.Errorf("± %v: noise %v %%, want %v %%", c.rel, got, c.want)
		}
	}
	if got := NoisePct(Result{}); got != UnknownNoisePct {
		t.Errorf("no precision: noise %v %%, want %v %%", got, UnknownNoisePct)
	}
}
