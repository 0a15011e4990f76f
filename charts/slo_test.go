package charts

import (
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// sloSeed is seed000 judged against TTFT p99 ≤ 1 s and ITL p99 ≤ 8 ms.
func sloSeed(t *testing.T) engine.Report {
	r := loadSeed(t, "seed000")
	r.Plan.SLO = engine.SLO{TTFT: time.Second, ITL: 8 * time.Millisecond}
	return r
}

// TestSLOPictureOnlyWithAnSLO: WriteAll draws decode-slo when the plan
// sets an SLO, and only then; drawn without one, it says why.
func TestSLOPictureOnlyWithAnSLO(t *testing.T) {
	plain, judged := loadSeed(t, "seed000"), sloSeed(t)
	if slices.Contains(KindsFor(plain), KindSLO) {
		t.Errorf("KindsFor without an SLO = %v", KindsFor(plain))
	}
	if k := KindsFor(judged); k[len(k)-1] != KindSLO || len(k) != len(KindsFor(plain))+1 {
		t.Errorf("KindsFor with an SLO = %v, want %v then %s", k, KindsFor(plain), KindSLO)
	}
	if len(Kinds) != 6 {
		t.Errorf("KindsFor changed Kinds: %v", Kinds)
	}
	if _, err := Draw(KindSLO, plain, Options{}); err == nil || !strings.Contains(err.Error(), "sets no SLO") {
		t.Errorf("decode-slo without an SLO: %v", err)
	}
	m := BuildModel(plain)
	if m.SLO != nil || m.Decode.SLOMiss != "" {
		t.Errorf("a run without an SLO has an SLO view %+v or a miss legend %q", m.SLO, m.Decode.SLOMiss)
	}
}

// TestSLOMarksTheRightCells: the heatmaps mark exactly the cells that miss
// the SLO, and the SLO picture gives every judged cell its margin and
// verdict, blue for a pass and red for a miss.
func TestSLOMarksTheRightCells(t *testing.T) {
	m := BuildModel(sloSeed(t))
	// Columns 1 … 128; x misses, . meets, o over capacity.
	want := map[string]string{
		"8K":   "......xx",
		"16K":  ".....xxx",
		"32K":  "....xxxx",
		"64K":  "xxxxxxxx",
		"123K": "xxxxxxxo",
	}
	for _, h := range []HeatmapModel{m.Decode, m.SLO.Heatmap} {
		for i, row := range h.Cells {
			var got strings.Builder
			for _, c := range row {
				switch {
				case c.Status == engine.StatusOverCapacity:
					got.WriteByte('o')
				case h.Title == m.Decode.Title && c.Miss, h.Title != m.Decode.Title && strings.HasPrefix(c.Detail, "misses"):
					got.WriteByte('x')
				default:
					got.WriteByte('.')
				}
			}
			if got.String() != want[h.Rows[i]] {
				t.Errorf("%s, %s: %s, want %s", h.Title, h.Rows[i], got.String(), want[h.Rows[i]])
			}
		}
	}
	if !strings.Contains(m.Decode.SLOMiss, "TTFT p99 ≤ 1 s and ITL p99 ≤ 8 ms") {
		t.Errorf("decode heatmap legend %q", m.Decode.SLOMiss)
	}
	for _, c := range []struct {
		row, col     int
		text, detail string
		pass         bool
	}{
		{0, 0, "+26.2%", "meets", true},
		{0, 6, "−23.8%", "misses ITL", false},
		{4, 6, "−941.4%", "misses TTFT and ITL", false},
	} {
		cell := m.SLO.Heatmap.Cells[c.row][c.col]
		if cell.Text != c.text || cell.Detail != c.detail || (cell.Pos > 0.5) != c.pass || cell.Miss {
			t.Errorf("SLO cell %d×%d: %+v, want %q, %q, pass %v", c.row, c.col, cell, c.text, c.detail, c.pass)
		}
	}
	d, err := Draw(KindSLO, sloSeed(t), Options{Theme: Dark})
	if err != nil {
		t.Fatal(err)
	}
	if texts := strings.Join(d.Texts(), "\n"); !strings.Contains(texts, "8K: up to 32 simultaneous requests meet TTFT p99 ≤ 1 s and ITL p99 ≤ 8 ms (3,842 tok/s)") {
		t.Errorf("the SLO picture lacks the line per context:\n%s", texts)
	}
	sheet, err := Draw(KindReport, sloSeed(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if texts := strings.Join(sheet.Texts(), "\n"); !strings.Contains(texts, "123K: even 1 request at a time misses TTFT p99 ≤ 1 s and ITL p99 ≤ 8 ms") {
		t.Errorf("the sheet lacks the SLO lines")
	}
}

// TestSLOPictureOfAHostileFile: absurd percentiles within the bounds are
// drawn, not a crash: a p99 past any float's millisecond, one of zero.
func TestSLOPictureOfAHostileFile(t *testing.T) {
	r := sloSeed(t)
	for i := range r.Results {
		if r.Results[i].Phase == engine.PhaseDecode {
			r.Results[i].TTFTPct = engine.Percentiles{P50: 1, P90: 1e308, P99: 1e308, N: 1<<63 - 1}
			r.Results[i].ITLPct.P99 = 0
			break
		}
	}
	r.Plan.SLO.Percentile = 90
	for _, k := range KindsFor(r) {
		if _, err := Draw(k, r, Options{}); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}
