package charts

import (
	"image/color"
	"math"
	"strings"

	"speedmatrix/engine"
)

// Table geometry, in logical pixels.
const (
	tableFont    = 12.0
	tableHeadFnt = 11.5
	tableRowH    = 24.0
	tablePadX    = 8.0
)

// tableLayout is the width and header lines of each column.
type tableLayout struct {
	widths []float64
	heads  [][]string
}

// fitTable sizes each column to its widest cell; a header wider than its
// cells wraps onto two lines. Spare width is shared out evenly.
func fitTable(t Table, w float64) tableLayout {
	var l tableLayout
	total := 0.0
	for j, c := range t.Columns {
		cellW := 0.0
		for _, r := range t.Rows {
			cellW = math.Max(cellW, textWidth(r.Cells[j], fontRegular, tableFont))
		}
		head := []string{c.Title}
		if full := textWidth(c.Title, fontBold, tableHeadFnt); full > cellW {
			head = splitHeader(c.Title)
		}
		headW := 0.0
		for _, h := range head {
			headW = math.Max(headW, textWidth(h, fontBold, tableHeadFnt))
		}
		cw := math.Max(cellW, headW) + 2*tablePadX
		l.widths = append(l.widths, cw)
		l.heads = append(l.heads, head)
		total += cw
	}
	if extra := w - total; extra > 0 && len(l.widths) > 0 {
		for j := range l.widths {
			l.widths[j] += extra / float64(len(l.widths))
		}
	}
	return l
}

// splitHeader breaks a title into the two lines of most equal width.
func splitHeader(title string) []string {
	words := strings.Fields(title)
	if len(words) < 2 {
		return []string{title}
	}
	best, bestW := []string{title}, math.Inf(1)
	for i := 1; i < len(words); i++ {
		a, b := strings.Join(words[:i], " "), strings.Join(words[i:], " ")
		if w := math.Max(textWidth(a, fontBold, tableHeadFnt), textWidth(b, fontBold, tableHeadFnt)); w < bestW {
			best, bestW = []string{a, b}, w
		}
	}
	return best
}

func statusTextColor(p palette, s engine.Status) color.NRGBA {
	switch s {
	case engine.StatusValid:
		return p.text
	case engine.StatusLooped:
		return p.loopedText
	case engine.StatusFailed:
		return p.failedText
	case engine.StatusOverCapacity:
		return p.overText
	}
	return p.pendingText
}

// drawTable draws the notes, header and rows of t from (x, y) in a column
// w wide; it returns the y below.
func drawTable(d *Drawing, p palette, t Table, x, y, w float64) float64 {
	for _, n := range t.NotesBefore {
		d.text(x, y+13, n, textStyle{size: 12.5, color: p.muted})
		y += 24
	}
	l := fitTable(t, w)
	headH := 16.0*2 + 10
	d.rect(x, y, w, headH, p.panel)
	cx := x
	for j, c := range t.Columns {
		for k, h := range l.heads[j] {
			ty := y + headH - 10 - float64(len(l.heads[j])-1-k)*15
			tx, an := cx+tablePadX, anchorStart
			if c.Right {
				tx, an = cx+l.widths[j]-tablePadX, anchorEnd
			}
			d.text(tx, ty, h, textStyle{size: tableHeadFnt, font: fontBold, anchor: an, color: p.muted})
		}
		cx += l.widths[j]
	}
	y += headH
	d.line(x, y, x+w, y, p.border, 1)
	for i, r := range t.Rows {
		if i > 0 && r.Cells[0] != t.Rows[i-1].Cells[0] {
			d.line(x, y, x+w, y, p.axis, 1.5)
		}
		if i%2 == 1 {
			d.rect(x, y, w, tableRowH, p.zebra)
		}
		drawTableRow(d, p, t.Columns, l.widths, r, x, y)
		y += tableRowH
	}
	d.line(x, y, x+w, y, p.border, 1)
	y += 8
	for _, n := range t.NotesAfter {
		for _, line := range wrapText(n, fontRegular, 12.5, w) {
			d.text(x, y+15, line, textStyle{size: 12.5, color: p.text})
			y += 18
		}
	}
	if len(t.Errors) > 0 {
		d.text(x, y+32, "Errors", textStyle{size: 15, font: fontBold, color: p.text})
		y += 40
	}
	for _, e := range t.Errors {
		for _, line := range wrapText(e, fontMono, 11.5, w) {
			d.text(x, y+15, line, textStyle{size: 11.5, font: fontMono, color: p.failedText})
			y += 17
		}
	}
	return y + 4
}

func drawTableRow(d *Drawing, p palette, cols []Column, widths []float64, r TableRow, x, y float64) {
	cx := x
	for j, c := range cols {
		st := textStyle{size: tableFont, color: p.text}
		if r.Cells[j] == dash {
			st.color = p.faint
		}
		if c.Title == "Status" {
			st.color = statusTextColor(p, r.Status)
			if r.Status != engine.StatusValid {
				st.font = fontBold
			}
		}
		tx := cx + tablePadX
		if c.Right {
			tx, st.anchor = cx+widths[j]-tablePadX, anchorEnd
		}
		d.text(tx, y+16, r.Cells[j], st)
		cx += widths[j]
	}
}
