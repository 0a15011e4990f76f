package widget

import (
	"image"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"speedmatrix/app"
	"speedmatrix/charts"
)

// ChartMinSize is the smallest a chart view asks for: the screens stay
// usable in a small window, where the chart shrinks or scrolls.
var ChartMinSize = fyne.NewSize(320, 200)

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
	DarkTheme() bool
	ChartCache() *app.PictureCache
	FreeMemory()
	Do(f func())
}

// ChartView shows a picture drawn for its area's pixel size, in the app's
// theme: laid out for the area's width and height at the screen's scale,
// so one pixel of the picture is one pixel of the screen. A picture much
// taller than the area (the report sheet) scrolls. Pictures are drawn off
// the UI goroutine; until one is ready the area stays as it was (blank at
// first, then the previous picture, scaled): nothing flashes in between.
type ChartView struct {
	host   chartHost
	Source string // what it shows, for the picture cache
	draw   chartDraw
	group  *ChartGroup // nil: on its own
	// OnFail is called, on the UI goroutine, when the first picture
	// cannot be drawn; a later failure keeps the picture shown.
	OnFail func(error)

	Img     *canvas.Image
	Frame   *pictureLayout
	Scroll  *container.Scroll
	obj     *fyne.Container
	area    fyne.Size      // the area last laid out
	Shown   app.PictureKey // what img holds; zero before the first picture
	shownW  float32        // the width of the area the shown picture was drawn for
	shownSz fyne.Size      // its size on screen when the area has that width
	Want    app.PictureKey // the picture asked for last
	timer   *time.Timer
	Settled bool // the first picture is shown, or failed
	gone    bool // released: it shows nothing and asks for nothing
}

// NewChartView is a view of the pictures draw makes; source names them in
// the picture cache (a report's chart, a comparison).
func NewChartView(host chartHost, source string, draw chartDraw) *ChartView {
	v := &ChartView{host: host, Source: source, draw: draw, Img: &canvas.Image{}, Frame: &pictureLayout{}}
	v.Img.FillMode = canvas.ImageFillStretch
	// The picture has the pixels of its place on screen: no scaling on the
	// CPU, and between a resize and the new picture the GPU's is enough.
	v.Img.ScaleMode = canvas.ImageScaleFastest
	v.Scroll = container.NewVScroll(container.New(v.Frame, v.Img))
	v.obj = container.New(v, v.Scroll)
	return v
}

// Object is the view's canvas object.
func (v *ChartView) Object() fyne.CanvasObject { return v.obj }

// Layout fills the area with the scroll and asks for the picture of the
// area's size and the app's theme (a theme change refreshes, so lays out,
// every object).
func (v *ChartView) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	v.Scroll.Resize(size)
	v.Scroll.Move(fyne.NewPos(0, 0))
	if size.Width < 1 || size.Height < 1 {
		return
	}
	p := v.PaneFor(size)
	changed := size != v.area
	v.area = size
	v.Ask(p)
	if changed && v.group != nil {
		v.group.laidOut(v, p)
	}
	v.place()
}

// MinSize is small: the chart is drawn for whatever area it gets.
func (v *ChartView) MinSize([]fyne.CanvasObject) fyne.Size { return ChartMinSize }

// PaneFor is the pane of an area of this size on the view's screen.
func (v *ChartView) PaneFor(size fyne.Size) charts.Pane {
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(v.obj); c != nil && c.Scale() > 0 {
		scale = c.Scale()
	}
	return charts.Pane{Width: float64(size.Width), Height: float64(size.Height), Scale: float64(scale)}
}

// Ask makes the picture for p the one to show: at once when it is shown
// or kept, else drawn in the background, after redrawDelay when a
// picture is already shown (the area may still be changing).
func (v *ChartView) Ask(p charts.Pane) {
	k := app.KeyFor(v.Source, p, v.host.DarkTheme())
	if v.gone || k == v.Want {
		return
	}
	v.Want = k
	if v.timer != nil {
		v.timer.Stop()
		v.timer = nil
	}
	if k == v.Shown {
		return
	}
	if img, ok := v.host.ChartCache().Get(k); ok {
		v.Show(k, p, img)
		return
	}
	if v.Shown == (app.PictureKey{}) {
		go v.render(k, p)
		return
	}
	v.timer = time.AfterFunc(redrawDelay, func() { v.render(k, p) })
}

// render draws the picture k off the UI goroutine and, if it is still
// the one wanted, keeps and shows it.
func (v *ChartView) render(k app.PictureKey, p charts.Pane) {
	var img image.Image
	var err error
	Drawing(func() { img, err = v.draw(p, k.Dark) }, v.host.FreeMemory)
	v.host.Do(func() {
		if k != v.Want {
			return // a newer size or theme is wanted
		}
		if err == nil {
			v.host.ChartCache().Put(k, img)
		}
		if err != nil {
			v.fail(err)
			return
		}
		v.Show(k, p, img)
	})
}

// Show puts the picture k, drawn for pane p, in place.
func (v *ChartView) Show(k app.PictureKey, p charts.Pane, img image.Image) {
	b := img.Bounds()
	v.Shown, v.shownW = k, float32(p.Width)
	v.shownSz = fyne.NewSize(float32(float64(b.Dx())/k.Scale), float32(float64(b.Dy())/k.Scale))
	v.Img.Image = img
	v.Img.Refresh()
	v.place()
	v.settle()
}

// Release lets go of the picture of a view that left the screen for good:
// Fyne keeps what it drew for an object until a frame after FYNE_CACHE,
// which an idle window may not paint for minutes, and the view's picture
// with it. A picture still being drawn for it is not shown.
func (v *ChartView) Release() {
	v.gone = true
	if v.timer != nil {
		v.timer.Stop()
		v.timer = nil
	}
	v.Want, v.Shown = app.PictureKey{}, app.PictureKey{}
	v.Img.Image = nil
}

func (v *ChartView) fail(err error) {
	if v.Shown == (app.PictureKey{}) && v.OnFail != nil {
		v.OnFail(err)
	}
	v.settle()
}

// settle tells the group, once, that the view has its first picture or
// will not get one.
func (v *ChartView) settle() {
	if !v.Settled {
		v.Settled = true
		if v.group != nil {
			v.group.settled()
		}
	}
}

// place sizes the picture: as drawn, or, while the picture for a new area
// width is being drawn, the old one scaled to that width.
func (v *ChartView) place() {
	if v.Img.Image == nil {
		return
	}
	size := v.shownSz
	if v.area.Width > 0 && v.shownW > 0 && v.area.Width != v.shownW {
		f := v.area.Width / v.shownW
		size = fyne.NewSize(size.Width*f, size.Height*f)
	}
	if size != v.Frame.Size {
		v.Frame.Size = size
		v.Scroll.Refresh()
	}
}

// pictureLayout puts the picture at the top left at its size on screen.
type pictureLayout struct{ Size fyne.Size }

// Layout places the picture.
func (l *pictureLayout) Layout(objs []fyne.CanvasObject, _ fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(l.Size)
	}
}

// MinSize is the picture's size, so the scroll knows how tall it is.
func (l *pictureLayout) MinSize([]fyne.CanvasObject) fyne.Size { return l.Size }

// ChartGroup is the chart views of a screen that share one area (the
// Results tabs): when one is laid out at a new size, the others draw for
// it in the background, so switching to them shows them at once.
type ChartGroup struct {
	Views   []*ChartView
	Pane    charts.Pane   // the area the group was last laid out in
	pending int           // views without their first picture
	Done    chan struct{} // closed when none is left
}

// NewChartGroup is a group that will hold n views.
func NewChartGroup(n int) *ChartGroup { return &ChartGroup{pending: n, Done: make(chan struct{})} }

// Add makes v one of the group's views.
func (g *ChartGroup) Add(v *ChartView) {
	v.group = g
	g.Views = append(g.Views, v)
}

// DrawFor asks every view for its picture for p.
func (g *ChartGroup) DrawFor(p charts.Pane) {
	g.Pane = p
	for _, v := range g.Views {
		v.Ask(p)
	}
}

// laidOut hears that from was laid out for p, and has the others draw for it.
func (g *ChartGroup) laidOut(from *ChartView, p charts.Pane) {
	if p == g.Pane {
		return
	}
	g.Pane = p
	for _, v := range g.Views {
		if v != from {
			v.Ask(p)
		}
	}
}

// Release lets go of every view's picture: the group was replaced.
func (g *ChartGroup) Release() {
	for _, v := range g.Views {
		v.Release()
	}
}

func (g *ChartGroup) settled() {
	if g.pending--; g.pending == 0 {
		close(g.Done)
	}
}

// drawSlot lets one picture be drawn at a time. Results asks for its four
// at once when a run ends, and drawing them side by side held all their
// working buffers together; one after another they hold one picture's (at
// the end of a Standard run: 313 MB instead of 332 MB).
var drawSlot = make(chan struct{}, 1)

// waitingDraws counts the pictures being drawn or waiting for drawSlot.
var waitingDraws atomic.Int32

// Drawing runs draw, which draws one picture, in drawSlot. When no other
// picture waits, the memory Drawing used goes back to the system at once
// (free: debug.FreeOSMemory): the app is then mostly idle, and an idle Go
// program collects its garbage only every two minutes (the report sheet
// alone leaves 30 MB of it).
func Drawing(draw, free func()) {
	waitingDraws.Add(1)
	drawSlot <- struct{}{}
	draw()
	<-drawSlot
	if waitingDraws.Add(-1) == 0 {
		free()
	}
}
