package charts

import (
	"image/color"
)

// Drawing is a laid-out picture: rectangles, lines, circles and text in
// logical pixels, ready to render to PNG or SVG at any scale. Both
// renderers draw the same items, so the two formats match.
type Drawing struct {
	width, height float64
	bg            color.NRGBA
	items         []item
}

// Size is the drawing's size in logical pixels (its size at scale 1).
func (d *Drawing) Size() (width, height int) { return int(d.width), int(d.height) }

// Texts returns every string drawn, in drawing order.
func (d *Drawing) Texts() []string {
	var out []string
	for _, it := range d.items {
		if it.kind == itemText {
			out = append(out, it.text)
		}
	}
	return out
}

type itemKind int

const (
	itemRect itemKind = iota
	itemLine
	itemCircle
	itemText
	itemGradient
	itemArea // a filled polygon (an interval's band)
)

type anchor int

const (
	anchorStart anchor = iota
	anchorMiddle
	anchorEnd
)

type pt struct{ X, Y float64 }

// item is one shape. Colours with zero alpha are not drawn.
type item struct {
	kind       itemKind
	x, y, w, h float64 // rect, gradient; x,y = centre of a circle, baseline start of text
	r          float64 // corner radius of a rect, radius of a circle
	points     []pt    // line, area
	fill       color.NRGBA
	stroke     color.NRGBA
	strokeW    float64
	dashed     bool
	text       string
	size       float64
	font       fontKind
	anchor     anchor
	stops      []color.NRGBA // gradient, bottom to top
}

// textStyle is how a piece of text looks.
type textStyle struct {
	size   float64
	font   fontKind
	anchor anchor
	color  color.NRGBA
}

func (d *Drawing) add(it item) { d.items = append(d.items, it) }

func (d *Drawing) rect(x, y, w, h float64, fill color.NRGBA) {
	d.add(item{kind: itemRect, x: x, y: y, w: w, h: h, fill: fill})
}

func (d *Drawing) roundRect(x, y, w, h, r float64, fill, stroke color.NRGBA, strokeW float64) {
	d.add(item{kind: itemRect, x: x, y: y, w: w, h: h, r: r, fill: fill, stroke: stroke, strokeW: strokeW})
}

func (d *Drawing) line(x1, y1, x2, y2 float64, c color.NRGBA, w float64) {
	d.add(item{kind: itemLine, points: []pt{{x1, y1}, {x2, y2}}, stroke: c, strokeW: w})
}

func (d *Drawing) polyline(points []pt, c color.NRGBA, w float64, dashed bool) {
	d.add(item{kind: itemLine, points: points, stroke: c, strokeW: w, dashed: dashed})
}

func (d *Drawing) circle(x, y, r float64, fill, stroke color.NRGBA, strokeW float64) {
	d.add(item{kind: itemCircle, x: x, y: y, r: r, fill: fill, stroke: stroke, strokeW: strokeW})
}

// area fills the polygon through points (at least three).
func (d *Drawing) area(points []pt, fill color.NRGBA) {
	if len(points) >= 3 {
		d.add(item{kind: itemArea, points: points, fill: fill})
	}
}

func (d *Drawing) gradient(x, y, w, h float64, stops []color.NRGBA) {
	d.add(item{kind: itemGradient, x: x, y: y, w: w, h: h, stops: stops})
}

// text draws s (as pictureText cuts it) with its baseline at y; it
// returns the text's width.
func (d *Drawing) text(x, y float64, s string, st textStyle) float64 {
	if s = pictureText(s); s == "" {
		return 0
	}
	d.add(item{kind: itemText, x: x, y: y, text: s, size: st.size, font: st.font, anchor: st.anchor, fill: st.color})
	return textWidth(s, st.font, st.size)
}
