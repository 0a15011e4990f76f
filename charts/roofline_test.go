package charts

import (
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
)

// seed000Roofline is reference report 000 with the roofline facts of the
// simulator profile fitted to it (the setup the report measured).
func seed000Roofline(t *testing.T) engine.Report {
	t.Helper()
	r := loadSeed(t, "seed000")
	p, err := sim.LookupProfile("gemma-4-e2b-rtxpro6000")
	if err != nil {
		t.Fatal(err)
	}
	r.Roofline = p.RooflineFacts()
	r.ApplyRoofline()
	return r
}

func TestRooflineHeatmap(t *testing.T) {
	r := seed000Roofline(t)
	if !HasRoofline(r) || len(KindsFor(r)) != len(Kinds)+1 || KindsFor(r)[len(Kinds)] != KindRoofline {
		t.Fatalf("KindsFor = %v", KindsFor(r))
	}
	m := BuildModel(r)
	if m.Roofline == nil || m.Roofline.Scale.Min != 0 || m.Roofline.Scale.Max != 100 || m.Roofline.Scale.Label != "% of roofline" {
		t.Fatalf("roofline heatmap: %+v", m.Roofline)
	}
	if c := m.Roofline.Cells[0][0]; c.Text != "43 %" || c.Detail != "of 387.2" || c.Status != engine.StatusValid {
		t.Errorf("8K × 1 = %q / %q, want 43 %% / of 387.2", c.Text, c.Detail)
	}
	if last := m.Roofline.Cells[len(m.Roofline.Cells)-1]; last[len(last)-1].Status != engine.StatusOverCapacity {
		t.Errorf("123K × 128 is %s, want Over capacity", last[len(last)-1].Status)
	}
	want := "Decode: 13–43 % of the memory-bandwidth roofline (8K × 1: 167.7 tok/s is 43 % of 387.2)"
	if !strings.Contains(strings.Join(m.Decode.Notes, "\n"), want) {
		t.Errorf("decode heatmap notes %q lack %q", m.Decode.Notes, want)
	}
	var ceiling *Series
	for i, s := range m.Prefill.Series {
		if s.Name == "roofline (compute)" {
			ceiling = &m.Prefill.Series[i]
		}
	}
	if ceiling == nil || !ceiling.Dashed || len(ceiling.Points) != 6 || ceiling.Points[5].Label != "roofline 44.2K" || m.Prefill.Axes[0].Max < ceiling.Points[0].Y {
		t.Fatalf("prefill ceiling: %+v (axis %+v)", ceiling, m.Prefill.Axes[0])
	}
	if !strings.Contains(strings.Join(m.Prefill.Notes, "\n"), "Prefill: 21–35 % of the compute roofline (8K: 40.4K tok/s is 35 % of 116.2K)") {
		t.Errorf("prefill notes: %q", m.Prefill.Notes)
	}
	for _, kind := range []Kind{KindRoofline, KindReport, KindPrefill} {
		if _, err := drawModel(kind, m, DefaultOptions()); err != nil {
			t.Errorf("draw %s: %v", kind, err)
		}
	}
}

func TestNoRooflineNoChart(t *testing.T) {
	r := loadSeed(t, "seed000")
	if HasRoofline(r) || len(KindsFor(r)) != len(Kinds) {
		t.Fatalf("a report without roofline facts has the roofline chart")
	}
	_, err := Draw(KindRoofline, r, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "this report has no roofline") {
		t.Errorf("draw without a roofline: %v", err)
	}
	for _, s := range BuildModel(r).Prefill.Series {
		if s.Name == "roofline (compute)" {
			t.Errorf("prefill curve has a ceiling without roofline facts")
		}
	}
}
