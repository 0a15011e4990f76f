package charts

import (
	"strings"
	"testing"
)

// TestSheetDrawsEveryFigure checks that the report sheet drawn from each
// reference fixture carries every string of its model: each table row and each
// heatmap cell drawn in order, every section line, prefill line and note.
func TestSheetDrawsEveryFigure(t *testing.T) {
	for _, name := range []string{"seed000", "seed003"} {
		t.Run(name, func(t *testing.T) {
			m := BuildModel(loadSeed(t, name))
			d, err := drawModel(KindReport, m, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			texts := d.Texts()
			seq := "\x00" + strings.Join(texts, "\x00") + "\x00"
			prose := strings.Join(texts, " ")
			inOrder := func(what string, parts ...string) {
				t.Helper()
				if !strings.Contains(seq, "\x00"+strings.Join(parts, "\x00")+"\x00") {
					t.Errorf("%s %q is not drawn", what, parts)
				}
			}
			for _, r := range m.Table.Rows {
				inOrder("table row", r.Cells...)
			}
			for _, row := range m.Decode.Cells {
				for _, c := range row {
					if c.Detail != "" {
						inOrder("heatmap cell", c.Text, c.Detail)
					}
				}
			}
			for _, r := range m.PrefillRows {
				inOrder("prefill line", r.Context, r.TokPerSec, r.TTFT)
			}
			for _, s := range m.Sections {
				for _, kv := range s.Rows {
					if !drawnWrapped(texts, kv.Key, kv.Value) {
						t.Errorf("%s line %q: %q is not drawn", s.Title, kv.Key, kv.Value)
					}
				}
			}
			var prosaic []string
			prosaic = append(prosaic, m.Header.Title, m.Header.Model, m.Header.ServerLine+" · "+m.Header.MatrixLine)
			prosaic = append(prosaic, m.Launch...)
			prosaic = append(prosaic, m.Decode.Notes...)
			prosaic = append(prosaic, m.Table.NotesBefore...)
			prosaic = append(prosaic, m.Table.NotesAfter...)
			for _, l := range m.Decode.Legend {
				prosaic = append(prosaic, l.Note)
			}
			for _, s := range prosaic {
				if !strings.Contains(prose, s) {
					t.Errorf("%q is not drawn", s)
				}
			}
		})
	}
}

// drawnWrapped reports whether key is drawn followed by value, which may be
// wrapped over several texts: at its spaces (dropped) or inside a word.
func drawnWrapped(texts []string, key, value string) bool {
	want := strings.ReplaceAll(value, " ", "")
	for i, t := range texts {
		if t != key {
			continue
		}
		got := ""
		for _, piece := range texts[i+1:] {
			if got += strings.ReplaceAll(piece, " ", ""); len(got) >= len(want) {
				break
			}
		}
		if got == want {
			return true
		}
	}
	return false
}

// TestPrefillLabelsDoNotOverlap draws the reference reports' prefill curves, where
// 123K and 128K sit close together, and checks no two labels overlap.
func TestPrefillLabelsDoNotOverlap(t *testing.T) {
	for _, name := range []string{"seed000", "seed003"} {
		m := BuildModel(loadSeed(t, name))
		d := &Drawing{}
		placed := drawLineChart(d, paletteFor(Light), m.Prefill, 0, 0, 860, sheetChartH)
		if len(placed) != 2*len(m.PrefillRows) {
			t.Fatalf("%s: %d labels for %d prefill points", name, len(placed), len(m.PrefillRows))
		}
		for i := range placed {
			for j := i + 1; j < len(placed); j++ {
				if placed[i].at.overlap(placed[j].at) > 0 {
					t.Errorf("%s: labels %q and %q overlap", name, placed[i].text, placed[j].text)
				}
			}
		}
	}
}
