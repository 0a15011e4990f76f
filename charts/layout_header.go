package charts

// drawBadge draws the Measured / simulated pill with its right edge at x
// and its vertical centre at cy; it returns the pill's width.
func drawBadge(d *Drawing, p palette, h Header, x, cy float64, size float64) float64 {
	bg, fg := p.measured, p.measuredText
	if h.Simulated {
		bg, fg = p.simulated, p.simulatedText
	}
	w, ht := badgeWidth(h, size), size*2
	d.roundRect(x-w, cy-ht/2, w, ht, ht/2, bg, withAlpha(fg, 0.35), 1)
	d.text(x-w/2, cy+size*0.36, h.Badge, textStyle{size: size, font: fontBold, anchor: anchorMiddle, color: fg})
	return w
}

// badgeWidth is how wide drawBadge draws h's badge at size.
func badgeWidth(h Header, size float64) float64 {
	return textWidth(h.Badge, fontBold, size) + 2*size
}

// drawTitle draws a chart's title at the top of (x, y) and its badge at
// the right edge, x+w: the title shrinks (to 15 px at least) to keep clear
// of the badge, and when even that is too wide the badge goes under the
// title. It returns how far that pushed down what follows.
func drawTitle(d *Drawing, p palette, h Header, title string, x, y, w float64) float64 {
	const size, minSize, gap, badgeSize = 21.0, 15.0, 12.0, 12.0
	bw := badgeWidth(h, badgeSize)
	room := w - bw - gap
	if ts := fitSize(title, fontBold, size, minSize, room); textWidth(title, fontBold, ts) <= room {
		d.text(x, y+26, title, textStyle{size: ts, font: fontBold, color: p.text})
		drawBadge(d, p, h, x+w, y+19, badgeSize)
		return 0
	}
	d.text(x, y+26, title, textStyle{size: fitSize(title, fontBold, size, minSize, w), font: fontBold, color: p.text})
	const below = 2*badgeSize + 8
	drawBadge(d, p, h, x+bw, y+19+below, badgeSize)
	return below
}

// drawChartHeader draws a standalone chart's title, caption, the run it
// comes from (with its Measured / simulated badge) and the GPU throttle
// verdict when some cell was throttled; it returns the y below.
func drawChartHeader(d *Drawing, p palette, m Model, title, subtitle string, x, y, w float64) float64 {
	y += drawTitle(d, p, m.Header, title, x, y, w)
	d.text(x, y+48, subtitle, textStyle{size: 13, color: p.muted})
	caption := m.Header.Model
	if m.Header.ServerLine != "" {
		caption += " · " + m.Header.ServerLine
	}
	lines := wrapText(caption, fontRegular, 12, w)
	for i, l := range lines {
		d.text(x, y+68+float64(i)*16, l, textStyle{size: 12, color: p.faint})
	}
	y += 68 + float64(len(lines)-1)*16
	// A throttled run, or a GPU on a slow link, says so on every picture:
	// its figures may be low.
	for _, warn := range []string{m.Header.Throttle, m.Header.PCIe} {
		if warn == "" {
			continue
		}
		for _, l := range wrapText(warn, fontBold, 12, w) {
			d.text(x, y+18, l, textStyle{size: 12, font: fontBold, color: p.loopedText})
			y += 16
		}
	}
	return y + 14
}
