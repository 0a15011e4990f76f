package app

import (
	"bytes"
	"image"
	"image/png"
	"path/filepath"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"speedmatrix/charts"
	"speedmatrix/engine"
)

// chartImage returns the chart picture shown inside obj, or nil.
func chartImage(obj fyne.CanvasObject) *canvas.Image {
	var img *canvas.Image
	walk(obj, func(o fyne.CanvasObject) bool {
		img, _ = o.(*canvas.Image)
		return img != nil
	})
	return img
}

func pngOfSize(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestChartViewFitsWidthAtTop(t *testing.T) {
	test.NewTempApp(t)
	v := newChartView(pngOfSize(t, 200, 100), "wide.png")
	if v == nil {
		t.Fatal("newChartView rejected a PNG")
	}
	if got := v.MinSize(); got != chartMinSize {
		t.Errorf("MinSize = %v, want %v (the chart scales to its area)", got, chartMinSize)
	}
	v.Resize(fyne.NewSize(800, 900)) // taller than the chart: no gap above it
	img := chartImage(v)
	s := img.Size()
	if s.Width < 780 || s.Width > 800 {
		t.Errorf("image width %v, want about the area's 800", s.Width)
	}
	if s.Height != s.Width/2 {
		t.Errorf("image %v does not keep the 2:1 aspect", s)
	}
	if y := img.Position().Y; y != 0 {
		t.Errorf("image at y=%v, want the top of its area", y)
	}
	v.Resize(fyne.NewSize(1000, 300)) // 500 tall at this width: shrinks to fit whole
	if got := chartImage(v).Size().Height; got != 300 {
		t.Errorf("image height %v in a 300-high area, want it shrunk to 300", got)
	}
	tall := newChartView(pngOfSize(t, 100, 300), "sheet.png")
	tall.Resize(fyne.NewSize(400, 300)) // 1200 tall at this width: keeps the width and scrolls
	if got := chartImage(tall).Size(); got.Height < 1190 || got.Width < 390 {
		t.Errorf("tall image is %v in a 400×300 area, want about 400×1200 (scrolled, not squeezed)", got)
	}
}

func TestChartViewRejectsNonPNG(t *testing.T) {
	if v := newChartView([]byte("<svg/>"), "x.png"); v != nil {
		t.Errorf("newChartView(svg) = %T, want nil", v)
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
		if err := exportReport(filepath.Join(t.TempDir(), "out"), cannedReport("tiny", 1), nil, c, dark); err != nil {
			t.Fatal(err)
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
