package engine

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParsePrecision: a target is a percentage or off, and FormatPrecision
// writes what ParsePrecision reads.
func TestParsePrecision(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  string
	}{
		{"1%", 0.01, ""}, {" 0.5 % ", 0.005, ""}, {"off", 0, ""}, {"OFF", 0, ""},
		{"1", 0, "give a percentage such as 1%"}, {"", 0, "is not a precision"}, {"x%", 0, "is not a precision"},
	} {
		got, err := ParsePrecision(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParsePrecision(%q) error %v, want one saying %q", c.in, err, c.err)
		case c.err == "" && (err != nil || math.Abs(got-c.want) > 1e-12):
			t.Errorf("ParsePrecision(%q) = %g, %v; want %g", c.in, got, err, c.want)
		case c.err == "":
			if back, _ := ParsePrecision(FormatPrecision(got)); math.Abs(back-got) > 1e-12 {
				t.Errorf("FormatPrecision(%g) = %q reads back as %g", got, FormatPrecision(got), back)
			}
		}
	}
}

// TestPrecisionBounds: the plan check and a loaded report's bounds refuse
// a target no window reaches or that measures nothing, NaN included; off
// (0) is always fine; a window no longer than the minimum warns.
func TestPrecisionBounds(t *testing.T) {
	p := DefaultPlan()
	for _, v := range []float64{0, 0.001, 0.01, 0.5} {
		p.Precision = v
		if err := ValidatePlan(p, Limits{}); err != nil {
			t.Errorf("precision %g: %v", v, err)
		}
	}
	for _, v := range []float64{-0.01, 0.0001, 0.6, math.NaN(), math.Inf(1)} {
		p.Precision = v
		err := ValidatePlan(p, Limits{})
		if err == nil || !strings.Contains(err.Error(), "precision: ") || !strings.Contains(err.Error(), "or off for fixed windows") {
			t.Errorf("precision %g: %v, want a precision problem", v, err)
		}
		if bad := planBounds(p); len(bad) == 0 || bad[len(bad)-1].Field != FieldPrecision {
			t.Errorf("precision %g: bounds %v, want a precision problem", v, bad)
		}
	}
	p.Precision, p.Duration = 0.01, 5*time.Second
	if ws := PlanWarnings(p, Limits{}); len(ws) == 0 || ws[len(ws)-1].Field != FieldPrecision {
		t.Errorf("a 5-s adaptive window: warnings %v, want one about precision", ws)
	}
}

// TestReached: a target is reached when total tok/s is known to it,
// whatever the medians' ± (they don't hold a window); a fixed window
// reaches and misses nothing; a moving rate doesn't end a window.
func TestReached(t *testing.T) {
	k := func(rel float64) Precision {
		return Precision{RelCI95: rel, Buckets: 10, Batches: 5, Method: "batch means"}
	}
	for _, c := range []struct {
		name            string
		c               CellPrecision
		reached, missed bool
	}{
		{"fixed", CellPrecision{TotalTokPerSec: k(0.001), PerRequestTokPerSec: k(0.001), ITLMs: k(0.001)}, false, false},
		{"all within", CellPrecision{TotalTokPerSec: k(0.01), PerRequestTokPerSec: k(0.005), ITLMs: k(0.002), Target: 0.01}, true, false},
		{"medians wide", CellPrecision{TotalTokPerSec: k(0.005), PerRequestTokPerSec: k(0.03), ITLMs: k(0.2), Target: 0.01}, true, false},
		{"total wide", CellPrecision{TotalTokPerSec: k(0.011), PerRequestTokPerSec: k(0.005), ITLMs: k(0.005), Target: 0.01}, false, true},
		{"total unknown", CellPrecision{TotalTokPerSec: Precision{Unknown: "too few"}, PerRequestTokPerSec: k(0.005), ITLMs: k(0.005), Target: 0.01}, false, true},
	} {
		if c.c.Reached() != c.reached || c.c.Missed() != c.missed || c.c.Ends() != c.reached {
			t.Errorf("%s: reached %v missed %v ends %v, want %v %v %v", c.name, c.c.Reached(), c.c.Missed(), c.c.Ends(), c.reached, c.missed, c.reached)
		}
	}
	moving := CellPrecision{TotalTokPerSec: k(0.005), PerRequestTokPerSec: k(0.005), Target: 0.01,
		Drift: &Drift{RelPer10s: -0.019, RelCI95: 0.01, Batches: 6}}
	if !moving.Reached() || moving.Ends() {
		t.Errorf("moving: reached %v, ends %v; want reached, not ending", moving.Reached(), moving.Ends())
	}
	moving.Drift.RelCI95 = 0.02 // within its noise
	if !moving.Ends() {
		t.Error("a slope within its noise: the window does not end, want it to")
	}
	var stop Stopper
	ends := CellPrecision{TotalTokPerSec: k(0.005), PerRequestTokPerSec: k(0.005), Target: 0.01}
	wide := CellPrecision{TotalTokPerSec: k(0.02), PerRequestTokPerSec: k(0.005), Target: 0.01}
	var got []bool
	for _, c := range []CellPrecision{ends, wide, ends, ends} {
		got = append(got, stop.Done(c))
	}
	if !slices.Equal(got, []bool{false, false, false, true}) {
		t.Errorf("Stopper over ends, wide, ends, ends: %v, want the window to end at the second check in a row only", got)
	}
	// A width of exactly 0 is reached but does not end a window: identical
	// buckets say the buckets' resolution was reached, not the figure's.
	zero := CellPrecision{TotalTokPerSec: k(0), PerRequestTokPerSec: k(0.005), ITLMs: k(0.005), Target: 0.01}
	if !zero.Reached() || zero.Ends() || k(0).Reaches(0.01) || !k(0.01).Reaches(0.01) {
		t.Errorf("zero width: reached %v, ends %v; want reached, not ending", zero.Reached(), zero.Ends())
	}
}
