package charts

import (
	"fmt"
	"html/template"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// heat is a heatmap of report.html: an HTML table whose cells are
// coloured as the sheet colours them, each with every figure of its cell
// in Tip (a popup, and the title attribute where scripts don't run).
type heat struct {
	Title, Subtitle, RowHeader string
	Cols                       []string
	Rows                       []heatRow
	Scale                      string // what the colours mean, low to high
	Legend, Notes, Flags       []string
}

// heatRow is one context of a heat.
type heatRow struct {
	Label string
	Cells []heatCell
}

// heatCell is one cell: its text as the sheet writes it, its colours, and
// all its figures.
type heatCell struct {
	Text, Detail string
	Kind         string       // Valid, Over, Looped, Failed, Cancelled or Other (hc-… classes)
	Style        template.CSS // the colour-map fill of a Valid cell
	Tip          string
	Miss         bool
}

// decodeHeat is h, a heatmap of r's decode cells (total tok/s or roofline
// share), as a heat; its rows and columns are decodeGrid's, as h's are.
func decodeHeat(r engine.Report, h HeatmapModel) *heat {
	if len(h.Rows) == 0 || len(h.Cols) == 0 {
		return nil
	}
	out := &heat{Title: h.Title, Subtitle: h.Subtitle, RowHeader: h.RowHeader, Cols: h.Cols,
		Scale: scaleText(h.Scale), Notes: h.Notes, Flags: h.Flags}
	for _, l := range h.Legend {
		out.Legend = append(out.Legend, l.Note)
	}
	if h.SLOMiss != "" {
		out.Legend = append(out.Legend, h.SLOMiss)
	}
	ctxs, concs := decodeGrid(r)
	cells := indexDecode(r.Results)
	stops := scaleStops(h.Scale)
	keep, left := pageRows(len(h.Rows), len(h.Cols))
	if left != "" {
		out.Notes = append([]string{left}, out.Notes...)
	}
	for i, label := range h.Rows[:keep] {
		row := heatRow{Label: label}
		for j, c := range h.Cells[i] {
			hc := heatCell{Text: c.Text, Detail: c.Detail, Kind: heatKind(c.Status), Miss: c.Miss}
			if c.Status == engine.StatusValid {
				fill := colorAt(stops, c.Pos)
				hc.Style = template.CSS("background:" + svgColor(fill) + ";color:" + svgColor(TextOn(fill)))
			}
			hc.Tip = c.Text
			if i < len(ctxs) && j < len(concs) {
				if res, ok := cells.find(ctxs[i].tokens, concs[j]); ok {
					hc.Tip = engine.BoundText(cellTip(res, r.Run.Prices), maxTipRunes)
				}
			}
			row.Cells = append(row.Cells, hc)
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// heatKind is the class suffix of a cell's look, as drawStatusTile draws it.
func heatKind(s engine.Status) string {
	switch s {
	case engine.StatusValid, engine.StatusLooped, engine.StatusFailed, engine.StatusCancelled:
		return string(s)
	case engine.StatusOverCapacity:
		return "Over"
	}
	return "Other"
}

// scaleText says what a heatmap's colours mean: "colour: total tok/s,
// 86.7 (dark) to 9,006 (bright)".
func scaleText(s ColorScale) string {
	if len(s.Ticks) == 0 {
		return ""
	}
	lo, hi := s.Ticks[0].Label, s.Ticks[len(s.Ticks)-1].Label
	if s.Diverging {
		return fmt.Sprintf("colour: %s, %s (red) to %s (blue)", s.Label, lo, hi)
	}
	return fmt.Sprintf("colour: %s, %s (dark) to %s (bright)", s.Label, lo, hi)
}

// cellTip is every figure of a decode cell, one per line, worded and
// formatted as All measurements and report.md word them: the
// measurement's columns, the percentiles, the ± and how its window
// ended, the roofline share and the flags.
func cellTip(res engine.Result, prices *engine.Prices) string {
	lines := []string{report.CellName(res)}
	row := report.MeasurementRow(res)
	for i := 3; i < len(row) && i < len(report.MeasurementColumns); i++ {
		if row[i] == report.Dash {
			continue
		}
		name, v := report.MeasurementColumns[i], row[i]
		switch i {
		case 4: // the headline figure, with how well it is known
			v = report.WithWindow(v, res)
		case 5: // the medians with their own ± and the samples behind it
			v = report.WithPlusMinus(v, res, report.PerRequestPrecision) + report.SamplesText(res.PerRequestPct, "request", "requests")
		case 6:
			name += " (median)"
		case 7:
			name += " (median)"
			v = report.WithPlusMinus(v, res, report.ITLPrecision) + report.SamplesText(res.ITLPct, "gap", "gaps")
		}
		lines = append(lines, name+": "+v)
	}
	pct := report.PercentileCells(res)
	for i, name := range report.PercentileColumns {
		if i < len(pct) && pct[i] != report.Dash {
			lines = append(lines, name+": "+pct[i])
		}
	}
	if res.Measured() && res.RooflinePct > 0 {
		lines = append(lines, "Roofline share: "+report.Pct(res.RooflinePct)+" of "+report.TokPerSec(res.RooflineTokS)+" tok/s")
	}
	if text := report.CellEnergyText(res, prices); text != "" {
		lines = append(lines, "Energy and cost: "+text)
	}
	if res.Status == engine.StatusFailed && res.Error != "" {
		lines = append(lines, "Error: "+res.Error)
	}
	lines = append(lines, report.FlagLines([]engine.Result{res})...)
	return strings.Join(lines, "\n")
}
