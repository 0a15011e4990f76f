package charts

import (
	"math"
	"slices"
	"strconv"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// statusOrder is the order of the heatmap legend.
var statusOrder = []engine.Status{
	engine.StatusLooped, engine.StatusOverCapacity, engine.StatusFailed,
	engine.StatusNotRun, engine.StatusCancelled, engine.StatusPending,
}

// statusNote returns the line explaining a status, worded as the reference reports do.
func statusNote(s engine.Status) string {
	switch s {
	case engine.StatusLooped:
		return engine.NoteLooped
	case engine.StatusOverCapacity:
		return engine.NoteOverCapacity
	case engine.StatusFailed:
		return engine.NoteFailed
	case engine.StatusNotRun:
		return engine.NoteNotRun
	case engine.StatusCancelled:
		return "Cancelled: the run was stopped before this cell finished."
	case engine.StatusPending:
		return "Pending: not measured yet."
	}
	return ""
}

func buildHeatmap(r engine.Report) HeatmapModel {
	h := HeatmapModel{
		Title:     "Sustained decode",
		Subtitle:  "total tok/s · rows are context length, columns are simultaneous requests",
		RowHeader: "Context",
	}
	ctxs, concs := decodeGrid(r)
	for _, c := range concs {
		h.Cols = append(h.Cols, strconv.Itoa(c))
	}
	present := map[engine.Status]bool{}
	var values []float64
	for _, ctx := range ctxs {
		h.Rows = append(h.Rows, ctx.label)
		row := make([]HeatCell, 0, len(concs))
		for _, conc := range concs {
			res, ok := findDecode(r.Results, ctx.tokens, conc)
			if !ok {
				res.Status = engine.StatusPending
			}
			cell := HeatCell{Status: res.Status, Text: string(res.Status)}
			if res.Measured() {
				cell.Value = res.TotalTokPerSec
				cell.Text = report.TokPerSec(res.TotalTokPerSec)
				// Marked as report.md marks it; the notes explain.
				cell.Detail = report.Mark(report.Millis(res.TTFTMs)+" TTFT", res)
				values = append(values, res.TotalTokPerSec)
			} else {
				present[res.Status] = true
			}
			row = append(row, cell)
		}
		h.Cells = append(h.Cells, row)
	}
	h.Scale = SequentialScale("total tok/s", values)
	for i := range h.Cells {
		for j := range h.Cells[i] {
			if h.Cells[i][j].Status == engine.StatusValid {
				h.Cells[i][j].Pos = h.Scale.Pos(h.Cells[i][j].Value)
			}
		}
	}
	for _, s := range statusOrder {
		if present[s] {
			h.Legend = append(h.Legend, StatusNote{Status: s, Note: statusNote(s)})
		}
	}
	decode := sortedResults(r.Results, engine.PhaseDecode)
	if report.AnyMarked(decode) {
		h.Notes = append(h.Notes, report.NoteFlagged)
	}
	if len(values) > 0 {
		h.Notes = append(h.Notes, engine.NoteTTFT)
	}
	h.Flags = report.FlagLines(decode)
	if line := report.RooflineLine(r, engine.PhaseDecode); line != "" {
		h.Notes = append(h.Notes, line)
	}
	return h
}

// SequentialScale spans the values; it is logarithmic when they cover more
// than a factor of 8, so small and large cells both get distinct colours.
func SequentialScale(label string, values []float64) ColorScale {
	s := ColorScale{Label: label}
	if len(values) == 0 {
		return s
	}
	s.Min, s.Max = slices.Min(values), slices.Max(values)
	if s.Min > 0 && s.Max/s.Min >= 8 {
		s.Log = true
		s.Ticks = logTicks(s.Min, s.Max, formatCompact)
		return s
	}
	step := niceStep(s.Max-s.Min, 4)
	for v := math.Ceil(s.Min/step) * step; v <= s.Max; v += step {
		s.Ticks = append(s.Ticks, Tick{Value: v, Label: formatCompact(v)})
	}
	return s
}

// Pos maps a value to 0–1 on the scale. A diverging scale puts zero at
// the middle, Min at 0 and Max at 1, each side linear on its own.
func (s ColorScale) Pos(v float64) float64 {
	if s.Diverging && s.Min < 0 && s.Max > 0 {
		if v < 0 {
			return 0.5 - 0.5*math.Min(1, v/s.Min)
		}
		return 0.5 + 0.5*math.Min(1, v/s.Max)
	}
	lo, hi := s.Min, s.Max
	if s.Log {
		lo, hi, v = math.Log(lo), math.Log(hi), math.Log(math.Max(v, s.Min))
	}
	if hi <= lo {
		return 0.5
	}
	return math.Max(0, math.Min(1, (v-lo)/(hi-lo)))
}
