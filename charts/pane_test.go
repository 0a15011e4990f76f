package charts

import (
	"math"
	"slices"
	"testing"

	"speedmatrix/engine"
)

// TestPictureFillsThePane: on screen a picture is laid out for the pane's
// width and drawn at its device pixels (1.25 and 2 as well as 1), and a
// figure fits the pane's height, so nothing is scaled as a bitmap.
func TestPictureFillsThePane(t *testing.T) {
	m := BuildModel(loadSeed(t, "seed000"))
	for _, p := range []Pane{{Width: 1100, Height: 560, Scale: 1}, {Width: 1700, Height: 800, Scale: 1.25}, {Width: 860, Height: 520, Scale: 2}} {
		for _, kind := range []Kind{KindPrefill, KindPerRequest, KindHeatmap} {
			img, err := Picture(kind, m, Light, p)
			if err != nil {
				t.Fatal(err)
			}
			w, h := img.Bounds().Dx(), img.Bounds().Dy()
			if want := int(math.Round(p.Width * p.Scale)); w != want {
				t.Errorf("%s in %v: %d px wide, want the pane's %d", kind, p, w, want)
			}
			if max := int(math.Round(p.Height * p.Scale)); h > max {
				t.Errorf("%s in %v: %d px tall, taller than the pane's %d", kind, p, h, max)
			}
		}
	}
}

// TestSheetScrollsAtThePaneWidth: the report sheet is far taller than a
// pane: it keeps the pane's width (so its text keeps its size) and scrolls.
func TestSheetScrollsAtThePaneWidth(t *testing.T) {
	p := Pane{Width: 1100, Height: 520, Scale: 1.5}
	img, err := Picture(KindReport, BuildModel(loadSeed(t, "seed000")), Dark, p)
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 1650 {
		t.Errorf("sheet is %d px wide in a 1100 pane at 1.5×, want 1650", w)
	}
	if h := img.Bounds().Dy(); h < 3*780 {
		t.Errorf("sheet is %d px tall: squeezed into the pane instead of scrolling", h)
	}
}

// TestNarrowPaneShrinksBelowTheMinimum: a pane narrower than a layout's
// minimum shows the picture shrunk to its width, never cut off.
func TestNarrowPaneShrinksBelowTheMinimum(t *testing.T) {
	m := BuildModel(loadSeed(t, "seed000"))
	img, err := Picture(KindReport, m, Light, Pane{Width: 450, Height: 400})
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 450 {
		t.Errorf("sheet in a 450 pane is %d px wide, want 450", w)
	}
	d, _ := drawModel(KindReport, m, Options{Width: 450})
	if w, _ := d.Size(); w != sheetMinWidth {
		t.Errorf("sheet laid out %d wide for a 450 pane, want its minimum %v", w, sheetMinWidth)
	}
}

// TestDeltaReadableInANarrowPane: the comparison in the History pane of a
// 1024 px window (about 500 × 370 px) keeps its text at a readable size, breaks
// "A → B" over two lines where one does not fit, and is not shrunk.
func TestDeltaReadableInANarrowPane(t *testing.T) {
	a, b := loadSeed(t, "seed003"), loadSeed(t, "seed000")
	p := Pane{Width: 500, Height: 370, Scale: 1}
	d, err := drawDelta(a, b, p.options(Light))
	if err != nil {
		t.Fatal(err)
	}
	if s := p.fit(d); s != 1 {
		t.Errorf("delta drawn at %.2f× in the pane, want 1× (scrolled, not shrunk)", s)
	}
	if w, _ := d.Size(); w != 500 {
		t.Errorf("delta laid out %d wide, want the pane's 500", w)
	}
	for _, it := range d.items {
		if it.kind == itemText && it.size < 9.5 {
			t.Errorf("%q drawn at %.1f px: too small to read", it.text, it.size)
		}
	}
	texts := d.Texts()
	if !slices.Contains(texts, "62.8 →") || !slices.Contains(texts, "114.6") {
		t.Errorf("the 64K × 1 cell's 62.8 → 114.6 is not broken after the arrow: %q", texts)
	}
	export, _ := drawDelta(a, b, Options{})
	if !slices.Contains(export.Texts(), "62.8 → 114.6") {
		t.Error("the export no longer shows 62.8 → 114.6 on one line")
	}
}

// TestRasterizeFractionalScale: 1.25× is the drawing's size times 1.25,
// rounded, and Image(2) is Rasterize(2).
func TestRasterizeFractionalScale(t *testing.T) {
	d, err := Draw(KindPrefill, loadSeed(t, "seed003"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	w, h := d.Size()
	img := d.Rasterize(1.25)
	if got, want := img.Bounds().Dx(), int(math.Round(float64(w)*1.25)); got != want {
		t.Errorf("1.25× width %d, want %d", got, want)
	}
	if got, want := img.Bounds().Dy(), int(math.Round(float64(h)*1.25)); got != want {
		t.Errorf("1.25× height %d, want %d", got, want)
	}
	if !slices.Equal(d.Image(2).Pix, d.Rasterize(2).Pix) {
		t.Error("Image(2) and Rasterize(2) differ")
	}
}

// TestPaneOptionsRejectBadSizes: a negative or infinite pane is an error
// that says what to pass.
func TestPaneOptionsRejectBadSizes(t *testing.T) {
	for _, o := range []Options{{Width: -1}, {Width: 500, Height: math.Inf(1)}, {Width: math.NaN()}} {
		if _, err := drawModel(KindPrefill, Model{}, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestTitleKeepsClearOfTheBadge: in the narrow History pane of a 1024 px
// window, and narrower, the comparison's title and every chart's title are
// whole and clear of the simulated badge (it covered "vs A").
func TestTitleKeepsClearOfTheBadge(t *testing.T) {
	a, b := loadSeed(t, "seed003"), loadSeed(t, "seed000")
	for _, r := range []*engine.Report{&a, &b} {
		r.Server.Simulated, r.Server.SimProfile = true, "llama-3.3-70b-awq-2x3090-tp2"
	}
	for _, width := range []float64{320, 440, 1100} {
		p := Pane{Width: width, Height: 400, Scale: 1}
		d, err := drawDelta(a, b, p.options(Dark))
		if err != nil {
			t.Fatal(err)
		}
		checkTitleClear(t, d, "Sustained decode: B vs A", width)
		m := BuildModel(b)
		h, err := drawModel(KindHeatmap, m, p.options(Dark))
		if err != nil {
			t.Fatal(err)
		}
		checkTitleClear(t, h, m.Decode.Title, width)
	}
}

// checkTitleClear fails unless d draws title whole, inside the drawing and
// clear of the badge's pill.
func checkTitleClear(t *testing.T, d *Drawing, title string, width float64) {
	t.Helper()
	var tx, ty, tw, th float64
	found := false
	for _, it := range d.items {
		if it.kind == itemText && it.text == title {
			tx, ty, tw, th, found = it.x, it.y, textWidth(it.text, it.font, it.size), it.size, true
		}
	}
	if !found {
		t.Fatalf("%.0f px: no title %q", width, title)
	}
	if w, _ := d.Size(); tx+tw > float64(w) {
		t.Errorf("%.0f px: %q runs to %.0f, past the drawing's %d", width, title, tx+tw, w)
	}
	for _, it := range d.items {
		if it.kind != itemRect || it.r == 0 || it.y > ty || it.y+it.h < ty-th {
			continue // not a pill on the title's line
		}
		if it.x < tx+tw && it.x+it.w > tx {
			t.Errorf("%.0f px: the badge at x %.0f–%.0f covers %q (x %.0f–%.0f)", width, it.x, it.x+it.w, title, tx, tx+tw)
		}
	}
}
