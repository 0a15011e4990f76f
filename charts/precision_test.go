package charts

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestPrecisionLine: the report sheet and the decode heatmap say how well
// the total tok/s are known, over the Valid decode cells whose precision
// is known, and say nothing about it for a report without precision (the
// reference reports, imports, older runs).
func TestPrecisionLine(t *testing.T) {
	const want = "±: each window's total tok/s known to within ±0.2–1.8 % (95 %), median ±0.6 %"
	r := loadSeed(t, "seed000")
	rels := []float64{0.002, 0.006, 0.018}
	n := 0
	for i, res := range r.Results {
		if res.Phase != engine.PhaseDecode || !res.Measured() {
			continue
		}
		total := engine.Precision{Buckets: 4, Unknown: "4 one-second buckets: too few to estimate"}
		if n < len(rels) {
			total = engine.Precision{RelCI95: rels[n], Buckets: 30, Batches: 10, Method: "batch means"}
		}
		r.Results[i].Precision = &engine.CellPrecision{TotalTokPerSec: total}
		n++
	}
	if n <= len(rels) {
		t.Fatalf("seed000 has %d Valid decode cells; the test wants an unknown one too", n)
	}
	m := BuildModel(r)
	if !slices.Contains(m.Decode.Notes, want) {
		t.Errorf("decode notes %q lack %q", m.Decode.Notes, want)
	}
	for _, kind := range []Kind{KindReport, KindHeatmap} {
		d, err := drawModel(kind, m, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.dump(), "±: each window's total tok/s known to within") {
			t.Errorf("the %s picture lacks the ± line", kind)
		}
	}
	for _, note := range BuildModel(loadSeed(t, "seed000")).Decode.Notes {
		if strings.HasPrefix(note, "±") {
			t.Errorf("a report without precision has the note %q", note)
		}
	}
}

// TestDriftAndMediansShown: a cell whose rate moved says so in the decode
// notes (the sheet and the heatmap) and in its tip in report.html, and
// the tip gives the medians their own ± and the samples behind them.
func TestDriftAndMediansShown(t *testing.T) {
	r := loadSeed(t, "seed000")
	i := slices.IndexFunc(r.Results, func(res engine.Result) bool { return res.Phase == engine.PhaseDecode && res.Measured() })
	known := func(rel float64) engine.Precision {
		return engine.Precision{RelCI95: rel, Buckets: 30, Batches: 7, Method: "batch means"}
	}
	r.Results[i].Precision = &engine.CellPrecision{TotalTokPerSec: known(0.004), PerRequestTokPerSec: known(0.006),
		ITLMs: known(0.003), Drift: &engine.Drift{RelPer10s: -0.015, RelCI95: 0.004, Batches: 7}}
	r.Results[i].PerRequestPct.N, r.Results[i].ITLPct.N = 40, 9870
	res := r.Results[i]
	name := res.ContextName() + " × " + strconv.Itoa(res.Concurrency)
	m := BuildModel(r)
	if !slices.ContainsFunc(m.Decode.Notes, func(n string) bool { return strings.Contains(n, name+" falling 1.5 % per 10 s") }) {
		t.Errorf("decode notes %q lack the drift of %s", m.Decode.Notes, name)
	}
	tip := cellTip(res, nil)
	for _, want := range []string{"± 0.4 %, falling 1.5 % per 10 s", "± 0.6 % (40 requests)", "± 0.3 % (9,870 gaps)"} {
		if !strings.Contains(tip, want) {
			t.Errorf("tip %q lacks %q", tip, want)
		}
	}
}
