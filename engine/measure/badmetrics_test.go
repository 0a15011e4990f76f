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
// named, once in the log and on each cell it touched, and the run goes on
// without the idle check, which says it was not done.
func TestBadMetricsValues(t *testing.T) {
	for value, said := range map[string]string{"+Inf": "+Inf", "NaN": "NaN", "1e308": "1e+308", "-3": "-3"} {
		t.Run(value, func(t *testing.T) {
			t.Parallel()
			f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, KVTokens: 1 << 20, BadRunning: value})
			rep, events, err := runAll(t, t.Context(), decodePlan(engine.K, 2, 300*time.Millisecond, 100, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, testOptions())
			if err != nil {
				t.Fatalf("run: %v, want it measured", err)
			}
			bad := "the server's /metrics gave vllm:num_requests_running = " + said
			logged := 0
			for _, ev := range events {
				if ev.Kind == engine.EventLog && ev.Log == bad+": a bad sample, skipped" {
					logged++
				}
			}
			if logged != 1 {
				t.Errorf("%q logged %d times, want once", bad+": a bad sample, skipped", logged)
			}
			if !slices.Contains(rep.Run.Checks, CheckServerMetrics) {
				t.Errorf("checks %q, want the server's metrics used", rep.Run.Checks)
			}
			if !slices.ContainsFunc(rep.Run.Notes, func(n string) bool { return strings.HasPrefix(n, "Idle check not done: ") && strings.Contains(n, bad) }) {
				t.Errorf("notes %q, want the idle check not done, naming the bad sample", rep.Run.Notes)
			}
			r := findResult(t, rep, engine.PhaseDecode)
			i := slices.IndexFunc(r.Flags, func(f engine.Flag) bool { return f.Kind == engine.FlagBadMetrics })
			if r.Status != engine.StatusValid || i < 0 || !strings.HasPrefix(r.Flags[i].Message, bad+": ") || !strings.HasSuffix(r.Flags[i].Message, " bad samples skipped") {
				t.Errorf("cell %s %q, flags %+v: want Valid, flagged %s naming the bad sample", r.Status, r.Error, r.Flags, engine.FlagBadMetrics)
			}
		})
	}
}
