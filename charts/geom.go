package charts

import "math"

// sep separates polygons in a point list.
var sep = pt{math.NaN(), math.NaN()}

// orient returns poly counter-clockwise in screen space (or clockwise when
// cw), so that polygons drawn together either merge or cut holes.
func orient(poly []pt, cw bool) []pt {
	var area float64
	for i := range poly {
		j := (i + 1) % len(poly)
		area += poly[i].X*poly[j].Y - poly[j].X*poly[i].Y
	}
	if (area < 0) != cw {
		for i, j := 0, len(poly)-1; i < j; i, j = i+1, j-1 {
			poly[i], poly[j] = poly[j], poly[i]
		}
	}
	return append(poly, sep)
}

func circlePoly(cx, cy, r float64, cw bool) []pt {
	n := max(12, int(r*4))
	n = min(n, 96)
	poly := make([]pt, 0, n+1)
	for i := 0; i < n; i++ {
		a := 2 * math.Pi * float64(i) / float64(n)
		poly = append(poly, pt{cx + r*math.Cos(a), cy + r*math.Sin(a)})
	}
	return orient(poly, cw)
}

func roundRectPoly(x, y, w, h, r float64, cw bool) []pt {
	r = math.Min(r, math.Min(w, h)/2)
	var poly []pt
	corners := []struct{ cx, cy, a0 float64 }{
		{x + w - r, y + r, -math.Pi / 2}, {x + w - r, y + h - r, 0},
		{x + r, y + h - r, math.Pi / 2}, {x + r, y + r, math.Pi},
	}
	for _, c := range corners {
		for i := 0; i <= 6; i++ {
			a := c.a0 + float64(i)/6*math.Pi/2
			poly = append(poly, pt{c.cx + r*math.Cos(a), c.cy + r*math.Sin(a)})
		}
	}
	return orient(poly, cw)
}

// strokePoly outlines a polyline of half-width hw: a quad per segment and
// a disc at each vertex (round joins and caps).
func strokePoly(ps []pt, hw float64) []pt {
	var out []pt
	for i := 0; i+1 < len(ps); i++ {
		a, b := ps[i], ps[i+1]
		dx, dy := b.X-a.X, b.Y-a.Y
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*hw, dx/l*hw
		out = append(out, orient([]pt{{a.X + nx, a.Y + ny}, {b.X + nx, b.Y + ny}, {b.X - nx, b.Y - ny}, {a.X - nx, a.Y - ny}}, false)...)
	}
	for _, p := range ps {
		out = append(out, circlePoly(p.X, p.Y, hw, false)...)
	}
	return out
}

// dashes cuts a polyline into dashes of length on separated by gaps of off.
func dashes(ps []pt, on, off float64) [][]pt {
	var out [][]pt
	var cur []pt
	drawing, left := true, on
	for i := 0; i+1 < len(ps); i++ {
		a, b := ps[i], ps[i+1]
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		pos := 0.0
		if drawing && len(cur) == 0 {
			cur = []pt{a}
		}
		for l-pos > left {
			pos += left
			p := pt{a.X + (b.X-a.X)*pos/l, a.Y + (b.Y-a.Y)*pos/l}
			if drawing {
				out = append(out, append(cur, p))
				cur = nil
			} else {
				cur = []pt{p}
			}
			drawing = !drawing
			left = map[bool]float64{true: on, false: off}[drawing]
		}
		left -= l - pos
		if drawing {
			cur = append(cur, b)
		}
	}
	if len(cur) > 1 {
		out = append(out, cur)
	}
	return out
}
