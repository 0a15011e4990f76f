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
	cells := indexDecode(r.Results)
	for _, c := range concs {
		h.Cols = append(h.Cols, strconv.Itoa(c))
	}
	present := map[engine.Status]bool{}
	var values []float64
	for _, ctx := range ctxs {
		h.Rows = append(h.Rows, ctx.label)
		row := make([]HeatCell, 0, len(concs))
		for _, conc := range concs {
			res, ok := cells.find(ctx.tokens, conc)
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
	h.Scale = DecodeScale(values)
	markSLOMisses(&h, r, ctxs, concs, cells)
	h.place()
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
	h.Flags = listed(report.FlagLines(decode), "flagged cells")
	if line := report.RooflineLine(r, engine.PhaseDecode); line != "" {
		h.Notes = append(h.Notes, line)
	}
	for _, line := range []string{report.PrecisionLine(decode), report.AdaptiveLine(decode), report.DriftLine(decode)} {
		if line != "" {
			h.Notes = append(h.Notes, line)
		}
	}
	return h
}

// DecodeScaleLabel is what the decode heatmaps colour by.
const DecodeScaleLabel = "total tok/s"

// DecodeScale is the colour scale of total tok/s, the one rule of every
// decode heatmap: the live one of a run, the Results screen's and the
// exported charts'. It is a function of the Valid cells' values alone
// (values), from the 1-2-5 × 10ⁿ number at or below the slowest to the one
// at or above the fastest, so a cell has the same colour wherever the same
// cells are shown: on the Run screen when the run ends, in Results and in
// the export. During a run the range widens, to a round number, only when
// a cell falls outside it. It is logarithmic when it spans a factor of 8
// or more, so small and large cells both get distinct colours.
func DecodeScale(values []float64) ColorScale {
	s := ColorScale{Label: DecodeScaleLabel}
	var positive []float64
	for _, v := range values {
		if v > 0 {
			positive = append(positive, v)
		}
	}
	if len(positive) == 0 {
		return s
	}
	s.Min, s.Max = roundDown(slices.Min(positive)), roundUp(slices.Max(positive))
	if s.Min == s.Max {
		s.Min = roundDown(s.Min * 0.99)
	}
	if s.Max/s.Min >= 8 {
		s.Log = true
		s.Ticks = logTicks(s.Min, s.Max, formatCompact)
		return s
	}
	step := niceStep(s.Max-s.Min, 4)
	for v := math.Ceil(s.Min/step) * step; v <= s.Max*1.0000001; v += step {
		s.Ticks = append(s.Ticks, Tick{Value: v, Label: formatCompact(v)})
	}
	return s
}

// roundUp is the smallest 1-2-5 × 10ⁿ number at or above v; roundDown the
// largest at or below it.
func roundUp(v float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*mag*1.000001 {
			return m * mag
		}
	}
	return 10 * mag
}

func roundDown(v float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if v >= m*mag/1.000001 {
			return m * mag
		}
	}
	return mag
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
