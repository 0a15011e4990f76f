package app

import (
	"cmp"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// measured is what the list says a run measured: its cells and peak, or
// for a load test "Load test at 1, 2, 4 req/s" and its best throughput.
func (e historyEntry) measured() []string {
	l := e.sum.Load
	if l == nil {
		parts := []string{e.sum.CellsLine()}
		if e.sum.PeakTokPerSec > 0 {
			parts = append(parts, "peak "+report.TokPerSec(e.sum.PeakTokPerSec)+" tok/s")
		}
		return parts
	}
	what := "Load test at " + rateList(l.RatesRPS)
	switch {
	case l.Burst > 0:
		what = "Load test: a burst of " + engine.Count(l.Burst, "request", "requests")
	case l.Sweep && len(l.RatesRPS) == 0:
		what = "Load test: a sweep"
	}
	parts := []string{what}
	if l.PeakRPS > 0 {
		parts = append(parts, "peak "+reqPerSec(l.PeakRPS)+" req/s")
	}
	return parts
}

// What the comparison of two runs shows, as the card's subtitle says it.
const (
	compareCells = "% change of total tok/s in each decode cell, from A to B"
	compareRates = "each rate of two load tests side by side, with B's change from A"
)

// compareLoads compares runs a and b when either is a load test, and
// reports whether it did: two load tests rate by rate; a load test and a
// matrix not at all, which the status says.
func (h *historyTab) compareLoads(a, b engine.Report) bool {
	h.compareCard.SetSubTitle(compareRates)
	switch {
	case !isLoad(a) && !isLoad(b):
		h.compareCard.SetSubTitle(compareCells)
		return false
	case !isLoad(a) || !isLoad(b):
		h.status.SetText("A load test compares only with another load test: choose two load tests, or two matrix runs.")
		h.compareResult.Objects = nil
		h.compareBox.Refresh()
		return true
	}
	h.status.SetText(strings.Join([]string{
		"A: " + runLine(a), "   " + loadPlanLine(a.Load.Plan),
		"B: " + runLine(b), "   " + loadPlanLine(b.Load.Plan),
		"Each rate of A beside the same rate of B (— where one did not measure it); the % is B's change from A.",
	}, "\n"))
	rows := loadComparison(*a.Load, *b.Load)
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = r.cells()
	}
	h.compareResult.Objects = []fyne.CanvasObject{newTextTable(loadCompareColumns, loadCompareWidths, cells)}
	h.compareBox.Refresh()
	return true
}

// loadCompareRow is one rate of two load tests side by side, matched by
// value; A or B is nil where that test did not measure the rate.
type loadCompareRow struct {
	RateRPS float64
	A, B    *engine.LoadResult
}

// loadComparison matches the rates of two load tests by value (a burst's
// with a burst's), in order of rate. (report.LoadComparison, once it
// lands, is the one home of this rule.)
func loadComparison(a, b engine.LoadSection) []loadCompareRow {
	var rows []loadCompareRow
	at := func(rate float64) int {
		return slices.IndexFunc(rows, func(r loadCompareRow) bool { return r.RateRPS == rate })
	}
	for i := range a.Results {
		rows = append(rows, loadCompareRow{RateRPS: a.Results[i].RateRPS, A: &a.Results[i]})
	}
	for i := range b.Results {
		if j := at(b.Results[i].RateRPS); j >= 0 && rows[j].B == nil {
			rows[j].B = &b.Results[i]
		} else {
			rows = append(rows, loadCompareRow{RateRPS: b.Results[i].RateRPS, B: &b.Results[i]})
		}
	}
	slices.SortStableFunc(rows, func(x, y loadCompareRow) int { return cmp.Compare(x.RateRPS, y.RateRPS) })
	return rows
}

// loadCompareColumns are the headings of the comparison of two load tests.
var loadCompareColumns = []string{"Rate", "Req/s A → B", "TTFT p99 A → B", "E2E p99 A → B", "Good req/s A → B"}

var loadCompareWidths = []float32{75, 150, 175, 205, 150}

// cells is the row's figures: each A → B with B's change from A.
func (r loadCompareRow) cells() []string {
	pair := func(get func(engine.LoadResult) float64, format func(float64) string) string {
		side := func(res *engine.LoadResult) (string, float64, bool) {
			if res == nil || res.Completed == 0 {
				return report.Dash, 0, false
			}
			v := get(*res)
			return format(v), v, true
		}
		a, va, oka := side(r.A)
		b, vb, okb := side(r.B)
		s := a + " → " + b
		if oka && okb && va != 0 {
			s += " (" + report.Percent((vb-va)/va) + ")"
		}
		return s
	}
	return []string{
		rateLabel(r.RateRPS),
		pair(func(x engine.LoadResult) float64 { return x.RequestThroughputRPS }, reqPerSec),
		pair(func(x engine.LoadResult) float64 { return x.TTFTMs.P99 }, report.Millis),
		pair(func(x engine.LoadResult) float64 { return x.E2EMs.P99 }, report.Millis),
		pair(func(x engine.LoadResult) float64 { return x.GoodputRPS }, reqPerSec),
	}
}

// newTextTable is a read-only table of cells under columns.
func newTextTable(columns []string, widths []float32, cells [][]string) *widget.Table {
	t := widget.NewTableWithHeaders(
		func() (int, int) { return len(cells), len(columns) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			l.SetText(cells[id.Row][id.Col])
			l.Alignment = fyne.TextAlignTrailing
			if id.Col == 0 {
				l.Alignment = fyne.TextAlignLeading
			}
			l.Refresh()
		})
	t.ShowHeaderColumn = false
	t.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			l := o.(*widget.Label)
			l.TextStyle = fyne.TextStyle{Bold: true}
			l.SetText(columns[id.Col])
		}
	}
	for i, w := range widths {
		t.SetColumnWidth(i, w)
	}
	return t
}
