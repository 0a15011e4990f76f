package charts

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// Image renders the drawing at the given scale (1 or more): an image of
// Size()×scale pixels.
func (d *Drawing) Image(scale int) *image.RGBA {
	return d.Rasterize(float64(max(scale, 1)))
}

// Rasterize renders the drawing at any scale above 0, such as a screen's
// 1.25: an image of Size()×scale pixels, rounded. Text is laid out anew
// at the scaled size, so the picture is as sharp as at a whole scale.
func (d *Drawing) Rasterize(scale float64) *image.RGBA {
	img, _ := d.rasterize(context.Background(), scale) // fails only when ctx does
	return img
}

// rasterize is Rasterize, given up with ctx's error once ctx is done.
func (d *Drawing) rasterize(ctx context.Context, scale float64) (*image.RGBA, error) {
	s := scale
	if !(s > 0) {
		s = 1
	}
	img := image.NewRGBA(image.Rect(0, 0, int(math.Round(d.width*s)), int(math.Round(d.height*s))))
	draw.Draw(img, img.Bounds(), image.NewUniform(d.bg), image.Point{}, draw.Src)
	r := &rasterizer{dst: img, s: s, faces: map[faceKey]font.Face{}}
	for i, it := range d.items {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.draw(it)
	}
	return img, nil
}

// checkEvery is how many items a renderer draws between looks at its
// context: a few milliseconds of work at most.
const checkEvery = 64

// WritePNG encodes the drawing at the given scale as PNG.
func (d *Drawing) WritePNG(w io.Writer, scale int) error {
	return d.writePNG(context.Background(), w, scale)
}

// writePNG is WritePNG, given up with ctx's error once ctx is done.
func (d *Drawing) writePNG(ctx context.Context, w io.Writer, scale int) error {
	img, err := d.rasterize(ctx, float64(max(scale, 1)))
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(ctxWriter{ctx: ctx, w: w}, img); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("encode png: %w", err)
	}
	return nil
}

// ctxWriter writes to w until ctx is done, then fails every write.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

// Write writes p to w, or returns ctx's error once ctx is done.
func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// png returns the drawing encoded as PNG at the given scale.
func (d *Drawing) png(scale int) ([]byte, error) {
	var b bytes.Buffer
	err := d.WritePNG(&b, scale)
	return b.Bytes(), err
}

type rasterizer struct {
	dst   *image.RGBA
	s     float64
	faces map[faceKey]font.Face
}

func (r *rasterizer) draw(it item) {
	switch it.kind {
	case itemRect:
		r.rect(it)
	case itemLine:
		r.line(it)
	case itemCircle:
		if it.fill.A > 0 {
			r.fillPath(circlePoly(it.x, it.y, it.r, false), it.fill)
		}
		if it.stroke.A > 0 && it.strokeW > 0 {
			ring := append(circlePoly(it.x, it.y, it.r+it.strokeW/2, false), circlePoly(it.x, it.y, math.Max(0, it.r-it.strokeW/2), true)...)
			r.fillPath(ring, it.stroke)
		}
	case itemText:
		r.text(it)
	case itemArea:
		r.fillPath(orient(append([]pt(nil), it.points...), false), it.fill)
	case itemGradient:
		x0, y0, x1, y1 := r.snap(it.x, it.y, it.w, it.h)
		for y := y0; y < y1; y++ {
			f := 1 - (float64(y-y0)+0.5)/float64(y1-y0)
			draw.Draw(r.dst, image.Rect(x0, y, x1, y+1), image.NewUniform(colorAt(it.stops, f)), image.Point{}, draw.Src)
		}
	}
}

// snap rounds a rectangle to whole device pixels, so edges stay sharp.
func (r *rasterizer) snap(x, y, w, h float64) (x0, y0, x1, y1 int) {
	x0, y0 = int(math.Round(x*r.s)), int(math.Round(y*r.s))
	x1, y1 = int(math.Round((x+w)*r.s)), int(math.Round((y+h)*r.s))
	return
}

func (r *rasterizer) fillRect(x0, y0, x1, y1 int, c color.NRGBA) {
	draw.Draw(r.dst, image.Rect(x0, y0, x1, y1), image.NewUniform(c), image.Point{}, draw.Over)
}

func (r *rasterizer) rect(it item) {
	if it.r > 0 {
		if it.fill.A > 0 {
			r.fillPath(roundRectPoly(it.x, it.y, it.w, it.h, it.r, false), it.fill)
		}
		if it.stroke.A > 0 && it.strokeW > 0 {
			hw := it.strokeW / 2
			ring := append(roundRectPoly(it.x-hw, it.y-hw, it.w+2*hw, it.h+2*hw, it.r+hw, false),
				roundRectPoly(it.x+hw, it.y+hw, it.w-2*hw, it.h-2*hw, math.Max(0, it.r-hw), true)...)
			r.fillPath(ring, it.stroke)
		}
		return
	}
	x0, y0, x1, y1 := r.snap(it.x, it.y, it.w, it.h)
	if it.fill.A > 0 {
		r.fillRect(x0, y0, x1, y1, it.fill)
	}
	if it.stroke.A > 0 && it.strokeW > 0 {
		sw := max(1, int(math.Round(it.strokeW*r.s)))
		r.fillRect(x0, y0, x1, y0+sw, it.stroke)
		r.fillRect(x0, y1-sw, x1, y1, it.stroke)
		r.fillRect(x0, y0+sw, x0+sw, y1-sw, it.stroke)
		r.fillRect(x1-sw, y0+sw, x1, y1-sw, it.stroke)
	}
}

func (r *rasterizer) line(it item) {
	ps := it.points
	// Horizontal and vertical rules snap to the pixel grid: crisp at 1×.
	if len(ps) == 2 && !it.dashed && (ps[0].X == ps[1].X || ps[0].Y == ps[1].Y) {
		sw := max(1, int(math.Round(it.strokeW*r.s)))
		if ps[0].Y == ps[1].Y {
			x0, x1 := math.Min(ps[0].X, ps[1].X), math.Max(ps[0].X, ps[1].X)
			y := int(math.Round(ps[0].Y*r.s - float64(sw)/2))
			r.fillRect(int(math.Round(x0*r.s)), y, int(math.Round(x1*r.s)), y+sw, it.stroke)
		} else {
			y0, y1 := math.Min(ps[0].Y, ps[1].Y), math.Max(ps[0].Y, ps[1].Y)
			x := int(math.Round(ps[0].X*r.s - float64(sw)/2))
			r.fillRect(x, int(math.Round(y0*r.s)), x+sw, int(math.Round(y1*r.s)), it.stroke)
		}
		return
	}
	segs := [][]pt{ps}
	if it.dashed {
		segs = dashes(ps, 3*it.strokeW+3, 2*it.strokeW+2)
	}
	var polys []pt
	for _, seg := range segs {
		polys = append(polys, strokePoly(seg, it.strokeW/2)...)
	}
	r.fillPath(polys, it.stroke)
}

// fillPath fills closed polygons separated by NaN points, all drawn with
// the same orientation so overlaps merge (the rasterizer clamps coverage).
func (r *rasterizer) fillPath(poly []pt, c color.NRGBA) {
	if len(poly) == 0 {
		return
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range poly {
		if math.IsNaN(p.X) {
			continue
		}
		minX, minY = math.Min(minX, p.X*r.s), math.Min(minY, p.Y*r.s)
		maxX, maxY = math.Max(maxX, p.X*r.s), math.Max(maxY, p.Y*r.s)
	}
	b := image.Rect(int(math.Floor(minX))-1, int(math.Floor(minY))-1, int(math.Ceil(maxX))+1, int(math.Ceil(maxY))+1).Intersect(r.dst.Bounds())
	if b.Empty() {
		return
	}
	z := vector.NewRasterizer(b.Dx(), b.Dy())
	start := true
	for _, p := range poly {
		if math.IsNaN(p.X) {
			z.ClosePath()
			start = true
			continue
		}
		x, y := float32(p.X*r.s-float64(b.Min.X)), float32(p.Y*r.s-float64(b.Min.Y))
		if start {
			z.MoveTo(x, y)
			start = false
		} else {
			z.LineTo(x, y)
		}
	}
	z.ClosePath()
	z.DrawOp = draw.Over
	z.Draw(r.dst, b, image.NewUniform(c), image.Point{})
}

func (r *rasterizer) face(kind fontKind, size float64) font.Face {
	k := faceKey{kind, size * r.s}
	f, ok := r.faces[k]
	if !ok {
		f = newFace(kind, size*r.s)
		r.faces[k] = f
	}
	return f
}

func (r *rasterizer) text(it item) {
	face := r.face(it.font, it.size)
	x := it.x * r.s
	w := fixedToFloat(font.MeasureString(face, it.text))
	switch it.anchor {
	case anchorMiddle:
		x -= w / 2
	case anchorEnd:
		x -= w
	}
	dr := font.Drawer{Dst: r.dst, Src: image.NewUniform(it.fill), Face: face,
		Dot: fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.I(int(math.Round(it.y * r.s)))}}
	dr.DrawString(it.text)
}
