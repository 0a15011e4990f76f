package measure

import (
	"slices"
	"speedmatrix/engine"
	"strings"
	"testing"
	"time"
)

// TestBadMetricsValues: a /metrics whose running gauge no server could
// mean (NaN, infinite, absurd, negative) is neither taken for a page
// without metrics nor for a busy server: every such scrape is skipped and
// named, once in the log and on each cell or rate it touched, and the run
// goes on. The idle check, the drain barrier and the cross-check could not
// be done: the notes say so and why, the Checks line no longer says they
// all ran, and every cell and rate is flagged (†), by one rule for a
// matrix and a load test.
func TestBadMetricsValues(t *testing.T) {
	t.Parallel()
	for value, said := range map[string]string{"+Inf": "+Inf", "NaN": "NaN", "1e308": "1e+308", "-3": "-3"} {
		t.Run(value, func(t *testing.T) {
			t.Parallel()
			bad := "the server's /metrics gave vllm:num_requests_running = " + said
			t.Run("matrix", func(t *testing.T) {
				f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, KVTokens: 1 << 20, BadRunning: value})
				rep, events, err := runAll(t, t.Context(), decodePlan(engine.K, 2, 300*time.Millisecond, 100, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, testOptions())
				if err != nil {
					t.Fatalf("run: %v, want it measured", err)
				}
				checkNotDone(t, rep, events, bad, CheckServerMetrics)
				r := findResult(t, rep, engine.PhaseDecode)
				if r.Status != engine.StatusValid || !flaggedBad(r.Flags, bad) {
					t.Errorf("cell %s %q, flags %+v: want Valid, flagged %s naming the bad sample", r.Status, r.Error, r.Flags, engine.FlagBadMetrics)
				}
			})
			t.Run("load", func(t *testing.T) {
				f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, KVTokens: 1 << 20, BadRunning: value})
				plan := engine.LoadPlan{RatesRPS: []float64{20, 40}, Arrivals: engine.ArrivalsConstant, Requests: 6, InputTokens: engine.TokenRange{Min: 64, Max: 64},
					OutputTokens: engine.TokenRange{Min: 32, Max: 32}, API: engine.APICompletions}
				rep, events, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions())
				if err != nil {
					t.Fatalf("load: %v, want it measured", err)
				}
				checkNotDone(t, rep, events, bad, CheckServerMetricsLoad)
				for _, r := range rep.Load.Results {
					if r.Status != engine.StatusValid || !flaggedBad(r.Flags, bad) {
						t.Errorf("rate %g: %s %q, flags %+v: want Valid, flagged %s naming the bad sample", r.RateRPS, r.Status, r.Error, r.Flags, engine.FlagBadMetrics)
					}
				}
			})
		})
	}
}

// checkNotDone asserts what a run whose /metrics gave only bad samples
// says: the bad sample logged once, the Checks line saying not all the
// checks ran, and a note for each check that could not be done, with why.
func checkNotDone(t *testing.T, rep engine.Report, events []engine.Event, bad, checksLine string) {
	t.Helper()
	logged := 0
	for _, ev := range events {
		if ev.Kind == engine.EventLog && ev.Log == bad+": a bad sample, skipped" {
			logged++
		}
	}
	if logged != 1 {
		t.Errorf("%q logged %d times, want once", bad+": a bad sample, skipped", logged)
	}
	if want := checksLine + checksNotAllDone; !slices.Contains(rep.Run.Checks, want) {
		t.Errorf("checks %q, want %q", rep.Run.Checks, want)
	}
	for _, check := range []string{"Idle check", "Drain barrier", "Cross-check"} {
		if !slices.ContainsFunc(rep.Run.Notes, func(n string) bool { return strings.HasPrefix(n, check+" not done: ") && strings.Contains(n, bad) }) {
			t.Errorf("notes %q, want %q not done, naming the bad sample", rep.Run.Notes, check)
		}
	}
}

// flaggedBad reports whether flags say the bad sample kept the
// cross-check from being done.
func flaggedBad(flags []engine.Flag, bad string) bool {
	i := slices.IndexFunc(flags, func(f engine.Flag) bool { return f.Kind == engine.FlagBadMetrics })
	return i >= 0 && strings.HasPrefix(flags[i].Message, bad+": ") &&
		strings.HasSuffix(flags[i].Message, " bad samples skipped; the cross-check with the server's count could not be done")
}
