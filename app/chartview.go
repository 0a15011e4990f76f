package app

import (
	"bytes"
	"image"
	_ "image/png" // the charts are PNG

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
)

// chartMinSize is the smallest a chart view asks for: the screens stay
// usable in a small window, where the chart shrinks or scrolls.
var chartMinSize = fyne.NewSize(320, 200)

// newChartView shows a chart PNG at the top of its area, as wide as the
// area (keeping its aspect). A chart up to twice as tall as the area
// shrinks to fit it whole (axes and all); a taller one, like the report
// sheet, keeps the width and scrolls.
// It returns nil when png is not a decodable image.
func newChartView(png []byte, name string) fyne.CanvasObject {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(png))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil
	}
	img := canvas.NewImageFromReader(bytes.NewReader(png), name)
	img.FillMode = canvas.ImageFillContain
	img.ScaleMode = canvas.ImageScaleSmooth
	l := &fitWidth{img: img, aspect: float32(cfg.Height) / float32(cfg.Width)}
	l.scroll = container.NewVScroll(container.NewVBox(img))
	return container.New(l, l.scroll)
}

// shrinkToFit is how much taller than its area a chart may be and still
// be shrunk to fit it rather than scrolled.
const shrinkToFit = 2

// fitWidth lays out a chart's scroll: it sizes the image to the width the
// scroll has, so the scroll knows how tall the chart is.
type fitWidth struct {
	img    *canvas.Image
	aspect float32 // height / width of the picture
	scroll *container.Scroll
	width  float32 // the width the image was last sized for
}

// Layout sizes the image to the area's width and the scroll to the area.
func (l *fitWidth) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	w, h := size.Width, size.Width*l.aspect
	if h > size.Height && h <= size.Height*shrinkToFit {
		w, h = size.Height/l.aspect, size.Height
	}
	if w != l.width {
		l.width = w
		l.img.SetMinSize(fyne.NewSize(w, h))
		l.scroll.Resize(size)
		l.scroll.Refresh()
	} else {
		l.scroll.Resize(size)
	}
	l.scroll.Move(fyne.NewPos(0, 0))
}

// MinSize is small: the chart scales to whatever area it gets.
func (l *fitWidth) MinSize([]fyne.CanvasObject) fyne.Size { return chartMinSize }
