package charts

import (
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// KindEnergy is the decode heatmap coloured by each cell's output tokens
// per joule. It is in Kinds, so every export writes it; a run without GPU
// energy draws it with its cells saying so.
const KindEnergy Kind = "decode-energy"

// KindCost is the decode heatmap of each cell's price per million output
// tokens under the user's prices. Only a report with prices has it, so it
// is not in Kinds; WriteAll writes it when there are some (KindsFor).
const KindCost Kind = "decode-cost"

// Scale labels of the energy and cost heatmaps.
const (
	energyScaleLabel = "output tokens per joule"
	costScaleLabel   = "USD per million output tokens"
)

// noEnergy is the energy heatmap's note when no cell has energy.
const noEnergy = "No GPU energy was measured in this run (no GPU telemetry, or the server ran on the CPU): the cells show their total tok/s only."

// buildEnergyHeatmap is the decode heatmap with each Valid cell showing
// its output tokens per joule and, below, its J/token above idle (or its
// J/token when idle power is unknown).
func buildEnergyHeatmap(r engine.Report) HeatmapModel {
	h := buildHeatmap(r)
	h.Title = "Sustained decode · tokens per joule"
	h.Subtitle = "output tokens per joule of the serving GPUs · rows are context length, columns are simultaneous requests"
	var values []float64
	eachValid(r, &h, func(res engine.Result, cell *HeatCell) {
		e := res.Energy
		if e == nil || e.TokensPerJoule <= 0 {
			cell.Value, cell.Text, cell.Detail = 0, report.Dash, report.TokPerSec(res.TotalTokPerSec)+" tok/s"
			return
		}
		cell.Value = e.TokensPerJoule
		cell.Text = report.Mark(report.Sig3(e.TokensPerJoule), res)
		cell.Detail = report.Sig3(e.JoulesPerToken) + " J/token"
		if e.JoulesPerTokenAboveIdle > 0 {
			cell.Detail = report.Sig3(e.JoulesPerTokenAboveIdle) + " J/token above idle"
		}
		values = append(values, e.TokensPerJoule)
	})
	h.Scale = DecodeScale(values)
	h.Scale.Label = energyScaleLabel
	h.place()
	h.Notes = energyNotes(r, len(values) > 0)
	return h
}

// energyNotes are the lines under the energy and cost heatmaps: how energy
// was measured and where the prices come from (report.EnergyLines).
func energyNotes(r engine.Report, any bool) []string {
	if !any && !r.Run.Prices.Any() {
		return []string{noEnergy}
	}
	return report.EnergyLines(r)
}

// buildCostHeatmap is the decode heatmap with each Valid cell showing its
// price per million output tokens, nil without prices.
func buildCostHeatmap(r engine.Report) *HeatmapModel {
	if !r.Run.Prices.Any() {
		return nil
	}
	h := buildHeatmap(r)
	h.Title = "Sustained decode · USD per million output tokens"
	h.Subtitle = r.Run.Prices.Text() + " · lower is cheaper · rows are context length, columns are simultaneous requests"
	var values []float64
	eachValid(r, &h, func(res engine.Result, cell *HeatCell) {
		c, costed := engine.CostOf(res, r.Run.Prices)
		if !costed {
			cell.Value, cell.Text, cell.Detail = 0, report.Dash, "no measured energy"
			return
		}
		cell.Value, cell.Text, cell.Detail = c.TotalUSD, report.Mark(report.USD(c.TotalUSD), res), report.TokPerSec(res.TotalTokPerSec)+" tok/s"
		values = append(values, c.TotalUSD)
	})
	h.Scale = DecodeScale(values)
	h.Scale.Label = costScaleLabel
	h.place()
	h.Notes = energyNotes(r, len(values) > 0)
	return &h
}

// eachValid calls f with every Valid decode cell of r and its cell in h,
// a heatmap of r's decode grid (buildHeatmap), to show another figure.
func eachValid(r engine.Report, h *HeatmapModel, f func(res engine.Result, cell *HeatCell)) {
	ctxs, concs := decodeGrid(r)
	cells := indexDecode(r.Results)
	for i, ctx := range ctxs {
		for j, conc := range concs {
			if res, ok := cells.find(ctx.tokens, conc); ok && res.Measured() {
				f(res, &h.Cells[i][j])
			}
		}
	}
}
