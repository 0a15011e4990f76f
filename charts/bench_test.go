package charts

import "testing"

func benchKind(b *testing.B, kind Kind, scale int, svg bool) {
	r := loadSeed(&testing.T{}, "seed000")
	m := BuildModel(r)
	b.ResetTimer()
	for b.Loop() {
		d, err := drawModel(kind, m, Options{Scale: scale})
		if err != nil {
			b.Fatal(err)
		}
		if svg {
			_, err = d.svg(scale)
		} else {
			_, err = d.png(scale)
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
		if _, err := drawModel(KindReport, m, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSheetPNG1x(b *testing.B)   { benchKind(b, KindReport, 1, false) }
func BenchmarkSheetPNG2x(b *testing.B)   { benchKind(b, KindReport, 2, false) }
func BenchmarkSheetSVG(b *testing.B)     { benchKind(b, KindReport, 1, true) }
func BenchmarkHeatmapPNG1x(b *testing.B) { benchKind(b, KindHeatmap, 1, false) }

// benchPicture draws one picture for the Results pane of a 1280×800 window
// (1183×545 logical pixels) at the given scale, as the app does off its UI
// goroutine: layout and rasterizing, no PNG encoding.
func benchPicture(b *testing.B, kind Kind, scale float64) {
	m := BuildModel(loadSeed(&testing.T{}, "seed000"))
	p := Pane{Width: 1183, Height: 545, Scale: scale}
	for b.Loop() {
		if _, err := Picture(kind, m, Dark, p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPictureHeatmap(b *testing.B)     { benchPicture(b, KindHeatmap, 1) }
func BenchmarkPicturePrefill(b *testing.B)     { benchPicture(b, KindPrefill, 1) }
func BenchmarkPicturePerRequest(b *testing.B)  { benchPicture(b, KindPerRequest, 1) }
func BenchmarkPictureSheet(b *testing.B)       { benchPicture(b, KindReport, 1) }
func BenchmarkPictureSheet1_5x(b *testing.B)   { benchPicture(b, KindReport, 1.5) }
func BenchmarkPictureHeatmap1_5x(b *testing.B) { benchPicture(b, KindHeatmap, 1.5) }
