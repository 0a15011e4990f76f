package charts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"
)

// WriteSVG writes the drawing as a standalone SVG document whose displayed
// size is Size()×scale. Text uses a font-family fallback list, so no font
// file is needed to view it.
func (d *Drawing) WriteSVG(w io.Writer, scale int) error {
	return d.writeSVG(context.Background(), w, scale)
}

// writeSVG is WriteSVG, given up with ctx's error once ctx is done.
func (d *Drawing) writeSVG(ctx context.Context, w io.Writer, scale int) error {
	if scale < 1 {
		scale = 1
	}
	bw := bufio.NewWriter(w)
	sw := &svgWriter{w: bw}
	sw.printf(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" stroke="none">`+"\n",
		num(d.width*float64(scale)), num(d.height*float64(scale)), num(d.width), num(d.height))
	sw.printf("<style>text{white-space:pre;font-family:%s}.b{font-weight:700}.m{font-family:%s}</style>\n",
		svgFontFamilies[fontRegular], svgFontFamilies[fontMono])
	sw.printf(`<rect width="100%%" height="100%%" fill="%s"/>`+"\n", svgColor(d.bg))
	for i, it := range d.items {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		sw.item(i, it)
	}
	sw.printf("</svg>\n")
	if sw.err != nil {
		return fmt.Errorf("write svg: %w", sw.err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// svg returns the drawing as an SVG document at the given scale.
func (d *Drawing) svg(scale int) ([]byte, error) {
	var b bytes.Buffer
	err := d.WriteSVG(&b, scale)
	return b.Bytes(), err
}

type svgWriter struct {
	w   *bufio.Writer
	err error
}

func (s *svgWriter) printf(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// n2 rounds coordinates to 0.01 px to keep files small.
func n2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func svgColor(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// paint writes a fill or stroke attribute, with its opacity when not opaque.
func paint(attr string, c color.NRGBA) string {
	if c.A == 0 {
		return attr + `="none"`
	}
	s := fmt.Sprintf(`%s="%s"`, attr, svgColor(c))
	if c.A < 255 {
		s += fmt.Sprintf(` %s-opacity="%s"`, attr, n2(float64(c.A)/255))
	}
	return s
}

func (s *svgWriter) item(i int, it item) {
	switch it.kind {
	case itemRect:
		s.printf(`<rect x="%s" y="%s" width="%s" height="%s"`, n2(it.x), n2(it.y), n2(it.w), n2(it.h))
		if it.r > 0 {
			s.printf(` rx="%s"`, n2(it.r))
		} else {
			s.printf(` shape-rendering="crispEdges"`)
		}
		s.printf(" %s", paint("fill", it.fill))
		if it.stroke.A > 0 {
			s.printf(` %s stroke-width="%s"`, paint("stroke", it.stroke), n2(it.strokeW))
		}
		s.printf("/>\n")
	case itemLine:
		var ps []string
		for _, p := range it.points {
			ps = append(ps, n2(p.X)+","+n2(p.Y))
		}
		s.printf(`<polyline points="%s" fill="none" %s stroke-width="%s" stroke-linecap="round" stroke-linejoin="round"`,
			strings.Join(ps, " "), paint("stroke", it.stroke), n2(it.strokeW))
		if it.dashed {
			s.printf(` stroke-dasharray="%s %s"`, n2(3*it.strokeW+3), n2(2*it.strokeW+2))
		}
		s.printf("/>\n")
	case itemCircle:
		s.printf(`<circle cx="%s" cy="%s" r="%s" %s`, n2(it.x), n2(it.y), n2(it.r), paint("fill", it.fill))
		if it.stroke.A > 0 {
			s.printf(` %s stroke-width="%s"`, paint("stroke", it.stroke), n2(it.strokeW))
		}
		s.printf("/>\n")
	case itemText:
		s.text(it)
	case itemArea:
		var ps []string
		for _, p := range it.points {
			ps = append(ps, n2(p.X)+","+n2(p.Y))
		}
		s.printf(`<polygon points="%s" %s/>`+"\n", strings.Join(ps, " "), paint("fill", it.fill))
	case itemGradient:
		// Thin bands rather than a <linearGradient>: every SVG renderer
		// draws rectangles, not every one draws gradients.
		n := max(2, int(it.h/2))
		band := it.h / float64(n)
		for k := 0; k < n; k++ {
			c := colorAt(it.stops, 1-(float64(k)+0.5)/float64(n))
			s.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
				n2(it.x), n2(it.y+float64(k)*band), n2(it.w), n2(band+0.6), svgColor(c))
		}
	}
}

func (s *svgWriter) text(it item) {
	class := ""
	switch it.font {
	case fontBold:
		class = ` class="b"`
	case fontMono:
		class = ` class="m"`
	}
	anchor := ""
	switch it.anchor {
	case anchorMiddle:
		anchor = ` text-anchor="middle"`
	case anchorEnd:
		anchor = ` text-anchor="end"`
	}
	var esc bytes.Buffer
	if err := xml.EscapeText(&esc, []byte(it.text)); err != nil && s.err == nil {
		s.err = err
	}
	s.printf(`<text x="%s" y="%s" font-size="%s"%s%s %s>%s</text>`+"\n",
		n2(it.x), n2(it.y), n2(it.size), class, anchor, paint("fill", it.fill), esc.String())
}
