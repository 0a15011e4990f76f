package widget

import (
	"image"
	"image/png"
	"os"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/software"
)

// CaptureWindow paints the window's content with Fyne's software painter:
// reading back the GL front buffer gives a blank image under Xvfb.
func CaptureWindow(win fyne.Window) image.Image {
	content, size := win.Content(), win.Canvas().Size()
	c := software.NewCanvas()
	c.SetPadded(false)
	c.SetContent(content)
	c.Resize(size)
	overlays := win.Canvas().Overlays().List() // an open menu or dialog is part of the picture
	for _, o := range overlays {
		c.Overlays().Add(o)
	}
	img := c.Capture()
	for _, o := range slices.Backward(overlays) {
		c.Overlays().Remove(o)
	}
	win.SetContent(content)
	return img
}

// WritePNG writes img into the file at path.
func WritePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
