package history

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// measured is what the list says a run measured: its cells, or a load
// test's rates ("load test · 4 rates (1, 2, 4, 8 req/s)"), and its peak.
func (e Entry) measured() []string {
	what := e.Sum.CellsLine()
	if e.Sum.Rates > 0 && len(e.Sum.RatesRPS) > 0 {
		what += " (" + appwidget.RateList(e.Sum.RatesRPS) + ")"
	}
	parts := []string{what}
	if e.Sum.PeakTokPerSec > 0 {
		parts = append(parts, "peak "+report.TokPerSec(e.Sum.PeakTokPerSec)+" tok/s")
	}
	return parts
}

// What the comparison of two runs shows, as the card's subtitle says it.
const (
	compareCells = "% change of total tok/s in each decode cell, from A to B"
	CompareRates = "each rate of two load tests side by side, with B's change from A"
)

// compareLoads compares runs a and b when either is a load test, and
// reports whether it did: two load tests rate by rate; a load test and a
// matrix not at all, which the status says.
func (h *Tab) compareLoads(a, b engine.Report) bool {
	h.CompareCard.SetSubTitle(CompareRates)
	if app.IsLoad(a) || app.IsLoad(b) {
		h.U.Pictures.Showing(app.PlaceCompare, "") // a table, or nothing, where the picture was
	}
	switch {
	case !app.IsLoad(a) && !app.IsLoad(b):
		h.CompareCard.SetSubTitle(compareCells)
		return false
	case !app.IsLoad(a) || !app.IsLoad(b):
		h.Status.SetText("A load test compares only with another load test: choose two load tests, or two matrix runs.")
		h.CompareResult.Objects = nil
		h.compareBox.Refresh()
		return true
	}
	lines := []string{"A: " + runLine(a), "B: " + runLine(b)}
	if d := report.Differences(a, b); len(d) > 0 {
		lines = append(lines, "They differ in "+strings.Join(d, "; ")+".")
	}
	lines = append(lines, "Each rate of A beside the same rate of B; the % is B's change from A.")
	if a.Run.Imported != nil || b.Run.Imported != nil {
		lines = append(lines, importedLine)
	}
	h.Status.SetText(appwidget.OnScreen(strings.Join(lines, "\n")))
	var cells [][]string
	for _, r := range report.LoadComparison(a, b) {
		cells = append(cells, pick(r.Cells(), loadDiffOrder))
	}
	h.CompareResult.Objects = []fyne.CanvasObject{appwidget.NewTextTable(pick(report.LoadDiffColumns, loadDiffOrder), loadDiffWidths, cells)}
	h.compareBox.Refresh()
	return true
}

// loadDiffOrder puts report.LoadDiffColumns in the order that decides a
// load test first: throughput, TTFT p99, E2E p99, goodput; the rest after.
var loadDiffOrder = []string{"Rate", "Requests/s", "TTFT p99", "E2E p99", "Goodput", "Output tok/s", "TTFT p50", "ITL p99"}

// loadDiffWidths fit the "A → B (change)" figures of loadDiffOrder.
var loadDiffWidths = []float32{80, 230, 210, 230, 230, 210, 200, 200}

// pick is the fields of row (under report.LoadDiffColumns) of the columns
// cols, in their order; a column the report lacks is left empty.
func pick(row []string, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		if j := slices.Index(report.LoadDiffColumns, c); j >= 0 && j < len(row) {
			out[i] = row[j]
		}
	}
	return out
}
