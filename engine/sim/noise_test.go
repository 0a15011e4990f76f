package sim

import (
	"flag"
	"math"
	"slices"
	"strings"
	"testing"
)

var noiseAllFlag = flag.Bool("noise-all", false, "estimate the precision window of every Valid reference cell, not only the chosen ones")

// TestNoiseIsMeanPreserving stretches a long run of steps with settings far
// larger than any profile's, so that a bias (a factor whose mean is not 1,
// hiccups not paid for) would show, and checks that the total time is kept
// while the steps do vary.
func TestNoiseIsMeanPreserving(t *testing.T) {
	const stepS, steps = 0.01, 200_000
	tests := []struct {
		name    string
		n       Noise
		minSpan float64 // least relative spread of step times
	}{
		{"jitter", Noise{StepJitter: 0.3}, 0.25},
		{"drift", Noise{Drift: 0.3, DriftTimeS: 0.05}, 0.25},
		{"hiccups", Noise{HiccupsPerS: 5, HiccupS: 0.01}, 0.05},
		{"all", Noise{StepJitter: 0.2, Drift: 0.2, DriftTimeS: 0.1, HiccupsPerS: 5, HiccupS: 0.01}, 0.2},
	}
	for _, p := range Profiles() {
		tests = append(tests, struct {
			name    string
			n       Noise
			minSpan float64
		}{p.Name, p.Noise, 0.005})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := newNoiseState(tt.n, 1)
			var sum, sumSq float64
			for range steps {
				d := ns.stretch(stepS)
				sum += d / stepS
				sumSq += (d / stepS) * (d / stepS)
			}
			mean := sum / steps
			sd := math.Sqrt(sumSq/steps - mean*mean)
			if math.Abs(mean-1) > 0.01 {
				t.Errorf("mean step factor %.4f, want 1 ± 0.01", mean)
			}
			if sd < tt.minSpan {
				t.Errorf("step factors spread by %.4f, want at least %.3f: the noise does nothing", sd, tt.minSpan)
			}
			t.Logf("mean %.5f, sd %.4f", mean, sd)
		})
	}
}

// TestNoiseOff checks that the zero Noise leaves every step its modelled
// time, and that a profile with noise does not.
func TestNoiseOff(t *testing.T) {
	if ns := newNoiseState(Noise{}, 7); ns != nil {
		t.Fatalf("Noise{} draws noise: %+v", ns)
	}
	p, _ := LookupProfile("gemma-4-e2b-rtxpro6000")
	for _, on := range []bool{false, true} {
		q := p
		if !on {
			q.Noise = Noise{}
		}
		c := newCore(q)
		c.submit(harnessSeq(q, harnessPrompt(1000, 1, 0), 8), 0)
		got := c.plan(1) // the request left the front end; its prefill is planned
		want := c.stepCostS(0)
		if exact := got == want; exact == on || want <= 0 {
			t.Errorf("noise on = %v: step of %g s, modelled %g s", on, got, want)
		}
	}
}

// TestNoiseIsSeeded: the same profile and seed give the same run in
// virtual time; another seed another run.
func TestNoiseIsSeeded(t *testing.T) {
	p, _ := LookupProfile("gemma-4-26b-a4b-nvfp4-rtx3090")
	a := virtualDecodeSeed(p, 0, 8, 8192, 20, 3)
	b := virtualDecodeSeed(p, 0, 8, 8192, 20, 3)
	c := virtualDecodeSeed(p, 0, 8, 8192, 20, 4)
	if !slices.Equal(a.BucketTokens, b.BucketTokens) {
		t.Errorf("seed 3 twice: %v and %v", a.BucketTokens, b.BucketTokens)
	}
	if slices.Equal(a.BucketTokens, c.BucketTokens) {
		t.Errorf("seeds 3 and 4 gave the same run: %v", a.BucketTokens)
	}
}

// TestNoiseKeepsCellRates runs reference cells for long windows with and
// without noise: the noise must not move a cell's mean rate (the agreement
// with the reference reports rests on it).
func TestNoiseKeepsCellRates(t *testing.T) {
	for _, tt := range []struct {
		profile        string
		ctx, conc, out int
	}{
		{"gemma-4-e2b-rtxpro6000", 8192, 1, 4096},
		{"gemma-4-e2b-rtxpro6000", 65536, 64, 4096},
		{"gemma-4-26b-a4b-nvfp4-rtx3090", 0, 32, 8192},
	} {
		p, _ := LookupProfile(tt.profile)
		exact := p
		exact.Noise = Noise{}
		want := virtualDecode(exact, tt.ctx, tt.conc, tt.out, 200).TokPerSec
		got := virtualDecodeSeed(p, tt.ctx, tt.conc, tt.out, 200, 11).TokPerSec
		t.Logf("%s %d×%d: %.1f tok/s exact, %.1f with noise (%+.2f%%)", tt.profile, tt.ctx, tt.conc, want, got, 100*(got/want-1))
		if math.Abs(got/want-1) > 0.005 {
			t.Errorf("%s %d×%d: noise moved the rate from %.1f to %.1f tok/s", tt.profile, tt.ctx, tt.conc, want, got)
		}
	}
}

func TestNoiseValidate(t *testing.T) {
	p, _ := LookupProfile("tiny")
	for _, tt := range []struct {
		n    Noise
		want string // in the error; "" for none
	}{
		{Noise{}, ""},
		{p.Noise, ""},
		{Noise{StepJitter: -0.1}, "≥ 0"},
		{Noise{StepJitter: math.NaN()}, "≥ 0"},
		{Noise{HiccupS: math.Inf(1)}, "≥ 0"},
		{Noise{Drift: 0.01}, "DriftTimeS"},
		{Noise{HiccupsPerS: 1}, "HiccupS"},
	} {
		q := p
		q.Noise = tt.n
		err := q.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: %v, want an error naming %q", tt.n, err, tt.want)
		}
	}
}
