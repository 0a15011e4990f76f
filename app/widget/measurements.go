package app

import (
	"cmp"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// measurementsTable is the reference reports' All measurements table. A flagged cell's
// status carries report.FlagMarker, and the flags are listed under the
// table. Choosing a row shows the cell's details under them (cellDetails).
type measurementsTable struct {
	*resultTable
	flags   *widget.Label
	details *widget.Label
	slo     engine.SLO // judges the chosen cell in its details
	box     fyne.CanvasObject
}

// measurementsSpec is report.MeasurementRow as a resultTable.
var measurementsSpec = tableSpec{
	row:       report.MeasurementRow,
	compare:   compareMeasurements,
	statusCol: 3,
	leading:   []int{0, 1, 3},
	widths:    []float32{135, 70, 82, 105, 90, 105, 75, 112, 88, 92, 100, 100},
}

func newMeasurementsTable() *measurementsTable {
	m := &measurementsTable{resultTable: newResultTable(measurementsSpec, report.MeasurementColumns), flags: widget.NewLabel(""), details: widget.NewLabel("")}
	m.flags.Wrapping, m.details.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	m.flags.Hide()
	m.details.Hide()
	m.table.OnSelected = func(id widget.TableCellID) {
		if id.Row >= 0 && id.Row < len(m.rows) {
			setOptional(m.details, cellDetails(m.rows[id.Row], m.slo))
		}
	}
	m.box = container.NewBorder(nil, container.NewVBox(m.flags, m.details), nil, nil, m.table)
	return m
}

// setSLO judges the cell chosen from now on against slo.
func (m *measurementsTable) setSLO(slo engine.SLO) {
	m.slo = slo
	m.table.UnselectAll()
	m.details.Hide()
}

func (m *measurementsTable) object() fyne.CanvasObject { return m.box }

// setResults shows results in the run's order, and lists their flags.
func (m *measurementsTable) setResults(results []engine.Result) {
	m.resultTable.setResults(report.MeasurementColumns, results)
	showFlagLines(m.flags, report.FlagLines(results))
	m.table.UnselectAll()
	m.details.Hide()
}

// compareMeasurements orders two results by a column of the All
// measurements table.
func compareMeasurements(col int, a, b engine.Result) int {
	switch col {
	case 0:
		return cmp.Compare(a.Phase, b.Phase)
	case 1:
		return cmp.Compare(a.ContextTokens, b.ContextTokens)
	case 2:
		return cmp.Compare(a.Concurrency, b.Concurrency)
	case 3:
		return cmp.Compare(a.Status, b.Status)
	}
	key := func(r engine.Result) float64 {
		return measuredKey(r, []float64{r.TotalTokPerSec, r.PerRequestTokPerSec, r.TTFTMs, r.ITLMs, r.AvgActive,
			float64(r.Completed), float64(r.OutputTokens), r.MeasuredS}[col-4])
	}
	return cmp.Compare(key(a), key(b))
}
