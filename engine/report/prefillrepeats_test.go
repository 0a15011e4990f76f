package report

import (
	"bytes"
	"slices"
	"testing"

	"speedmatrix/engine"
)

// repeatsReport is the seed report as a Standard run measures its prefill:
// the median of 3 cold requests at 8K, one request from 64K.
func repeatsReport() engine.Report {
	r := seedReport()
	for i, res := range r.Results {
		if res.Phase != engine.PhasePrefill {
			continue
		}
		r.Results[i].PrefillRepeats = r.Plan.PrefillRepeatsAt(res.ContextTokens)
		if res.ContextTokens == 8192 {
			r.Results[i].PrefillSpreadPct = 1.234
		}
	}
	return r
}

// TestGoldenPrefillRepeats: report.md's Prefill table says what each
// figure is the median of, with its note; the seed report (no repeats, as
// an older report) keeps the reference reports' three columns.
func TestGoldenPrefillRepeats(t *testing.T) {
	golden(t, "repeats.report.md", []byte(Markdown(repeatsReport())))
	var b bytes.Buffer
	if err := WriteCSV(&b, repeatsReport()); err != nil {
		t.Fatal(err)
	}
	golden(t, "repeats.results.csv", b.Bytes())
}

// TestCSVPrefillRepeats: the prefill_repeats and prefill_spread_pct
// columns, by cell.
func TestCSVPrefillRepeats(t *testing.T) {
	pre := func(repeats int, spread float64, st engine.Status) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 8192, Concurrency: 1}, Status: st,
			TotalTokPerSec: 40400, TTFTMs: 203, PrefillRepeats: repeats, PrefillSpreadPct: spread}
	}
	dec := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 1}, Status: engine.StatusValid,
		TotalTokPerSec: 167.7, PrefillRepeats: 3}
	for _, tc := range []struct {
		name                string
		r                   engine.Result
		wantRepeats, spread string
	}{
		{"median of 3", pre(3, 1.234, engine.StatusValid), "3", "1.23"},
		{"one request", pre(1, 0, engine.StatusValid), "1", ""},
		{"older report", pre(0, 0, engine.StatusValid), "", ""},
		{"failed", pre(3, 0, engine.StatusFailed), "", ""},
		{"decode", dec, "", ""},
	} {
		rep, spread := slices.Index(CSVHeader, "prefill_repeats"), slices.Index(CSVHeader, "prefill_spread_pct")
		if row := csvRowOf(t, tc.r); rep < 0 || spread < 0 || row[rep] != tc.wantRepeats || row[spread] != tc.spread {
			t.Errorf("%s: prefill_repeats=%q prefill_spread_pct=%q, want %q and %q", tc.name, row[rep], row[spread], tc.wantRepeats, tc.spread)
		}
	}
}
