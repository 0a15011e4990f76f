package charts

import "testing"

func benchKind(b *testing.B, kind Kind, scale int, svg bool) {
	r := loadSeed(&testing.T{}, "seed000")
	m := BuildModel(r)
	b.ResetTimer()
	for b.Loop() {
		d, err := DrawModel(kind, m, Options{Scale: scale})
		if err != nil {
			b.Fatal(err)
		}
		if svg {
			_, err = d.SVG(scale)
		} else {
			_, err = d.PNG(scale)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildModel(b *testing.B) {
	r := loadSeed(&testing.T{}, "seed000")
	for b.Loop() {
		BuildModel(r)
	}
}

func BenchmarkLayoutSheet(b *testing.B) {
	m := BuildModel(loadSeed(&testing.T{}, "seed000"))
	for b.Loop() {
		if _, err := DrawModel(KindReport, m, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSheetPNG1x(b *testing.B)   { benchKind(b, KindReport, 1, false) }
func BenchmarkSheetPNG2x(b *testing.B)   { benchKind(b, KindReport, 2, false) }
func BenchmarkSheetSVG(b *testing.B)     { benchKind(b, KindReport, 1, true) }
func BenchmarkHeatmapPNG1x(b *testing.B) { benchKind(b, KindHeatmap, 1, false) }
