package measure

import (
	"fmt"
	"math"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
)

// TestAdaptiveWindows runs the same small matrix on the noisy tiny
// simulator with fixed windows and with adaptive ones. A fixed window is
// exactly the plan's duration, as before adaptive windows. An adaptive one
// is a whole number of seconds from MinAdaptiveWindow to the duration, and
// ends early only with total tok/s known to the target and not moving; its
// figures count only the tokens inside it. Nothing here depends on how
// fast the machine is: a busy machine that makes the figures noisier only
// makes the window longer, up to the duration.
func TestAdaptiveWindows(t *testing.T) {
	t.Parallel()
	const duration = 7 * time.Second
	for _, precision := range []float64{0, engine.DefaultPrecision} {
		// Fixed and adaptive side by side, each on a simulator of its own:
		// the test reads windows and counts, which the other's load on
		// the machine cannot change, in half the wall time.
		t.Run(fmt.Sprintf("precision %g", precision), func(t *testing.T) {
			t.Parallel()
			testAdaptiveWindows(t, precision, duration)
		})
	}
}

// testAdaptiveWindows is TestAdaptiveWindows at one precision (0: fixed).
func testAdaptiveWindows(t *testing.T, precision float64, duration time.Duration) {
	srv := simServer(t, sim.Options{TimeScale: 10})
	plan := engine.Plan{DecodeContexts: []int{1 * engine.K}, Concurrency: []int{1, 4}, Duration: duration,
		MaxOutputTokens: 4096, API: engine.APIChat, Precision: precision}
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != engine.StatusValid || r.Precision == nil {
			t.Fatalf("precision %g, %s: %s %s, precision %v", precision, r.Key(), r.Status, r.Error, r.Precision)
		}
		c := *r.Precision
		switch {
		case precision == 0 && (r.MeasuredS != duration.Seconds() || c.Target != 0 || c.Reached() || c.Missed()):
			t.Errorf("fixed %s: window %g s, target %g, reached %v: want exactly %g s and no target", r.Key(), r.MeasuredS, c.Target, c.Reached(), duration.Seconds())
		case precision == 0:
		case r.MeasuredS < engine.MinAdaptiveWindow.Seconds() || r.MeasuredS > duration.Seconds() || r.MeasuredS != math.Round(r.MeasuredS):
			t.Errorf("adaptive %s: window %g s, want whole seconds in %s–%s", r.Key(), r.MeasuredS, engine.MinAdaptiveWindow, duration)
		case c.Target != precision:
			t.Errorf("adaptive %s: target %g, want %g", r.Key(), c.Target, precision)
		case r.MeasuredS < duration.Seconds() && !c.Reached():
			t.Errorf("adaptive %s: ended after %g s without reaching ±%g: %+v", r.Key(), r.MeasuredS, precision, c)
		case r.MeasuredS < duration.Seconds() && c.Drift.Moving():
			t.Errorf("adaptive %s: ended after %g s while its rate was moving (%s)", r.Key(), r.MeasuredS, c.Drift.Text())
		}
		// Only tokens inside the window count: the figure is its tokens
		// over its length.
		if got := float64(r.OutputTokens) / r.MeasuredS; math.Abs(got/r.TotalTokPerSec-1) > 0.01 {
			t.Errorf("%s: %d tokens over %g s is %.1f tok/s, the cell says %.1f", r.Key(), r.OutputTokens, r.MeasuredS, got, r.TotalTokPerSec)
		}
	}
	if rep.Plan.Precision != precision {
		t.Errorf("report's plan precision %g, want %g", rep.Plan.Precision, precision)
	}
}

// TestETALearnsAdaptiveWindows: before any cell an adaptive window is
// expected to take a third of the duration (at least the minimum); then
// the mean of the windows measured at the same concurrency, else of all;
// a fixed window is always the duration.
func TestETALearnsAdaptiveWindows(t *testing.T) {
	t.Parallel()
	plan := engine.Plan{DecodeContexts: []int{8 * engine.K}, Concurrency: []int{1, 8, 64}, Duration: 30 * time.Second, Precision: 0.01}
	e := newETAModel(plan, setup{})
	valid := func(n int, windowS float64) engine.Result {
		start := time.Unix(1000, 0)
		return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8 * engine.K, Concurrency: n},
			Status: engine.StatusValid, MeasuredS: windowS, StartedAt: start, FinishedAt: start.Add(seconds(windowS + 2))}
	}
	steps := []struct {
		observe *engine.Result
		n       int
		want    time.Duration
	}{
		{nil, 8, 10 * time.Second},
		{new(valid(1, 6)), 1, 6 * time.Second},
		{nil, 64, 6 * time.Second}, // none at 64 yet: the mean of all
		{new(valid(64, 20)), 64, 20 * time.Second},
		{new(valid(64, 30)), 64, 25 * time.Second},
		{nil, 8, seconds((6 + 20 + 30) / 3.0)},
	}
	for i, s := range steps {
		if s.observe != nil {
			e.observe(*s.observe)
		}
		if got := e.window(s.n); got != s.want {
			t.Errorf("step %d: window at %d = %v, want %v", i, s.n, got, s.want)
		}
	}
	if got := e.estimate(engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8 * engine.K, Concurrency: 64}); got != 25*time.Second+2*time.Second {
		t.Errorf("estimate at 64 = %v, want the window 25 s and the observed 2 s of warm-up and drain", got)
	}
	plan.Precision = 0
	fixed := newETAModel(plan, setup{})
	if got := fixed.window(8); got != plan.Duration {
		t.Errorf("fixed window = %v, want the duration %v", got, plan.Duration)
	}
}
