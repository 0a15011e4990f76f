package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// known is a Precision the estimator would give: rel over 30 buckets.
func known(rel float64) engine.Precision {
	return engine.Precision{RelCI95: rel, Buckets: 30, Batches: 10, Method: "batch means"}
}

var tooShort = engine.Precision{Buckets: 4, Unknown: "4 one-second buckets: too few to estimate (at least 10)"}

func TestPlusMinus(t *testing.T) {
	for _, c := range []struct {
		name string
		p    engine.Precision
		want string
	}{
		{"known", known(0.004), "± 0.4 %"},
		{"rounds to one decimal", known(0.01849), "± 1.8 %"},
		{"wide", known(0.123), "± 12.3 %"},
		{"rounds to nothing", known(0.00004), "± <0.1 %"},
		{"just rounds up", known(0.0005), "± 0.1 %"},
		{"too short", tooShort, "± —"},
		{"zero value", engine.Precision{}, "± —"},
		{"no method", engine.Precision{RelCI95: 0.01}, "± —"},
		{"infinite", known(math.Inf(1)), "± —"},
		{"not a number", known(math.NaN()), "± —"},
		{"the widest a file may hold", known(1e6), "± 100000000.0 %"},
		{"absurd, from a file written by hand", known(1e300), "± —"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := PlusMinus(c.p); got != c.want {
				t.Errorf("PlusMinus(%+v) = %q, want %q", c.p, got, c.want)
			}
		})
	}
}

// withPrecision is r with total tok/s known to total, per-request tok/s
// and ITL to fixed widths.
func withPrecision(r engine.Result, total engine.Precision) engine.Result {
	r.Precision = &engine.CellPrecision{TotalTokPerSec: total, PerRequestTokPerSec: known(0.006), ITLMs: known(0.003)}
	return r
}

func TestWithPlusMinus(t *testing.T) {
	dec := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode}, Status: engine.StatusValid}
	pre := engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill}, Status: engine.StatusValid}
	failed := withPrecision(dec, known(0.004))
	failed.Status = engine.StatusFailed
	for _, c := range []struct {
		name string
		r    engine.Result
		want string
	}{
		{"known", withPrecision(dec, known(0.004)), "1,237.5 ± 0.4 %"},
		{"too short", withPrecision(dec, tooShort), "1,237.5 ± —"},
		{"older report", dec, "1,237.5"},
		{"prefill", withPrecision(pre, known(0.004)), "1,237.5"},
		{"failed", failed, "1,237.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := WithPlusMinus("1,237.5", c.r, TotalPrecision); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestPrecisionLine(t *testing.T) {
	dec := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode}, Status: engine.StatusValid}
	cells := func(totals ...engine.Precision) []engine.Result {
		var rs []engine.Result
		for _, p := range totals {
			rs = append(rs, withPrecision(dec, p))
		}
		return rs
	}
	for _, c := range []struct {
		name string
		rs   []engine.Result
		want string
	}{
		{"range and median", cells(known(0.018), known(0.002), known(0.006), tooShort), "±: each window's total tok/s known to within ±0.2–1.8 % (95 %), median ±0.6 %"},
		{"even count", cells(known(0.002), known(0.004), known(0.008), known(0.018)), "±: each window's total tok/s known to within ±0.2–1.8 % (95 %), median ±0.6 %"},
		{"one width", cells(known(0.004)), "±: each window's total tok/s known to within ±0.4 % (95 %)"},
		{"none known", cells(tooShort), ""},
		{"older report", []engine.Result{dec}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := PrecisionLine(c.rs); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// precisionReport is the seed report with its decode cells' precision as a
// run of this version records it: known, rounding to nothing, too short to
// tell, and (8K × 1, 128K × 1) absent as in an older report.
func precisionReport() engine.Report {
	r := seedReport()
	for i, res := range r.Results {
		switch {
		case res.Phase != engine.PhaseDecode || !res.Measured():
		case res.ContextTokens == 8192 && res.Concurrency == 8:
			r.Results[i] = withPrecision(res, known(0.004))
		case res.ContextTokens == 8192 && res.Concurrency == 128:
			r.Results[i] = withPrecision(res, known(0.00004))
		case res.ContextTokens == 65536 && res.Concurrency == 8:
			r.Results[i] = withPrecision(res, tooShort)
		case res.ContextTokens == 65536 && res.Concurrency == 128:
			r.Results[i] = withPrecision(res, known(0.0184))
		}
	}
	return r
}

// TestGoldenPrecision: report.md writes each decode cell's ± beside its
// total tok/s with the note that explains it, and results.csv the interval
// in percent, empty where it is unknown.
func TestGoldenPrecision(t *testing.T) {
	r := precisionReport()
	var csv bytes.Buffer
	if err := WriteCSV(&csv, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "precision.results.csv", csv.Bytes())
	md := Markdown(r)
	golden(t, "precision.report.md", []byte(md))
	for _, want := range []string{"| 1,237.5 ± 0.4 % |", `| 9,005.7 ± \<0.1 % |`, "| 839.6 ± — |", "| 167.7 |", NotePlusMinus} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(Markdown(seedReport()), NotePlusMinus) {
		t.Error("report.md explains ± though no cell has one")
	}
}

// adaptiveCell is a Valid decode cell whose window adapted to target and
// took windowS, with the ± of its three headline figures.
func adaptiveCell(n int, windowS, target, total, perRequest, itl float64) engine.Result {
	known := func(rel float64) engine.Precision {
		return engine.Precision{RelCI95: rel, Buckets: int(windowS), Batches: 4, Method: "batch means"}
	}
	return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8 * engine.K, Concurrency: n},
		ContextLabel: "8K", Status: engine.StatusValid, TotalTokPerSec: 1000, MeasuredS: windowS,
		Precision: &engine.CellPrecision{TotalTokPerSec: known(total), PerRequestTokPerSec: known(perRequest), ITLMs: known(itl), Target: target}}
}

// TestWindowText: how an adaptive window ended, after the ± of every
// surface, naming the figure that missed when it is not the one shown.
func TestWindowText(t *testing.T) {
	fixed := adaptiveCell(1, 30, 0, 0.004, 0.004, 0.004)
	cases := []struct {
		name string
		r    engine.Result
		want string
		line string // CellLine's total tok/s part
	}{
		{"fixed", fixed, "", "1,000.0 tok/s ± 0.4 %"},
		{"reached", adaptiveCell(1, 6, 0.01, 0.009, 0.004, 0.01), "in 6 s", "1,000.0 tok/s ± 0.9 % in 6 s"},
		{"total missed", adaptiveCell(1, 30, 0.01, 0.023, 0.004, 0.004), "did not reach ±1 % in 30 s",
			"1,000.0 tok/s ± 2.3 %, did not reach ±1 % in 30 s"},
		{"medians wide", adaptiveCell(1, 6, 0.01, 0.004, 0.03, 0.05), "in 6 s", "1,000.0 tok/s ± 0.4 % in 6 s"},
	}
	unknown := adaptiveCell(1, 30, 0.01, 0.004, 0.004, 0.004)
	unknown.Precision.TotalTokPerSec = engine.Precision{Buckets: 3, Unknown: "3 one-second buckets: too few to estimate"}
	cases = append(cases, struct {
		name string
		r    engine.Result
		want string
		line string
	}{"total unknown", unknown, "did not reach ±1 % in 30 s", ""})
	for _, c := range cases {
		if got := WindowText(c.r); got != c.want {
			t.Errorf("%s: WindowText = %q, want %q", c.name, got, c.want)
		}
		if line := CellLine(c.r); c.line != "" && !strings.Contains(line, "Valid · "+c.line+" · ") {
			t.Errorf("%s: CellLine = %q, want it to hold %q", c.name, line, c.line)
		}
	}
}

// TestAdaptiveLine sums up a run's windows for the sheet and report.md:
// nothing for fixed windows; the range and median of those that reached
// the target; the cells that did not, the first six named.
func TestAdaptiveLine(t *testing.T) {
	if got := AdaptiveLine([]engine.Result{adaptiveCell(1, 30, 0, 0.004, 0.004, 0.004)}); got != "" {
		t.Errorf("fixed windows: %q, want nothing", got)
	}
	rs := []engine.Result{adaptiveCell(1, 5, 0.01, 0.009, 0.004, 0.004), adaptiveCell(2, 9, 0.01, 0.009, 0.004, 0.004),
		adaptiveCell(4, 7, 0.01, 0.009, 0.004, 0.004), adaptiveCell(8, 30, 0.01, 0.02, 0.004, 0.004)}
	want := "Windows adaptive to ±1 %: 3 of 4 cells reached it in 5–9 s (median 7 s); 1 did not in 30 s: 8K × 8"
	if got := AdaptiveLine(rs); got != want {
		t.Errorf("AdaptiveLine =\n%q, want\n%q", got, want)
	}
	var missed []engine.Result
	for n := range 8 {
		missed = append(missed, adaptiveCell(n+1, 30, 0.01, 0.02, 0.004, 0.004))
	}
	if got := AdaptiveLine(missed); !strings.HasSuffix(got, "8K × 5, 8K × 6, and 2 more") || !strings.Contains(got, ": 8 did not in 30 s") {
		t.Errorf("eight missed: %q, want six named and 2 more", got)
	}
}

// TestDriftShown: a cell whose rate moved beyond its noise says so after
// its ± on the cell line, and the run's DriftLine names it; a slope within
// its noise says nothing.
func TestDriftShown(t *testing.T) {
	moving := adaptiveCell(128, 30, 0.01, 0.003, 0.004, 0.004)
	moving.Precision.Drift = &engine.Drift{RelPer10s: -0.0153, RelCI95: 0.005, Batches: 7}
	still := adaptiveCell(1, 6, 0.01, 0.009, 0.004, 0.004)
	still.Precision.Drift = &engine.Drift{RelPer10s: 0.004, RelCI95: 0.006, Batches: 6}
	if got, want := CellLine(moving), "1,000.0 tok/s ± 0.3 % in 30 s, falling 1.5 % per 10 s · "; !strings.Contains(got, want) {
		t.Errorf("CellLine = %q, want it to hold %q", got, want)
	}
	if got := CellLine(still); strings.Contains(got, "per 10 s") {
		t.Errorf("a slope within its noise: CellLine = %q, want no drift", got)
	}
	want := "Drift: 1 of 2 cells moved across their windows beyond their noise: 8K × 128 falling 1.5 % per 10 s"
	if got := DriftLine([]engine.Result{moving, still}); got != want {
		t.Errorf("DriftLine = %q, want %q", got, want)
	}
	if got := DriftLine([]engine.Result{still}); got != "" {
		t.Errorf("DriftLine without a moving cell = %q, want nothing", got)
	}
}
