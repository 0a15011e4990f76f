package charts

import (
	"strconv"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// KindRoofline is the decode heatmap coloured by the share of each cell's
// roofline reached. Only a report with roofline facts has it, so it is not
// in Kinds; WriteAll writes it when there is one (HasRoofline).
const KindRoofline Kind = "decode-roofline"

// KindsFor lists the pictures of r that WriteAll writes: Kinds, then
// KindRoofline when r has a roofline, KindSLO when its plan sets an SLO,
// KindCost when it has prices and KindQuality when it has a quality section; LoadKinds for a load
// test. It is the one list of a report's pictures: the CLI's report
// command names what it wrote from it.
func KindsFor(r engine.Report) []Kind {
	if r.Load != nil {
		return LoadKinds
	}
	kinds := Kinds[:len(Kinds):len(Kinds)]
	if HasRoofline(r) {
		kinds = append(kinds, KindRoofline)
	}
	if r.Plan.SLO.On() {
		kinds = append(kinds, KindSLO)
	}
	if r.Run.Prices.Any() {
		kinds = append(kinds, KindCost)
	}
	if r.Quality != nil {
		kinds = append(kinds, KindQuality)
	}
	return kinds
}

// rooflineScaleLabel is the colour key's label of the roofline heatmap.
const rooflineScaleLabel = "% of roofline"

// HasRoofline reports whether a report's cells carry a share of their
// roofline, so that the "% of roofline" heatmap has something to show.
func HasRoofline(r engine.Report) bool {
	for _, res := range r.Results {
		if res.Phase == engine.PhaseDecode && res.Measured() && res.RooflineTokS > 0 {
			return true
		}
	}
	return false
}

// RooflineScale is the fixed 0–100 % colour scale of the roofline heatmap:
// the same colour means the same share in every report.
func RooflineScale() ColorScale {
	s := ColorScale{Label: rooflineScaleLabel, Min: 0, Max: 100}
	for v := 0.0; v <= 100; v += 25 {
		s.Ticks = append(s.Ticks, Tick{Value: v, Label: strconv.Itoa(int(v)) + " %"})
	}
	return s
}

// buildRooflineHeatmap is the decode heatmap with each Valid cell showing
// its share of the roofline ("43 %", "of 387.2 tok/s"), nil when the
// report has no roofline.
func buildRooflineHeatmap(r engine.Report) *HeatmapModel {
	if !HasRoofline(r) {
		return nil
	}
	h := buildHeatmap(r)
	h.Title = "Sustained decode · % of roofline"
	h.Subtitle = "share of the hardware's ceiling (memory bandwidth or compute) · rows are context length, columns are simultaneous requests"
	h.Scale = RooflineScale()
	eachValid(r, &h, func(res engine.Result, cell *HeatCell) {
		if res.RooflineTokS <= 0 {
			cell.Value, cell.Pos, cell.Text, cell.Detail = 0, 0, "—", report.TokPerSec(res.TotalTokPerSec)+" tok/s"
			return
		}
		cell.Value = res.RooflinePct
		cell.Pos = h.Scale.Pos(res.RooflinePct)
		cell.Text = report.Mark(report.Pct(res.RooflinePct), res)
		cell.Detail = "of " + report.TokPerSec(res.RooflineTokS)
	})
	return &h
}

// prefillCeiling is the prefill curve's roofline: each measured context's
// ceiling, dashed, labelled at its last point; ok is false without one.
func prefillCeiling(r engine.Report) (s Series, maxY float64, ok bool) {
	s = Series{Name: "roofline (compute)", Dashed: true, Color: "ramp:0.850"}
	for _, res := range sortedResults(r.Results, engine.PhasePrefill) {
		if !res.Measured() || res.ContextTokens <= 0 || res.RooflineTokS <= 0 {
			continue
		}
		s.Points = append(s.Points, Point{X: float64(res.ContextTokens), Y: res.RooflineTokS})
		maxY = max(maxY, res.RooflineTokS)
	}
	if len(s.Points) == 0 {
		return s, 0, false
	}
	last := &s.Points[len(s.Points)-1]
	last.Label = "roofline " + formatPrefillLabel(last.Y)
	return s, maxY, true
}
