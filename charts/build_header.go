package charts

import (
	"fmt"
	"sort"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// BuildModel turns a report into what the charts show. It never fails: a
// report with no results gives empty charts that say so.
func BuildModel(r engine.Report) Model {
	m := Model{
		Sections:   report.Sections(r),
		Launch:     launchLines(r.LaunchCommand),
		Prefill:    buildPrefill(r),
		Decode:     buildHeatmap(r),
		Roofline:   buildRooflineHeatmap(r),
		PerRequest: buildPerRequest(r),
		Pareto:     buildPareto(r),
		Energy:     buildEnergyHeatmap(r),
		Cost:       buildCostHeatmap(r),
		Table:      buildTable(r),
		SLO:        buildSLO(r),
		Load:       buildLoad(r),
	}
	if r.Quality != nil {
		q := BuildQuality(*r.Quality)
		m.Quality = &q
	}
	m.PrefillRows = buildPrefillRows(r)
	m.Header = buildHeader(r)
	return m
}

func buildHeader(r engine.Report) Header {
	h := Header{Title: report.TitleOf(r), Badge: "Measured"}
	h.Model = report.ModelOnGPU(r)
	var parts []string
	for _, s := range []string{r.Server.Name, r.Server.Version, r.Server.Quantization} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	h.ServerLine = strings.Join(parts, " · ")
	h.MatrixLine = report.MatrixLine(r)
	if r.Server.Simulated {
		h.Simulated = true
		h.Badge = r.Server.SimulatedLabel()
	}
	if imp := r.Run.Imported; imp != nil {
		h.Badge = "Imported · " + imp.Label() // its figures are another tool's
	}
	h.Notice = partialNotice(r)
	if r.Load != nil {
		h.Notice = loadPartialNotice(r)
	}
	if line, ok := report.ThrottleSummary(r.Results); !ok {
		h.Throttle = line
	}
	h.PCIe = strings.Join(report.PCIeWarnings(r.Results), " ")
	return h
}

// partialNotice says how much of an incomplete run finished, and why it
// stopped when the engine said: "Partial run: 12 of 45 cells finished — …".
func partialNotice(r engine.Report) string {
	if r.Run.Complete || (len(r.Results) == 0 && len(r.Plan.DecodeContexts) == 0) {
		return ""
	}
	notice := fmt.Sprintf("Partial run: %d of %d cells finished", report.FinishedCells(r), report.PlannedCells(r))
	if r.Run.Incomplete != "" {
		notice += " — " + r.Run.Incomplete
	}
	return notice
}

// sortedResults returns the results of one phase ordered by context, then
// concurrency.
func sortedResults(rs []engine.Result, phase engine.Phase) []engine.Result {
	var out []engine.Result
	for _, r := range rs {
		if r.Phase == phase {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].ContextTokens != out[j].ContextTokens {
			return out[i].ContextTokens < out[j].ContextTokens
		}
		return out[i].Concurrency < out[j].Concurrency
	})
	return out
}

func launchLines(cmd string) []string {
	cmd = strings.TrimRight(strings.ReplaceAll(cmd, "\r\n", "\n"), "\n")
	if cmd == "" {
		return nil
	}
	return strings.Split(cmd, "\n")
}
