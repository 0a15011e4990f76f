package app

import (
	"image"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"speedmatrix/charts"
)

// chartMinSize is the smallest a chart view asks for: the screens stay
// usable in a small window, where the chart shrinks or scrolls.
var chartMinSize = fyne.NewSize(320, 200)

// redrawDelay is how long a chart waits after its area last changed size
// before it draws itself for the new size: a window being resized draws
// each chart once, when the resizing stops.
var redrawDelay = 150 * time.Millisecond

// chartDraw draws a picture for a pane on screen, in the dark theme when
// dark is set. It runs off the UI goroutine.
type chartDraw func(p charts.Pane, dark bool) (image.Image, error)

// chartHost is what a chart view asks of the app: whether it shows its
// dark theme, the cache of the pictures drawn, memory freed after
// drawing, and the UI goroutine.
type chartHost interface {
	darkTheme() bool
	chartCache() *pictureCache
	freeMemory()
	do(f func())
}

// chartView shows a picture drawn for its area's pixel size, in the app's
// theme: laid out for the area's width and height at the screen's scale,
// so one pixel of the picture is one pixel of the screen. A picture much
// taller than the area (the report sheet) scrolls. Pictures are drawn off
// the UI goroutine; until one is ready the area stays as it was (blank at
// first, then the previous picture, scaled): nothing flashes in between.
type chartView struct {
	host   chartHost
	source string // what it shows, for the picture cache
	draw   chartDraw
	group  *chartGroup // nil: on its own
	// onFail is called, on the UI goroutine, when the first picture
	// cannot be drawn; a later failure keeps the picture shown.
	onFail func(error)

	img     *canvas.Image
	frame   *pictureLayout
	scroll  *container.Scroll
	obj     *fyne.Container
	area    fyne.Size  // the area last laid out
	shown   pictureKey // what img holds; zero before the first picture
	shownW  float32    // the width of the area the shown picture was drawn for
	shownSz fyne.Size  // its size on screen when the area has that width
	want    pictureKey // the picture asked for last
	timer   *time.Timer
	settled bool // the first picture is shown, or failed
	gone    bool // released: it shows nothing and asks for nothing
}

// newChartView is a view of the pictures draw makes; source names them in
// the picture cache (a report's chart, a comparison).
func newChartView(host chartHost, source string, draw chartDraw) *chartView {
	v := &chartView{host: host, source: source, draw: draw, img: &canvas.Image{}, frame: &pictureLayout{}}
	v.img.FillMode = canvas.ImageFillStretch
	// The picture has the pixels of its place on screen: no scaling on the
	// CPU, and between a resize and the new picture the GPU's is enough.
	v.img.ScaleMode = canvas.ImageScaleFastest
	v.scroll = container.NewVScroll(container.New(v.frame, v.img))
	v.obj = container.New(v, v.scroll)
	return v
}

// object is the view's canvas object.
func (v *chartView) object() fyne.CanvasObject { return v.obj }

// Layout fills the area with the scroll and asks for the picture of the
// area's size and the app's theme (a theme change refreshes, so lays out,
// every object).
func (v *chartView) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	v.scroll.Resize(size)
	v.scroll.Move(fyne.NewPos(0, 0))
	if size.Width < 1 || size.Height < 1 {
		return
	}
	p := v.paneFor(size)
	changed := size != v.area
	v.area = size
	v.ask(p)
	if changed && v.group != nil {
		v.group.laidOut(v, p)
	}
	v.place()
}

// MinSize is small: the chart is drawn for whatever area it gets.
func (v *chartView) MinSize([]fyne.CanvasObject) fyne.Size { return chartMinSize }

// paneFor is the pane of an area of this size on the view's screen.
func (v *chartView) paneFor(size fyne.Size) charts.Pane {
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(v.obj); c != nil && c.Scale() > 0 {
		scale = c.Scale()
	}
	return charts.Pane{Width: float64(size.Width), Height: float64(size.Height), Scale: float64(scale)}
}

// ask makes the picture for p the one to show: at once when it is shown
// or kept, else drawn in the background, after redrawDelay when a
// picture is already shown (the area may still be changing).
func (v *chartView) ask(p charts.Pane) {
	k := keyFor(v.source, p, v.host.darkTheme())
	if v.gone || k == v.want {
		return
	}
	v.want = k
	if v.timer != nil {
		v.timer.Stop()
		v.timer = nil
	}
	if k == v.shown {
		return
	}
	if img, ok := v.host.chartCache().get(k); ok {
		v.show(k, p, img)
		return
	}
	if v.shown == (pictureKey{}) {
		go v.render(k, p)
		return
	}
	v.timer = time.AfterFunc(redrawDelay, func() { v.render(k, p) })
}

// render draws the picture k off the UI goroutine and, if it is still
// the one wanted, keeps and shows it.
func (v *chartView) render(k pictureKey, p charts.Pane) {
	var img image.Image
	var err error
	drawing(func() { img, err = v.draw(p, k.dark) }, v.host.freeMemory)
	v.host.do(func() {
		if k != v.want {
			return // a newer size or theme is wanted
		}
		if err == nil {
			v.host.chartCache().put(k, img)
		}
		if err != nil {
			v.fail(err)
			return
		}
		v.show(k, p, img)
	})
}

// show puts the picture k, drawn for pane p, in place.
func (v *chartView) show(k pictureKey, p charts.Pane, img image.Image) {
	b := img.Bounds()
	v.shown, v.shownW = k, float32(p.Width)
	v.shownSz = fyne.NewSize(float32(float64(b.Dx())/k.scale), float32(float64(b.Dy())/k.scale))
	v.img.Image = img
	v.img.Refresh()
	v.place()
	v.settle()
}

// release lets go of the picture of a view that left the screen for good:
// Fyne keeps what it drew for an object until a frame after FYNE_CACHE,
// which an idle window may not paint for minutes, and the view's picture
// with it. A picture still being drawn for it is not shown.
func (v *chartView) release() {
	v.gone = true
	if v.timer != nil {
		v.timer.Stop()
		v.timer = nil
	}
	v.want, v.shown = pictureKey{}, pictureKey{}
	v.img.Image = nil
}

func (v *chartView) fail(err error) {
	if v.shown == (pictureKey{}) && v.onFail != nil {
		v.onFail(err)
	}
	v.settle()
}

// settle tells the group, once, that the view has its first picture or
// will not get one.
func (v *chartView) settle() {
	if !v.settled {
		v.settled = true
		if v.group != nil {
			v.group.settled()
		}
	}
}

// place sizes the picture: as drawn, or, while the picture for a new area
// width is being drawn, the old one scaled to that width.
func (v *chartView) place() {
	if v.img.Image == nil {
		return
	}
	size := v.shownSz
	if v.area.Width > 0 && v.shownW > 0 && v.area.Width != v.shownW {
		f := v.area.Width / v.shownW
		size = fyne.NewSize(size.Width*f, size.Height*f)
	}
	if size != v.frame.size {
		v.frame.size = size
		v.scroll.Refresh()
	}
}

// pictureLayout puts the picture at the top left at its size on screen.
type pictureLayout struct{ size fyne.Size }

// Layout places the picture.
func (l *pictureLayout) Layout(objs []fyne.CanvasObject, _ fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(l.size)
	}
}

// MinSize is the picture's size, so the scroll knows how tall it is.
func (l *pictureLayout) MinSize([]fyne.CanvasObject) fyne.Size { return l.size }

// chartGroup is the chart views of a screen that share one area (the
// Results tabs): when one is laid out at a new size, the others draw for
// it in the background, so switching to them shows them at once.
type chartGroup struct {
	views   []*chartView
	pane    charts.Pane   // the area the group was last laid out in
	pending int           // views without their first picture
	done    chan struct{} // closed when none is left
}

// newChartGroup is a group that will hold n views.
func newChartGroup(n int) *chartGroup { return &chartGroup{pending: n, done: make(chan struct{})} }

// add makes v one of the group's views.
func (g *chartGroup) add(v *chartView) {
	v.group = g
	g.views = append(g.views, v)
}

// drawFor asks every view for its picture for p.
func (g *chartGroup) drawFor(p charts.Pane) {
	g.pane = p
	for _, v := range g.views {
		v.ask(p)
	}
}

// laidOut hears that from was laid out for p, and has the others draw for it.
func (g *chartGroup) laidOut(from *chartView, p charts.Pane) {
	if p == g.pane {
		return
	}
	g.pane = p
	for _, v := range g.views {
		if v != from {
			v.ask(p)
		}
	}
}

// release lets go of every view's picture: the group was replaced.
func (g *chartGroup) release() {
	for _, v := range g.views {
		v.release()
	}
}

func (g *chartGroup) settled() {
	if g.pending--; g.pending == 0 {
		close(g.done)
	}
}

// drawSlot lets one picture be drawn at a time. Results asks for its four
// at once when a run ends, and drawing them side by side held all their
// working buffers together; one after another they hold one picture's (at
// the end of a Standard run: 313 MB instead of 332 MB).
var drawSlot = make(chan struct{}, 1)

// waitingDraws counts the pictures being drawn or waiting for drawSlot.
var waitingDraws atomic.Int32

// drawing runs draw, which draws one picture, in drawSlot. When no other
// picture waits, the memory drawing used goes back to the system at once
// (free: debug.FreeOSMemory): the app is then mostly idle, and an idle Go
// program collects its garbage only every two minutes (the report sheet
// alone leaves 30 MB of it).
func drawing(draw, free func()) {
	waitingDraws.Add(1)
	drawSlot <- struct{}{}
	draw()
	<-drawSlot
	if waitingDraws.Add(-1) == 0 {
		free()
	}
}
