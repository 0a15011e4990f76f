package shell

import (
	"errors"
	"image"
	"path/filepath"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/results"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
)

// chartImage returns the chart picture shown inside obj, or nil.
func chartImage(obj fyne.CanvasObject) *canvas.Image {
	var img *canvas.Image
	apptest.Walk(obj, func(o fyne.CanvasObject) bool {
		img, _ = o.(*canvas.Image)
		return img != nil
	})
	return img
}

// drawLog is a chartDraw that draws paneImage, or tall pictures, and
// records every call.
type drawLog struct {
	mu    sync.Mutex
	calls []charts.Pane
	dark  []bool
	tall  bool // pictures three times the pane's height (a report sheet)
	err   error
}

func (d *drawLog) draw(p charts.Pane, dark bool) (image.Image, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls, d.dark = append(d.calls, p), append(d.dark, dark)
	if d.err != nil {
		return nil, d.err
	}
	if d.tall {
		return image.NewNRGBA(image.Rect(0, 0, int(p.Width*p.Scale+0.5), int(3*p.Height*p.Scale+0.5))), nil
	}
	return paneImage(p), nil
}

func (d *drawLog) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.calls)
}

// shownPixels is the size in pixels of the picture a chart view holds.
func shownPixels(v *appwidget.ChartView) image.Point {
	if v.Img.Image == nil {
		return image.Point{}
	}
	return v.Img.Image.Bounds().Size()
}

// viewInWindow shows v alone in a test window of the given size and scale.
func viewInWindow(t *testing.T, v *appwidget.ChartView, size fyne.Size, scale float32) fyne.Window {
	t.Helper()
	w := test.NewTempWindow(t, v.Object())
	w.SetPadded(false)
	w.Canvas().(test.WindowlessCanvas).SetScale(scale)
	w.Resize(size)
	return w
}

// TestChartViewDrawsAtThePanePixelSize: the picture is drawn for the
// area's width and height in device pixels (1.5× here), placed at the top
// left at its size; after a resize the old picture stays, scaled to the new
// width, until the one drawn for it replaces it.
func TestChartViewDrawsAtThePanePixelSize(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	d := &drawLog{}
	v := appwidget.NewChartView(u, "test", d.draw)
	if got := v.Object().MinSize(); got != appwidget.ChartMinSize {
		t.Errorf("MinSize = %v, want %v (the chart is drawn for its area)", got, appwidget.ChartMinSize)
	}
	w := viewInWindow(t, v, fyne.NewSize(800, 500), 1.5)
	waitUntil(t, func() bool { return shownPixels(v) == image.Pt(1200, 375) }, "the picture for 800×500 at 1.5×")
	if got := v.Img.Size(); got != fyne.NewSize(800, 250) {
		t.Errorf("picture shown at %v, want its 800×250 (one pixel of it per device pixel)", got)
	}
	if pos := v.Img.Position(); pos != fyne.NewPos(0, 0) {
		t.Errorf("picture at %v, want the top left", pos)
	}
	w.Resize(fyne.NewSize(1000, 500))
	if shownPixels(v) != image.Pt(1200, 375) || v.Img.Size() != fyne.NewSize(1000, 312.5) {
		t.Errorf("right after the resize: %v px shown at %v, want the old picture scaled to 1000 wide", shownPixels(v), v.Img.Size())
	}
	waitUntil(t, func() bool { return shownPixels(v) == image.Pt(1500, 375) }, "the picture for 1000×500")
	if got := v.Img.Size(); got != fyne.NewSize(1000, 250) {
		t.Errorf("new picture shown at %v, want 1000×250", got)
	}
}

// TestChartViewShowsNoPlaceholder: before its first picture a chart view
// holds nothing but the (empty) picture: no progress bar or block of colour.
func TestChartViewShowsNoPlaceholder(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	d := &drawLog{}
	v := appwidget.NewChartView(u, "test", d.draw)
	viewInWindow(t, v, fyne.NewSize(600, 400), 1)
	apptest.Walk(v.Object(), func(o fyne.CanvasObject) bool {
		switch o.(type) {
		case *widget.ProgressBar, *widget.ProgressBarInfinite, *widget.Activity, *widget.Label:
			t.Errorf("a chart view waiting for its picture shows a %T", o)
		}
		return false
	})
	if v.Img.Image != nil || v.Frame.Size != (fyne.Size{}) {
		t.Errorf("before its picture the view shows %v at %v, want nothing", v.Img.Image, v.Frame.Size)
	}
	waitUntil(t, func() bool { return v.Img.Image != nil }, "the picture")
}

// TestChartViewKeepsPictures: the same source at the same size and theme is
// drawn once, even by a new view (another visit of the screen, the report
// opened again); another size, scale or theme is drawn anew.
func TestChartViewKeepsPictures(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	app.ApplyTheme(u.App, app.ThemeLight)
	d := &drawLog{}
	size := fyne.NewSize(700, 400)
	u.Pictures.Showing(app.PlaceResults, "report-1/")
	v := appwidget.NewChartView(u, "report-1/prefill", d.draw)
	v.Ask(v.PaneFor(size))
	waitUntil(t, func() bool { return shownPixels(v) == image.Pt(700, 200) }, "the first picture")
	draws := d.count()
	again := appwidget.NewChartView(u, "report-1/prefill", d.draw)
	again.Ask(again.PaneFor(size))
	if shownPixels(again) != image.Pt(700, 200) || d.count() != draws {
		t.Errorf("a second view of the same picture drew it again (%d draws, then %d), shown %v", draws, d.count(), shownPixels(again))
	}
	app.ApplyTheme(u.App, app.ThemeDark)
	other := appwidget.NewChartView(u, "report-1/prefill", d.draw)
	other.Ask(other.PaneFor(size))
	waitUntil(t, func() bool { return other.Img.Image != nil }, "the dark picture")
	if d.count() != draws+1 || !d.dark[draws] {
		t.Errorf("in the dark theme: %d draws after %d, dark %v; want one more, dark", d.count(), draws, d.dark)
	}
}

// TestChartViewFollowsTheAppTheme: a shown chart is drawn again, dark,
// when the app switches to its dark theme.
func TestChartViewFollowsTheAppTheme(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	app.ApplyTheme(u.App, app.ThemeLight)
	d := &drawLog{}
	v := appwidget.NewChartView(u, "theme", d.draw)
	viewInWindow(t, v, fyne.NewSize(700, 400), 1)
	waitUntil(t, func() bool { return v.Img.Image != nil }, "the light picture")
	app.ApplyTheme(u.App, app.ThemeDark)
	waitUntil(t, func() bool { return v.Shown.Dark }, "the dark picture")
	if got := d.dark[len(d.dark)-1]; !got {
		t.Error("the last picture was not drawn dark")
	}
}

// TestChartViewScrollsATallPicture: a picture much taller than its area
// keeps its width and scrolls rather than being squeezed.
func TestChartViewScrollsATallPicture(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	d := &drawLog{tall: true}
	v := appwidget.NewChartView(u, "sheet", d.draw)
	viewInWindow(t, v, fyne.NewSize(400, 300), 1)
	waitUntil(t, func() bool { return v.Img.Image != nil }, "the picture")
	if got := v.Img.Size(); got != fyne.NewSize(400, 900) {
		t.Errorf("tall picture shown at %v in a 400×300 area, want 400×900", got)
	}
	if got := v.Scroll.Content.MinSize().Height; got != 900 {
		t.Errorf("the scroll holds %v of height, want 900", got)
	}
}

// TestChartViewFailureFallsBack: when the first picture cannot be drawn the
// view says so through onFail, once.
func TestChartViewFailureFallsBack(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	d := &drawLog{err: errBoom}
	var got []error
	v := appwidget.NewChartView(u, "broken", d.draw)
	v.OnFail = func(err error) { got = append(got, err) }
	viewInWindow(t, v, fyne.NewSize(400, 300), 1)
	waitUntil(t, func() bool { return len(got) > 0 }, "the failure")
	if len(got) != 1 || !errors.Is(got[0], errBoom) {
		t.Errorf("onFail got %v, want boom once", got)
	}
}

// themeCharts records the dark flag of every call.
type themeCharts struct {
	fakeCharts
	mu   sync.Mutex
	dark []bool
}

func (c *themeCharts) Render(kind charts.Kind, format string, r engine.Report, dark bool) ([]byte, error) {
	c.mu.Lock()
	c.dark = append(c.dark, dark)
	c.mu.Unlock()
	return c.fakeCharts.Render(kind, format, r, dark)
}

func TestExportThemeFollowsCheck(t *testing.T) {
	for _, dark := range []bool{false, true} {
		c := &themeCharts{}
		if out := results.ExportReport(filepath.Join(t.TempDir(), "out"), cannedReport("tiny", 1), c, dark); out.Err != nil {
			t.Fatal(out.Err)
		}
		if len(c.dark) == 0 {
			t.Fatal("export drew no chart")
		}
		for _, got := range c.dark {
			if got != dark {
				t.Fatalf("export with dark=%v drew a chart with dark=%v", dark, got)
			}
		}
	}
	if chartOptions(true).Theme != charts.Dark || chartOptions(false).Theme != charts.Light {
		t.Error("chartOptions does not map dark to charts.Dark and light to charts.Light")
	}
}
