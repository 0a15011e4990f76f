package charts

import (
	"fmt"
	"image/color"
	"strings"
)

// What only the tests use: helpers that read a value back, and entry
// points the product reaches another way.

// dump writes the drawing as text, one item a line, positions rounded to
// 0.1 px: the golden files compare layouts with it.
func (d *Drawing) dump() string {
	var b strings.Builder
	f := func(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") }
	c := func(v color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x%02x", v.R, v.G, v.B, v.A) }
	fmt.Fprintf(&b, "drawing %s×%s bg %s\n", f(d.width), f(d.height), c(d.bg))
	for _, it := range d.items {
		switch it.kind {
		case itemRect:
			fmt.Fprintf(&b, "rect %s,%s %s×%s r%s fill %s stroke %s/%s\n", f(it.x), f(it.y), f(it.w), f(it.h), f(it.r), c(it.fill), c(it.stroke), f(it.strokeW))
		case itemLine:
			var ps []string
			for _, p := range it.points {
				ps = append(ps, f(p.X)+","+f(p.Y))
			}
			fmt.Fprintf(&b, "line %s %s/%s dashed=%v\n", strings.Join(ps, " "), c(it.stroke), f(it.strokeW), it.dashed)
		case itemCircle:
			fmt.Fprintf(&b, "circle %s,%s r%s fill %s stroke %s/%s\n", f(it.x), f(it.y), f(it.r), c(it.fill), c(it.stroke), f(it.strokeW))
		case itemText:
			fmt.Fprintf(&b, "text %s,%s size %s font %d anchor %d %s %q\n", f(it.x), f(it.y), f(it.size), it.font, it.anchor, c(it.fill), it.text)
		case itemArea:
			var ps []string
			for _, p := range it.points {
				ps = append(ps, f(p.X)+","+f(p.Y))
			}
			fmt.Fprintf(&b, "area %s fill %s\n", strings.Join(ps, " "), c(it.fill))
		case itemGradient:
			fmt.Fprintf(&b, "gradient %s,%s %s×%s stops %d\n", f(it.x), f(it.y), f(it.w), f(it.h), len(it.stops))
		}
	}
	return b.String()
}
