package charts

import (
	"image"
	"math"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
)

// frame is the area a layout fills: the export's fixed width, or a pane
// on screen.
type frame struct {
	width float64 // logical pixels
	// height is the pane's height (0: as tall as the picture needs).
	height float64
	// screen is set for a pane: sizes adapt to it, where exports keep the
	// reference layout.
	screen bool
}

// frameFor is the frame of a picture exported exportW wide, or laid out
// for the pane of opts (at least minW wide).
func frameFor(opts Options, exportW, minW float64) frame {
	if opts.Width == 0 {
		return frame{width: exportW}
	}
	return frame{width: math.Max(opts.Width, minW), height: opts.Height, screen: true}
}

// margin is the space around a figure: the export's, less in a narrow pane.
func (f frame) margin(export float64) float64 {
	if f.screen && f.width < 800 {
		return math.Min(export, 16)
	}
	return export
}

// Minimum layout widths on screen, in logical pixels: a narrower pane
// shows the picture shrunk.
const (
	lineMinWidth  = 560.0
	sheetMinWidth = 900.0
)

// Pane is an area of the screen a picture is drawn for.
type Pane struct {
	Width, Height float64 // logical pixels
	// Scale is the screen's device pixels per logical pixel (Fyne's canvas
	// scale, 1.25 or 2 on dense screens); 0 means 1.
	Scale float64
}

// shrinkToFit is how much taller than its pane a picture may be and still
// be shrunk to fit it whole (axes and all); a taller one, like the report
// sheet, keeps its size and scrolls: its text stays readable.
const shrinkToFit = 1.2

// fit is the scale, in device pixels per logical pixel, at which d shows
// in the pane: the pane's own (one logical pixel of d is one of the
// screen), less where d is wider than the pane (its minimum width), or
// taller by up to shrinkToFit times.
func (p Pane) fit(d *Drawing) float64 {
	s := p.Scale
	if s <= 0 {
		s = 1
	}
	f := 1.0
	if p.Width > 0 && d.width > p.Width {
		f = p.Width / d.width
	}
	if h := d.height * f; p.Height > 0 && h > p.Height && h <= p.Height*shrinkToFit {
		f *= p.Height / h
	}
	return s * f
}

// Picture draws one picture of a built model for a pane on screen, in
// theme t: laid out for the pane's size and rendered at its device pixels.
// RenderPNG draws the export instead.
func Picture(kind Kind, m Model, t Theme, p Pane) (*image.RGBA, error) {
	d, err := drawModel(kind, m, p.options(t))
	if err != nil {
		return nil, err
	}
	return d.Rasterize(p.fit(d)), nil
}

// DeltaPicture draws the comparison heatmap of two runs for a pane on screen.
func DeltaPicture(a, b engine.Report, t Theme, p Pane) (*image.RGBA, error) {
	d, err := drawDelta(a, b, p.options(t))
	if err != nil {
		return nil, err
	}
	return d.Rasterize(p.fit(d)), nil
}

// SweepBestPicture draws a sweep's best configuration per cell for a pane
// on screen: the app's preview of sweep-best.png.
func SweepBestPicture(s sweep.Sweep, t Theme, p Pane) (*image.RGBA, error) {
	d, err := drawSweepBest(s, p.options(t))
	if err != nil {
		return nil, err
	}
	return d.Rasterize(p.fit(d)), nil
}

// SweepParetoPicture draws every configuration's cells of a sweep on one
// Pareto chart for a pane on screen: the app's preview of sweep-pareto.png.
func SweepParetoPicture(s sweep.Sweep, runs map[string]engine.Report, t Theme, p Pane) (*image.RGBA, error) {
	d, err := drawSweepPareto(s, runs, p.options(t))
	if err != nil {
		return nil, err
	}
	return d.Rasterize(p.fit(d)), nil
}

func (p Pane) options(t Theme) Options {
	return Options{Theme: t, Width: math.Max(1, p.Width), Height: p.Height}
}
