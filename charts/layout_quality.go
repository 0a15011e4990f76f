package charts

import (
	"context"
	"fmt"
	"image"
	"math"
	"strings"

	"speedmatrix/engine"
)

// Sizes of the drift chart, in logical pixels.
const (
	qualityPanelH      = 300.0 // each panel of the standalone figure
	qualitySheetPanelH = 300.0 // each panel on the sheet, side by side
)

// QualityPicture draws the drift chart of a quality report (quality.json,
// or a report's quality section) for a pane on screen, in theme t: the
// app's Results Quality tab shows it. The tables beside it are
// BuildQuality's. RenderQuality draws the export instead.
func QualityPicture(q engine.QualityReport, t Theme, p Pane) (*image.RGBA, error) {
	d, err := drawQuality(q, p.options(t))
	if err != nil {
		return nil, err
	}
	return d.Rasterize(p.fit(d)), nil
}

// RenderQuality draws the drift chart of a quality report as PNG, or as
// SVG when svg is set: the quality.png and quality.svg that WriteQuality
// writes.
func RenderQuality(q engine.QualityReport, opts Options, svg bool) ([]byte, error) {
	d, err := drawQuality(q, opts)
	if err != nil {
		return nil, err
	}
	o, _ := opts.check()
	if svg {
		return d.svg(o.Scale)
	}
	return d.png(o.Scale)
}

// WriteQuality writes the drift chart of a quality report into dir as
// quality.png and quality.svg (KindQuality), each atomically: what the
// quality command writes beside quality.json. A report with a quality
// section gets the same files from WriteAll.
func WriteQuality(ctx context.Context, dir string, q engine.QualityReport, opts Options) error {
	d, err := drawQuality(q, opts)
	if err != nil {
		return err
	}
	o, _ := opts.check()
	return writePicture(ctx, dir, string(KindQuality), d, o.Scale)
}

// drawQuality lays out the drift chart of q on its own, its header naming
// the server compared (simulated where it is).
func drawQuality(q engine.QualityReport, opts Options) (*Drawing, error) {
	qm := BuildQuality(q)
	return drawModel(KindQuality, Model{Header: qualityHeader(q), Quality: &qm}, opts)
}

// qualityHeader is the header of a drift chart drawn without its run: the
// server compared and the reference's model.
func qualityHeader(q engine.QualityReport) Header {
	h := Header{Title: qualityTitle, Model: q.Server.Model, Badge: "Measured"}
	if q.Reference.Model != "" && q.Reference.Model != q.Server.Model {
		h.Model += " · reference " + q.Reference.Model
	}
	var parts []string
	for _, s := range []string{q.Server.Server.Name, q.Server.Server.Version, q.Server.Server.Quantization} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	h.ServerLine = strings.Join(parts, " · ")
	if q.Server.Server.Simulated {
		h.Simulated, h.Badge = true, q.Server.Server.SimulatedLabel()
	}
	return h
}

// layoutQualityFigure is the drift chart on its own: the KL divergence
// above the top-1 agreement, on one context axis, then the notes.
func layoutQualityFigure(m Model, q QualityModel, p palette, f frame) *Drawing {
	d := &Drawing{width: f.width, bg: p.bg}
	margin := f.margin(figureMargin)
	inner := f.width - 2*margin
	if q.Simulated && !m.Header.Simulated {
		m.Header.Simulated, m.Header.Badge = true, q.Badge
	}
	y := drawChartHeader(d, p, m, q.Title, q.Subtitle, margin, margin-8, inner)
	panelH := qualityPanelH
	if f.screen && f.height > 0 {
		notesH := drawNotes(&Drawing{}, p, q.Notes, margin, 0, inner)
		panelH = math.Max(lineChartMinH, math.Min(lineChartMaxH, math.Floor((f.height-y-notesH-8-figureBottomM-2*32)/2)))
	}
	for _, c := range alignLeftAxes(q.KLD, q.Top1) {
		d.text(margin, y+22, c.Title, textStyle{size: 15, font: fontBold, color: p.text})
		drawLineChart(d, p, c, margin, y+32, inner, panelH)
		y += 32 + panelH
	}
	y = drawNotes(d, p, q.Notes, margin, y+8, inner)
	d.height = y + figureBottomM
	return d
}

// drawQualitySection is the sheet's Quality: both drift panels side by
// side, the notes, and the drift table; it returns the y below.
func drawQualitySection(d *Drawing, p palette, q QualityModel, x, y, w float64) float64 {
	y = drawHeading(d, p, q.Title, q.Subtitle, x, y)
	y = drawPanelPair(d, p, q.KLD, q.Top1, x, y, w, qualitySheetPanelH)
	y = drawNotes(d, p, q.Notes, x, y+8, w)
	if len(q.Drift.Rows) > 0 {
		d.text(x, y+24, q.Drift.Title, textStyle{size: 15, font: fontBold, color: p.text})
		// The sheet leaves out max, Δp and first divergence: the verdict
		// must fit its width; report.html has every column.
		y = drawTable(d, p, pickColumns(q.Drift, 0, 1, 2, 3, 4, 8, 9, 10), x, y+36, w)
	}
	return y
}

// qualityError is why a report's drift chart cannot be drawn.
func qualityError(kind Kind) error {
	return fmt.Errorf("chart %s: this report has no quality section", kind)
}

// pickColumns is t with only the columns at idx, in that order.
func pickColumns(t Table, idx ...int) Table {
	out := Table{Title: t.Title, NotesBefore: t.NotesBefore, NotesAfter: t.NotesAfter}
	for _, i := range idx {
		out.Columns = append(out.Columns, t.Columns[i])
	}
	for _, r := range t.Rows {
		row := TableRow{Status: r.Status, Cells: make([]string, len(idx))}
		for j, i := range idx {
			row.Cells[j] = r.Cells[i]
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}
