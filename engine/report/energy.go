package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// Sig3 writes a figure with three significant digits: 0.0512, 1.95, 437.
func Sig3(v float64) string {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return Dash
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(v))))
	if v >= 1000 {
		return Int(int(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// USD writes a price per million tokens: $0.42, $12.30, $0.0031.
func USD(v float64) string {
	if v >= 0.01 {
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	}
	return "$" + Sig3(v)
}

// CellEnergyText is a Valid cell's energy and cost in one line, as the
// CLI's cell line and the app's cell details show it: "2.41 tokens/J ·
// 0.415 J/token, 0.262 above idle · $0.53 per million output tokens
// (rent 2.50 USD/h + electricity 0.30 USD/kWh) · from the simulated
// energy counter"; "" without energy or cost.
func CellEnergyText(r engine.Result, prices *engine.Prices) string {
	e := r.Energy
	var parts []string
	if e != nil && r.Measured() {
		if r.Phase == engine.PhasePrefill {
			parts = append(parts, Sig3(e.TokensPerJoule)+" prompt tokens/J", Sig3(e.PrefillJoulesPer1K)+" J per 1K prompt tokens")
		} else {
			j := Sig3(e.JoulesPerToken) + " J/token"
			if e.JoulesPerTokenAboveIdle > 0 {
				j += ", " + Sig3(e.JoulesPerTokenAboveIdle) + " above idle"
			}
			parts = append(parts, Sig3(e.TokensPerJoule)+" tokens/J", j)
		}
	}
	if c, ok := engine.CostOf(r, prices); ok {
		parts = append(parts, fmt.Sprintf("%s per million output tokens (%s)", USD(c.TotalUSD), c.Parts))
	}
	if e != nil && r.Measured() {
		parts = append(parts, "from the "+e.MethodText())
	}
	return strings.Join(parts, " · ")
}

// EnergyLines are report.md's, the page's and the sheet's lines on energy
// and cost: how energy was measured, the idle power, the decode cells'
// range of tokens per joule, where the prices come from and the cheapest
// cell (CheapestLine); nil when no cell has energy and no price is given.
func EnergyLines(r engine.Report) []string {
	decode := energyCells(r.Results, engine.PhaseDecode)
	prefill := energyCells(r.Results, engine.PhasePrefill)
	if len(decode)+len(prefill) == 0 && !r.Run.Prices.Any() {
		return nil
	}
	var lines []string
	if m := methodLine(append(slices.Clip(prefill), decode...)); m != "" {
		lines = append(lines, m)
	}
	if idle := r.Run.IdlePower; idle != nil {
		lines = append(lines, "Idle power: "+idle.Text()+".")
	} else if len(decode) > 0 {
		lines = append(lines, "Idle power was not measured, so no figure above idle is given.")
	}
	if len(decode) > 0 {
		lo := slices.MinFunc(decode, byTokensPerJoule)
		hi := slices.MaxFunc(decode, byTokensPerJoule)
		lines = append(lines, fmt.Sprintf("Sustained decode: %s to %s output tokens per joule (%s to %s).",
			Sig3(lo.Energy.TokensPerJoule), Sig3(hi.Energy.TokensPerJoule), gridName(lo), gridName(hi)))
	}
	if len(prefill) > 0 {
		lo := slices.MinFunc(prefill, byPrefillJ)
		hi := slices.MaxFunc(prefill, byPrefillJ)
		line := fmt.Sprintf("Prefill: %s to %s J per 1K prompt tokens (%s to %s).",
			Sig3(lo.Energy.PrefillJoulesPer1K), Sig3(hi.Energy.PrefillJoulesPer1K), lo.ContextName(), hi.ContextName())
		if len(prefill) == 1 {
			line = fmt.Sprintf("Prefill: %s J per 1K prompt tokens (%s).", Sig3(lo.Energy.PrefillJoulesPer1K), lo.ContextName())
		}
		lines = append(lines, line)
	}
	if p := r.Run.Prices; p.Any() {
		lines = append(lines, "Cost per million output tokens: "+p.Text()+"; rent share = USD per hour ÷ 3,600 ÷ total tok/s × 10⁶, electricity = measured kWh per output token × USD per kWh × 10⁶.")
		if p.PerKWhUSD > 0 && len(decode) == 0 {
			lines = append(lines, "No decode cell has measured energy, so the electricity price is not applied: the costs are the rent's share alone.")
		}
		if line := CheapestLine(r); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

func byTokensPerJoule(a, b engine.Result) int {
	return cmpFloat(a.Energy.TokensPerJoule, b.Energy.TokensPerJoule)
}

func byPrefillJ(a, b engine.Result) int {
	return cmpFloat(a.Energy.PrefillJoulesPer1K, b.Energy.PrefillJoulesPer1K)
}

// energyCells are the Valid cells of phase with energy.
func energyCells(rs []engine.Result, phase engine.Phase) []engine.Result {
	var out []engine.Result
	for _, r := range rs {
		if r.Phase == phase && r.Measured() && r.Energy != nil && r.Energy.TokensPerJoule > 0 {
			out = append(out, r)
		}
	}
	return out
}

// methodLine says how the cells' energy was measured: "Energy: NVML total
// energy counter over each cell's window.", or how many cells fell back
// to the power samples and the first reason.
func methodLine(cells []engine.Result) string {
	if len(cells) == 0 {
		return ""
	}
	counted, source, note, simulated := 0, "", "", false
	for _, r := range cells {
		e := r.Energy
		simulated = simulated || e.Simulated
		if e.Method == engine.EnergyCounter {
			counted++
			source = e.Source
		} else if note == "" {
			note = e.Note
		}
	}
	prefix := "Energy"
	if simulated {
		prefix = "Energy (simulated)"
	}
	switch {
	case counted == len(cells):
		return fmt.Sprintf("%s: %s over each cell's window.", prefix, source)
	case counted == 0:
		return fmt.Sprintf("%s: power samples averaged over each cell's window (%s).", prefix, note)
	}
	return fmt.Sprintf("%s: %s in %s; power samples averaged in %s (%s).", prefix, source,
		engine.Count(counted, "cell", "cells"), engine.Count(len(cells)-counted, "cell", "cells"), note)
}

// CheapestLine names the Valid decode cell with the lowest price per
// million output tokens, among those that meet the plan's SLO when it
// sets one: "Cheapest per million tokens while meeting the SLO (TTFT p99 ≤
// 2 s): 8K × 64, $0.42."; "" without a price.
func CheapestLine(r engine.Report) string {
	slo := r.Plan.SLO
	var best engine.Result
	bestUSD, found, costed := 0.0, false, false
	for _, res := range r.Results {
		c, ok := engine.CostOf(res, r.Run.Prices)
		if !ok {
			continue
		}
		costed = true
		if slo.On() {
			if check, judged := slo.Judge(res); !judged || !check.Pass {
				continue
			}
		}
		if !found || c.TotalUSD < bestUSD {
			best, bestUSD, found = res, c.TotalUSD, true
		}
	}
	switch {
	case !costed:
		return ""
	case slo.On() && !found:
		return fmt.Sprintf("No decode cell meets the SLO (%s), so none is named cheapest.", SLOText(slo))
	case slo.On():
		return fmt.Sprintf("Cheapest per million tokens while meeting the SLO (%s): %s, %s.", SLOText(slo), gridName(best), USD(bestUSD))
	}
	return fmt.Sprintf("Cheapest per million tokens: %s, %s.", gridName(best), USD(bestUSD))
}

// gridName is a decode cell as the cheapest line names it: "8K × 64".
func gridName(r engine.Result) string { return fmt.Sprintf("%s × %d", r.ContextName(), r.Concurrency) }

// EnergyColumns are the headings of report.md's energy table.
var EnergyColumns = []string{"Context", "Requests at once", "Tokens per joule", "J/token", "J/token above idle", "USD per million output tokens"}

// EnergyRows are the energy table's rows: every Valid decode cell with
// energy or a cost, by context then requests at once.
func EnergyRows(r engine.Report) [][]string {
	var rows [][]string
	for _, res := range sortedDecode(r.Results) {
		c, costed := engine.CostOf(res, r.Run.Prices)
		e := res.Energy
		if !res.Measured() || (e == nil && !costed) {
			continue
		}
		row := []string{res.ContextName(), strconv.Itoa(res.Concurrency), Dash, Dash, Dash, Dash}
		if e != nil {
			row[2], row[3], row[4] = Sig3(e.TokensPerJoule), Sig3(e.JoulesPerToken), Sig3(e.JoulesPerTokenAboveIdle)
		}
		if costed {
			row[5] = USD(c.TotalUSD)
		}
		rows = append(rows, row)
	}
	return rows
}

// writeEnergy writes report.md's Energy and cost section.
func writeEnergy(b *strings.Builder, r engine.Report) {
	lines := EnergyLines(r)
	if lines == nil {
		return
	}
	b.WriteString("## Energy and cost\n\n")
	for _, l := range lines {
		b.WriteString("- " + MDText(l) + "\n")
	}
	b.WriteString("\n")
	if rows := EnergyRows(r); len(rows) > 0 {
		writeTable(b, EnergyColumns, rows)
	}
}
