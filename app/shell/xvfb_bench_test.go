//go:build xvfb

package shell

import (
	"image"
	"image/color"
	"os"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/app/results"
	appwidget "speedmatrix/app/widget"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
)

// This file measures screen switches in a real window (Fyne's GL driver)
// under Xvfb; it builds only with the xvfb tag:
//
//	LANG=en_US.UTF-8 xvfb-run -a -s '-screen 0 1440x900x24' \
//	  go test -tags xvfb -run '^$' -bench XvfbScreenSwitch -benchtime 10x ./app/shell/
//
// The GL driver must own the main thread, so TestMain runs the app there
// and the benchmarks on another goroutine.

var glApp fyne.App

func TestMain(m *testing.M) {
	glApp = fyneapp.NewWithID(id + ".bench")
	if os.Getenv("BENCH_FYNE_CHECKS") == "" {
		declareFyneDo(glApp) // as Main does
	}
	go func() {
		code := m.Run()
		os.Exit(code)
	}()
	glApp.Run()
}

// glUI is the whole app in a window of the GL driver under Xvfb, of the
// given size, shown; then (nil: nothing) runs on the UI goroutine before
// the test goes on. The window and the app's work end with the test.
func glUI(t *testing.T, d app.Deps, size fyne.Size, then func(u *ui)) *ui {
	t.Helper()
	var u *ui
	var w fyne.Window
	fyne.DoAndWait(func() {
		w = glApp.NewWindow("Speed Matrix")
		u = newUI(glApp, w, d, app.Options{Target: "sim:tiny"})
		w.SetContent(u.content())
		w.Resize(size)
		w.Show()
		if then != nil {
			then(u)
		}
	})
	t.Cleanup(func() { fyne.DoAndWait(func() { u.shutdown(); w.Close() }) })
	return u
}

// writeShot saves the window of u as a PNG at path.
func writeShot(t *testing.T, u *ui, path string) {
	t.Helper()
	fyne.DoAndWait(func() {
		if err := appwidget.WritePNG(path, appwidget.CaptureWindow(u.Win)); err != nil {
			t.Error(err)
		}
	})
}

// paintProbe is a 1×1 raster drawn after the window's content: the
// painter regenerates it in the first frame painted after Refresh, so the
// time of that call is the end of that frame.
type paintProbe struct {
	raster  *canvas.Raster
	painted chan time.Time
}

func newPaintProbe() *paintProbe {
	p := &paintProbe{painted: make(chan time.Time, 1)}
	p.raster = canvas.NewRaster(func(w, h int) image.Image {
		select {
		case p.painted <- time.Now():
		default:
		}
		return image.NewUniform(color.Transparent)
	})
	p.raster.Resize(fyne.NewSize(1, 1))
	return p
}

// BenchmarkXvfbScreenSwitch is the time from selecting a screen, or a tab of
// the Results screen, to the end of the first frame painted after it, in a
// 1280×800 window showing reference report 000 with the real charts. Each
// iteration first shows another screen and lets it paint (not timed).
func BenchmarkXvfbScreenSwitch(b *testing.B) {
	d := testDeps(b, &fakeEngine{})
	d.Charts, d.Do = chartRenderer{}, nil
	d.FreeMemory = nil // each picture's memory goes back, as in the app
	probe := newPaintProbe()
	var u *ui
	var w fyne.Window
	fyne.DoAndWait(func() {
		w = glApp.NewWindow("Speed Matrix")
		u = newUI(glApp, w, d, app.Options{})
		w.SetContent(container.NewStack(u.content(), container.NewWithoutLayout(probe.raster)))
		w.Resize(fyne.NewSize(1280, 800))
		w.Show()
		u.results.Show(loadReport(b, "seed000"), "")
		u.Show(app.TabResults)
	})
	b.Cleanup(func() { fyne.DoAndWait(func() { u.shutdown(); w.Close() }) })
	<-u.results.Rendered
	// switchTo runs f on the UI goroutine and returns when the next frame is painted.
	switchTo := func(f func()) {
		for len(probe.painted) > 0 {
			<-probe.painted
		}
		fyne.DoAndWait(func() {
			f()
			probe.raster.Refresh()
		})
		<-probe.painted
	}
	switchTo(func() {})
	time.Sleep(time.Second) // the charts' first paint

	cases := append([]switchCase{{"Repaint", func() {}, func() {}}}, switchCases(u)...)
	// blank reports whether a chart on screen lacks the picture for its area.
	blank := func() (n float64) {
		fyne.DoAndWait(func() {
			if u.Tabs.Selected().Text != app.TabResults {
				return
			}
			for _, obj := range u.results.Views.Selected().Content.(*fyne.Container).Objects {
				if v := viewOf(u.results, obj); v != nil && v.Shown != v.Want {
					n = 1
				}
			}
		})
		return n
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			blanks := 0.0
			for b.Loop() {
				b.StopTimer()
				switchTo(c.away)
				time.Sleep(50 * time.Millisecond) // let background redraws of the screen left settle
				b.StartTimer()
				switchTo(c.to)
				b.StopTimer()
				blanks += blank()
				b.StartTimer()
			}
			// Switches whose first frame showed a chart without its picture.
			b.ReportMetric(blanks/float64(b.N), "blank/op")
		})
	}
}

// viewOf is the chart view of r whose object obj is, if any.
func viewOf(r *results.Tab, obj fyne.CanvasObject) *appwidget.ChartView {
	if r.Group == nil {
		return nil
	}
	for _, v := range r.Group.Views {
		if v.Object() == obj {
			return v
		}
	}
	return nil
}
