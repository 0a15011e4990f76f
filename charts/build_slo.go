package charts

import (
	"math"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// statusNotJudged is a Valid cell the SLO picture cannot judge: its report
// kept no percentile of a figure the SLO bounds (engine.SLO.Judge).
const statusNotJudged engine.Status = "Not judged"

// noteNotJudged explains statusNotJudged in the SLO picture's legend.
const noteNotJudged = "Not judged: the report kept no percentile of a figure the SLO bounds."

// sloScale is the SLO picture's colours: ColorBrewer's RdBu, which reads
// for colour-blind eyes and in both themes, without its pale middle: blue
// meets the SLO, deeper for a larger margin; red misses it, deeper for
// further over. It has no ticks, so no colour bar: each cell says its
// margin and verdict in words.
var sloScale = ColorScale{Label: "SLO margin", Min: -1, Max: 1, Diverging: true}

// sloPos is where a margin falls on sloScale: 0.62–1 for a pass, 0–0.38
// for a miss, a whole bound's margin at the end.
func sloPos(margin float64, pass bool) float64 {
	if pass {
		return 0.62 + 0.38*math.Min(1, math.Max(0, margin))
	}
	return 0.38 - 0.38*math.Min(1, math.Max(0, -margin))
}

// noteSLOCells says how to read the SLO picture.
const noteSLOCells = "Blue cells meet the SLO, red cells miss it; the deeper the colour, the larger the margin. Each cell: the margin of the tighter bound (the share of the bound left over, or − how far over it), then meets or misses, and which bound."

// buildSLO is the SLO picture and the sheet's SLO lines, nil when the
// plan sets no SLO.
func buildSLO(r engine.Report) *SLOModel {
	slo := r.Plan.SLO
	if !slo.On() {
		return nil
	}
	m := &SLOModel{Text: report.SLOText(slo), Lines: report.SLOLines(r)}
	h := buildHeatmap(r)
	h.Title = "Sustained decode · SLO"
	h.Subtitle = m.Text + " · rows are context length, columns are simultaneous requests"
	h.Scale, h.SLOMiss = sloScale, ""
	ctxs, concs := decodeGrid(r)
	cells := indexDecode(r.Results)
	notJudged, few := false, false
	for i, ctx := range ctxs {
		for j, conc := range concs {
			res, ok := cells.find(ctx.tokens, conc)
			cell := &h.Cells[i][j]
			if !ok || !res.Measured() {
				continue
			}
			c, judged := slo.Judge(res)
			if !judged {
				*cell = HeatCell{Status: statusNotJudged, Text: string(statusNotJudged)}
				notJudged = true
				continue
			}
			margin := report.SLOMargin(slo, c)
			cell.Value, cell.Pos, cell.Miss = margin, sloPos(margin, c.Pass), false
			cell.Text = report.Mark(report.Percent(margin), res)
			cell.Detail = sloDetail(slo, c)
			if slo.At() == 99 && (res.TTFTPct.FewForP99() || res.ITLPct.FewForP99()) {
				cell.Detail += " " + report.FewSamplesMarker
				few = true
			}
		}
	}
	if notJudged {
		h.Legend = append(h.Legend, StatusNote{Status: statusNotJudged, Note: noteNotJudged})
	}
	h.Notes = append([]string{noteSLOCells}, m.Lines...)
	if few {
		h.Notes = append(h.Notes, report.NoteFewSamples)
	}
	m.Heatmap = h
	return m
}

// sloDetail words a judged cell's verdict: "meets", or "misses ITL",
// "misses TTFT and ITL".
func sloDetail(slo engine.SLO, c engine.SLOCheck) string {
	if c.Pass {
		return "meets"
	}
	var over []string
	if slo.TTFT > 0 && c.TTFTMargin < 0 {
		over = append(over, "TTFT")
	}
	if slo.ITL > 0 && c.ITLMargin < 0 {
		over = append(over, "ITL")
	}
	return "misses " + strings.Join(over, " and ")
}

// markSLOMisses marks the Valid cells of a decode heatmap built on the
// grid ctxs × concs that miss the plan's SLO, and explains the mark.
func markSLOMisses(h *HeatmapModel, r engine.Report, ctxs []gridContext, concs []int, cells decodeIndex) {
	slo := r.Plan.SLO
	if !slo.On() {
		return
	}
	for i, ctx := range ctxs {
		for j, conc := range concs {
			res, ok := cells.find(ctx.tokens, conc)
			if c, judged := slo.Judge(res); ok && judged && !c.Pass {
				h.Cells[i][j].Miss = true
				h.SLOMiss = "Misses the SLO, " + report.SLOText(slo) + " (the decode-slo picture has the margins)."
			}
		}
	}
}
