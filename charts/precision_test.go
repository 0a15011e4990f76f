package charts

import (
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestPrecisionLine: the report sheet and the decode heatmap say how well
// the total tok/s are known, over the Valid decode cells whose precision
// is known, and say nothing about it for a report without precision (the
// reference reports, imports, older runs).
func TestPrecisionLine(t *testing.T) {
	const want = "±: total tok/s known to within ±0.2–1.8 % (95 %), median ±0.6 %"
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
		if !strings.Contains(d.dump(), "±: total tok/s known to within") {
			t.Errorf("the %s picture lacks the ± line", kind)
		}
	}
	for _, note := range BuildModel(loadSeed(t, "seed000")).Decode.Notes {
		if strings.HasPrefix(note, "±") {
			t.Errorf("a report without precision has the note %q", note)
		}
	}
}
