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
		{"range and median", cells(known(0.018), known(0.002), known(0.006), tooShort), "±: total tok/s known to within ±0.2–1.8 % (95 %), median ±0.6 %"},
		{"even count", cells(known(0.002), known(0.004), known(0.008), known(0.018)), "±: total tok/s known to within ±0.2–1.8 % (95 %), median ±0.6 %"},
		{"one width", cells(known(0.004)), "±: total tok/s known to within ±0.4 % (95 %)"},
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
