package charts

import (
	"fmt"
	"math"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// A picture stays of bounded size however many cells a run has (up to
// engine.MaxCells) and however long its texts: it lists what a reader
// can take in and says where the rest is. report.md and results.csv list
// every cell.
const (
	// maxTableRows is the most rows of All measurements a sheet draws:
	// the default plan has 45, a 16 × 16 matrix with prefill 272.
	maxTableRows = 300
	// maxListed is the most lines a list under a chart or table draws
	// (flagged cells, errors), and maxListedRunes the most runes of one
	// (a cell's flags, its error), the last an ellipsis.
	maxListed      = 40
	maxListedRunes = 400
	// maxPageCells is the most cells a heatmap of report.html shows, each
	// with all its figures (a 32 × 64 grid): the first contexts, whole
	// rows, and a line saying how many more report.md lists. A
	// 65,792-cell run made a 46 MB page that took a browser a minute.
	maxPageCells = 2048
	// maxTipRunes is the most runes of one cell's figures on the page.
	maxTipRunes = 1000
	// maxDrawingHeight is where a picture is cut (logical pixels): it
	// holds a 256 × 256 heatmap (54 px a row) and a full table, and keeps
	// an export under 160 MB of pixels at 1×.
	maxDrawingHeight = 30000.0
)

// listed is lines, each cut to maxListedRunes, at most maxListed of them
// with a last line that says how many more of what report.md lists.
func listed(lines []string, what string) []string {
	return listedIn(lines, len(lines), what, "report.md")
}

// listedIn is listed for lines that are the first of total (a caller
// need not format them all), the rest listed in the file where.
func listedIn(lines []string, total int, what, where string) []string {
	if len(lines) == 0 {
		return lines
	}
	keep := lines
	if total > maxListed {
		keep = lines[:min(len(lines), maxListed-1)]
	}
	out := make([]string, len(keep), len(keep)+1)
	for i, l := range keep {
		out[i] = engine.BoundText(l, maxListedRunes)
	}
	if more := total - len(keep); more > 0 {
		out = append(out, fmt.Sprintf("… and %s more %s: %s lists every one.", report.Int(more), what, where))
	}
	return out
}

// pageRows is how many of a heatmap's rows of cols cells report.html
// shows, whole rows within maxPageCells and at least one, and the line
// that says what it leaves out ("" when nothing).
func pageRows(rows, cols int) (int, string) {
	if rows*cols <= maxPageCells {
		return rows, ""
	}
	keep := max(1, maxPageCells/max(cols, 1))
	return keep, fmt.Sprintf("The page shows the first %s of %s contexts (%s of %s cells): report.md and results.csv list every cell.",
		report.Int(keep), report.Int(rows), report.Int(keep*cols), report.Int(rows*cols))
}

// pageSection is s with at most maxTableRows rows, the last saying how
// many more report.md lists.
func pageSection(s report.Section) report.Section {
	if len(s.Rows) <= maxTableRows {
		return s
	}
	more := len(s.Rows) - (maxTableRows - 1)
	s.Rows = append(s.Rows[:maxTableRows-1:maxTableRows-1], report.Row{Key: "…", Value: "and " + report.Int(more) + " more: report.md lists every one."})
	return s
}

// cut ends a drawing taller than maxDrawingHeight there: what lies below
// is dropped, and a last line says so.
func (d *Drawing) cut(p palette) {
	if d.height <= maxDrawingHeight {
		return
	}
	const barH = 44.0
	full, top := d.height, maxDrawingHeight-barH
	keep := d.items[:0]
	for _, it := range d.items {
		if itemTop(it) < top {
			keep = append(keep, it)
		}
	}
	d.items, d.height = keep, maxDrawingHeight
	d.rect(0, top, d.width, barH, p.panel)
	d.line(0, top, d.width, top, p.border, 1)
	d.text(16, top+27, fmt.Sprintf("The picture ends here: the whole run would be %s px tall. report.md and results.csv hold every cell.",
		report.Int(int(full))), textStyle{size: 13, font: fontBold, color: p.text})
}

// itemTop is the highest point an item reaches.
func itemTop(it item) float64 {
	switch it.kind {
	case itemText:
		return it.y - it.size
	case itemCircle:
		return it.y - it.r
	case itemLine, itemArea:
		top := math.Inf(1)
		for _, q := range it.points {
			top = math.Min(top, q.Y)
		}
		return top
	}
	return it.y
}
