package quality

import (
	"errors"
	"testing"
)

// drift is a context's figures with the intervals that matter here.
func drift(kld float64, kldCI Interval, top1 float64, top1CI Interval) ContextDrift {
	return ContextDrift{ContextTokens: 8192, Positions: 100, KLDMean: kld, Top1Pct: top1,
		CI: Intervals{KLDMean: kldCI, Top1Pct: top1CI}}
}

// TestJudge: a drift is real only beyond both intervals, on the worse side.
func TestJudge(t *testing.T) {
	floor := drift(0.001, Interval{Lo: 0.0005, Hi: 0.002}, 99.5, Interval{Lo: 99, Hi: 100})
	for _, tc := range []struct {
		name string
		c    ContextDrift
		want Verdict
	}{
		{"at the floor", drift(0.0015, Interval{Lo: 0.001, Hi: 0.003}, 99.4, Interval{Lo: 98.8, Hi: 99.9}), Verdict{}},
		{"KLD above, intervals touching", drift(0.004, Interval{Lo: 0.002, Hi: 0.006}, 99, Interval{Lo: 98.5, Hi: 99.5}), Verdict{}},
		{"KLD above beyond both", drift(0.01, Interval{Lo: 0.0021, Hi: 0.02}, 99, Interval{Lo: 98.5, Hi: 99.5}), Verdict{KLD: true}},
		{"top-1 below beyond both", drift(0.01, Interval{Lo: 0.001, Hi: 0.02}, 96, Interval{Lo: 95, Hi: 98.9}), Verdict{Top1: true}},
		{"better than the floor is no drift", drift(0, Interval{Lo: 0, Hi: 0.0001}, 100, Interval{Lo: 100, Hi: 100}), Verdict{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Judge(tc.c, floor)
			if !ok || got != tc.want || got.Real() != (tc.want.KLD || tc.want.Top1) {
				t.Errorf("Judge = %+v, %v; want %+v", got, ok, tc.want)
			}
		})
	}
	if _, ok := Judge(floor, ContextDrift{}); ok {
		t.Error("judged against a floor without positions")
	}
}

// TestParseBudget: the form and its variants read; each bad item
// is a *BudgetError naming it; String writes what ParseBudget reads.
func TestParseBudget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Budget
		item string // "" when it reads
	}{
		{"kld=0.01,top1=98%", Budget{KLD: 0.01, Top1Pct: 98}, ""},
		{"KLD=0.05; top1=99.5", Budget{KLD: 0.05, Top1Pct: 99.5}, ""},
		{" top1=90% ", Budget{Top1Pct: 90}, ""},
		{"kld=0.02", Budget{KLD: 0.02}, ""},
		{"", Budget{}, "-"},
		{"kld", Budget{}, "kld"},
		{"kl=0.01", Budget{}, "kl=0.01"},
		{"kld=0", Budget{}, "kld=0"},
		{"kld=-1", Budget{}, "kld=-1"},
		{"kld=NaN", Budget{}, "kld=NaN"},
		{"kld=1%", Budget{}, "kld=1%"},
		{"top1=101%", Budget{}, "top1=101%"},
		{"top1=0", Budget{}, "top1=0"},
		{"top1=Inf", Budget{}, "top1=Inf"},
		{"kld=0.01,kld=0.02", Budget{}, "kld=0.02"},
	} {
		got, err := ParseBudget(tc.in)
		var be *BudgetError
		switch {
		case tc.item == "" && (err != nil || got != tc.want):
			t.Errorf("ParseBudget(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		case tc.item == "-" && (!errors.As(err, &be) || be.Item != ""):
			t.Errorf("ParseBudget(%q) = %v; want a *BudgetError about the whole", tc.in, err)
		case tc.item != "" && tc.item != "-" && (!errors.As(err, &be) || be.Item != tc.item):
			t.Errorf("ParseBudget(%q) = %v; want a *BudgetError naming %q", tc.in, err, tc.item)
		}
		if err == nil {
			if back, err := ParseBudget(got.String()); err != nil || back != got {
				t.Errorf("ParseBudget(%q) = %+v, %v; want %+v", got.String(), back, err, got)
			}
		}
	}
	if DefaultBudget().String() != "kld=0.01,top1=98%" {
		t.Errorf("DefaultBudget() = %q", DefaultBudget())
	}
}

// TestBudgetCheck: over the budget counts only where the drift is real;
// without a floor the figures alone decide.
func TestBudgetCheck(t *testing.T) {
	b := DefaultBudget()
	floor := drift(0.001, Interval{Lo: 0.0005, Hi: 0.002}, 99.5, Interval{Lo: 99, Hi: 100})
	noisyFloor := drift(0.02, Interval{Lo: 0.01, Hi: 0.03}, 95, Interval{Lo: 93, Hi: 97})
	for _, tc := range []struct {
		name  string
		c     ContextDrift
		floor ContextDrift
		want  BudgetCheck
	}{
		{"within", drift(0.005, Interval{Lo: 0.004, Hi: 0.006}, 98.5, Interval{Lo: 98, Hi: 99}), floor, BudgetCheck{}},
		{"KLD over, real", drift(0.02, Interval{Lo: 0.015, Hi: 0.03}, 98.5, Interval{Lo: 98, Hi: 99}), floor, BudgetCheck{KLDOver: true}},
		{"top-1 over, real", drift(0.005, Interval{Lo: 0.004, Hi: 0.006}, 93.1, Interval{Lo: 92, Hi: 94}), floor, BudgetCheck{Top1Over: true}},
		{"over, but so is the floor", drift(0.02, Interval{Lo: 0.015, Hi: 0.03}, 96, Interval{Lo: 94, Hi: 97}), noisyFloor, BudgetCheck{}},
		{"over, no floor", drift(0.02, Interval{Lo: 0.015, Hi: 0.03}, 93.1, Interval{Lo: 92, Hi: 94}), ContextDrift{}, BudgetCheck{KLDOver: true, Top1Over: true}},
		{"no positions", ContextDrift{}, floor, BudgetCheck{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.Check(tc.c, tc.floor)
			if got != tc.want || got.Over() != (tc.want.KLDOver || tc.want.Top1Over) {
				t.Errorf("Check = %+v, want %+v", got, tc.want)
			}
		})
	}
	if (Budget{KLD: 0.01}).Check(drift(0.005, Interval{Lo: 0.004, Hi: 0.006}, 50, Interval{Lo: 40, Hi: 60}), floor).Over() {
		t.Error("a budget without top1 bounded top-1")
	}
}

// FuzzParseBudget: ParseBudget never panics, and what it reads, String
// writes back the same.
func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"kld=0.01,top1=98%", "top1=99.5", "kld=1e-3", "kld=,", "=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBudget(s)
		if err != nil {
			return
		}
		if back, err := ParseBudget(b.String()); err != nil || back != b {
			t.Errorf("%q → %+v → %q → %+v, %v", s, b, b.String(), back, err)
		}
	})
}
