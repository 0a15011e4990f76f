package charts

import (
	"image/color"
	"math"
)

// Sheet geometry, in logical pixels.
const (
	sheetWidth   = 1280.0
	sheetMargin  = 48.0
	sheetGap     = 44.0 // between sections
	prefillListW = 320.0
	sheetChartH  = 400.0
)

// layoutSheet lays out the whole report: everything a reference report page holds.
func layoutSheet(m Model, p palette, f frame) *Drawing {
	d := &Drawing{width: f.width, bg: p.bg}
	margin := sheetMargin
	if f.screen && f.width < sheetWidth {
		margin = figureMargin
	}
	x, w := margin, f.width-2*margin
	heat := exportHeat
	if f.screen {
		heat = screenHeat(p, m.Decode, w, 0)
	}
	y := drawSheetHeader(d, p, m.Header, x, margin, w)
	y = drawSections(d, p, m.Sections, x, y+sheetGap-8, w)
	if len(m.Launch) > 0 {
		y = drawLaunch(d, p, m.Launch, x, y+sheetGap-12, w)
	}
	y = drawHeading(d, p, m.Prefill.Title, "prompt tok/s by context length", x, y+sheetGap)
	chartW, listBottom := w, y
	if len(m.PrefillRows) > 0 {
		chartW = w - prefillListW - 28
		listBottom = drawPrefillList(d, p, m.PrefillRows, x+chartW+28, y+8, prefillListW)
	}
	drawLineChart(d, p, m.Prefill, x, y, chartW, sheetChartH)
	y = math.Max(y+sheetChartH, listBottom)
	y = drawChartNotes(d, p, m.Prefill, x, y, w)
	y = drawHeading(d, p, m.Decode.Title, m.Decode.Subtitle, x, y+sheetGap)
	y = drawHeatmap(d, p, m.Decode, x, y, w, heat)
	if m.SLO != nil {
		y = drawSLOSection(d, p, *m.SLO, x, y+sheetGap-8, w)
	}
	y = drawHeading(d, p, m.PerRequest.Title, m.PerRequest.Subtitle, x, y+sheetGap-8)
	drawLineChart(d, p, m.PerRequest, x, y, w, sheetChartH-40)
	y += sheetChartH - 40
	if m.Quality != nil {
		y = drawQualitySection(d, p, *m.Quality, x, y+sheetGap, w)
	}
	y = drawHeading(d, p, m.Table.Title, "", x, y+sheetGap)
	y = drawTable(d, p, m.Table, x, y, w)
	d.height = math.Ceil(y + margin)
	return d
}

// drawSheetHeader draws the title, model line, subtitle, badge and the
// simulated, partial-run and GPU throttle banners; it returns the y below.
func drawSheetHeader(d *Drawing, p palette, h Header, x, y, w float64) float64 {
	d.text(x, y+30, h.Title, textStyle{size: 32, font: fontBold, color: p.text})
	drawBadge(d, p, h, x+w, y+19, 13)
	for _, l := range wrapText(h.Model, fontRegular, 21, w) {
		d.text(x, y+64, l, textStyle{size: 21, color: p.text})
		y += 27
	}
	y += 37
	sub := h.ServerLine
	if h.MatrixLine != "" {
		if sub != "" {
			sub += " · "
		}
		sub += h.MatrixLine
	}
	for _, l := range wrapText(sub, fontRegular, 14, w) {
		d.text(x, y+19, l, textStyle{size: 14, color: p.muted})
		y += 20
	}
	if h.Simulated {
		y = drawBanner(d, p.simulated, p.simulatedText, h.Badge+": every figure on this sheet comes from Speed Matrix's built-in simulator, not from a real GPU.", x, y+14, w)
	}
	if h.Notice != "" {
		y = drawBanner(d, p.panel, p.muted, h.Notice, x, y+14, w)
	}
	if h.Throttle != "" {
		y = drawBanner(d, p.looped, p.loopedText, h.Throttle, x, y+14, w)
	}
	if h.PCIe != "" {
		y = drawBanner(d, p.looped, p.loopedText, h.PCIe, x, y+14, w)
	}
	return y
}

func drawBanner(d *Drawing, bg, fg color.Color, text string, x, y, w float64) float64 {
	bgc, fgc := toNRGBA(bg), toNRGBA(fg)
	lines := wrapText(text, fontBold, 13.5, w-32)
	h := float64(len(lines))*19 + 18
	d.roundRect(x, y, w, h, 8, bgc, withAlpha(fgc, 0.35), 1)
	for i, l := range lines {
		d.text(x+16, y+23+float64(i)*19, l, textStyle{size: 13.5, font: fontBold, color: fgc})
	}
	return y + h
}

// drawHeading draws a section title and its caption; it returns the y
// where the section's content starts.
func drawHeading(d *Drawing, p palette, title, caption string, x, y float64) float64 {
	d.text(x, y+20, title, textStyle{size: 21, font: fontBold, color: p.text})
	if caption == "" {
		return y + 36
	}
	d.text(x, y+42, caption, textStyle{size: 13, color: p.muted})
	return y + 54
}

// drawSections draws Hardware, Engine and Run side by side.
func drawSections(d *Drawing, p palette, secs []section, x, y, w float64) float64 {
	const gap = 32.0
	colW := (w - gap*float64(len(secs)-1)) / float64(len(secs))
	bottom := y
	for i, s := range secs {
		cx := x + float64(i)*(colW+gap)
		d.text(cx, y+18, s.Title, textStyle{size: 17, font: fontBold, color: p.text})
		d.line(cx, y+28, cx+colW, y+28, p.border, 1)
		keyW := 0.0
		for _, kv := range s.Rows {
			keyW = math.Max(keyW, textWidth(kv.Key, fontRegular, 12.5))
		}
		cy := y + 48
		if len(s.Rows) == 0 {
			d.text(cx, cy, "not recorded", textStyle{size: 12.5, color: p.faint})
			cy += 21
		}
		for _, kv := range s.Rows {
			d.text(cx, cy, kv.Key, textStyle{size: 12.5, color: p.muted})
			for _, l := range wrapText(kv.Value, fontRegular, 12.5, colW-keyW-14) {
				d.text(cx+keyW+14, cy, l, textStyle{size: 12.5, color: p.text})
				cy += 17
			}
			cy += 4
		}
		bottom = math.Max(bottom, cy)
	}
	return bottom
}

// drawLaunch draws the launch command in a code panel.
func drawLaunch(d *Drawing, p palette, lines []string, x, y, w float64) float64 {
	d.text(x, y+18, "Launch command", textStyle{size: 17, font: fontBold, color: p.text})
	y += 30
	var wrapped []string
	for _, l := range lines {
		wrapped = append(wrapped, wrapText(l, fontMono, 12, w-32)...)
	}
	h := float64(len(wrapped))*18 + 22
	d.roundRect(x, y, w, h, 8, p.code, p.border, 1)
	for i, l := range wrapped {
		d.text(x+16, y+25+float64(i)*18, l, textStyle{size: 12, font: fontMono, color: p.text})
	}
	return y + h
}

// drawPrefillList is the reference reports' prefill list: context, prompt tok/s, TTFT.
func drawPrefillList(d *Drawing, p palette, rows []PrefillRow, x, y, w float64) float64 {
	ttftW := textWidth("TTFT", fontBold, 11.5)
	for _, r := range rows {
		ttftW = math.Max(ttftW, textWidth(r.TTFT, fontRegular, 12.5))
	}
	tpsX := x + w - 16 - ttftW - 22
	h := float64(len(rows))*34 + 40
	d.roundRect(x, y, w, h, 8, p.panel, p.border, 1)
	d.text(x+16, y+24, "context", textStyle{size: 11.5, font: fontBold, color: p.muted})
	d.text(tpsX, y+24, "prompt tok/s", textStyle{size: 11.5, font: fontBold, anchor: anchorEnd, color: p.muted})
	d.text(x+w-16, y+24, "TTFT", textStyle{size: 11.5, font: fontBold, anchor: anchorEnd, color: p.muted})
	for i, r := range rows {
		ry := y + 40 + float64(i)*34
		d.line(x+12, ry, x+w-12, ry, p.border, 1)
		d.text(x+16, ry+22, r.Context, textStyle{size: 13, color: p.text})
		d.text(tpsX, ry+22, r.TokPerSec, textStyle{size: 15, font: fontBold, anchor: anchorEnd, color: p.primaryText})
		d.text(x+w-16, ry+22, r.TTFT, textStyle{size: 12.5, anchor: anchorEnd, color: p.secondaryText})
	}
	return y + h
}
