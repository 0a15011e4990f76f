package shell

import (
	"strings"
	"testing"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

// TestCellDetailsPrecision: a cell's details give the ± of its headline
// figures as report.md does (total tok/s in its line, the medians of ITL
// and per-request tok/s after their p50), a dash where the window was too
// short to tell, and nothing for a report without precision.
func TestCellDetailsPrecision(t *testing.T) {
	known := func(rel float64) engine.Precision {
		return engine.Precision{RelCI95: rel, Buckets: 30, Batches: 10, Method: "batch means"}
	}
	tooShort := engine.Precision{Buckets: 3, Unknown: "3 one-second buckets: too few to estimate"}
	r := sloCell(8*engine.K, 32, 1500, 65, 9000)
	r.TotalTokPerSec = 1237.5
	r.PerRequestPct = engine.Percentiles{P50: 41.2, P90: 45, P99: 47.1, N: 420}
	for _, c := range []struct {
		name      string
		precision *engine.CellPrecision
		want      []string
		not       []string
	}{
		{"known", &engine.CellPrecision{TotalTokPerSec: known(0.004), PerRequestTokPerSec: known(0.0123), ITLMs: known(0.00004)},
			[]string{"1,237.5 tok/s ± 0.4 % ·", "ITL: p50 32.5 ms ± <0.1 % · p90", "Per request tok/s: p50 41.2 ± 1.2 % · p90", "TTFT: p50 750 ms · p90"}, nil},
		{"too short", &engine.CellPrecision{TotalTokPerSec: tooShort, PerRequestTokPerSec: tooShort, ITLMs: tooShort},
			[]string{"1,237.5 tok/s ± — ·", "ITL: p50 32.5 ms ± — · p90", "Per request tok/s: p50 41.2 ± — · p90"}, nil},
		{"older report", nil, []string{"1,237.5 tok/s ·", "ITL: p50 32.5 ms · p90"}, []string{"±"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.Precision = c.precision
			got := appwidget.CellDetails(r, engine.SLO{})
			for _, want := range c.want {
				if !strings.Contains(got, want) {
					t.Errorf("details lack %q:\n%s", want, got)
				}
			}
			for _, not := range c.not {
				if strings.Contains(got, not) {
					t.Errorf("details have %q:\n%s", not, got)
				}
			}
		})
	}
}

// TestCellDetailsPrefillRepeats: a prefill cell's details say what its
// figure is the median of, and each request's TTFT; a single request's
// say neither.
func TestCellDetailsPrefillRepeats(t *testing.T) {
	pre := engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 8 * engine.K, Concurrency: 1}, Status: engine.StatusValid,
		TotalTokPerSec: 19980.5, TTFTMs: 410, PrefillRepeats: 3, PrefillSpreadPct: 22.2,
		Requests: []engine.RequestSample{{TTFTMs: 400}, {TTFTMs: 500}, {TTFTMs: 410}}}
	single := pre
	single.PrefillRepeats, single.PrefillSpreadPct, single.Requests = 1, 0, pre.Requests[:1]
	for _, c := range []struct {
		name string
		r    engine.Result
		want string
	}{
		{"median of 3", pre, "Prefill 8K × 1: Valid · 20K prompt tok/s (median of 3, spread 22.2 %) · TTFT 410 ms\n" +
			"TTFT of each request, in the order sent: 400 ms · 500 ms · 410 ms"},
		{"one request", single, "Prefill 8K × 1: Valid · 20K prompt tok/s · TTFT 410 ms"},
	} {
		if got := appwidget.CellDetails(c.r, engine.SLO{}); got != c.want {
			t.Errorf("%s: details\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}
