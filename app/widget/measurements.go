package widget

import (
	"cmp"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// MeasurementsTable is the reference reports' All measurements table. A flagged cell's
// status carries report.FlagMarker, and the flags are listed under the
// table. Choosing a row shows the cell's details under them (cellDetails).
type MeasurementsTable struct {
	*ResultTable
	Flags   *widget.Label
	Details *widget.Label
	slo     engine.SLO // judges the chosen cell in its details
	box     fyne.CanvasObject
}

// measurementsSpec is report.MeasurementRow as a resultTable.
var measurementsSpec = TableSpec{
	Row:       report.MeasurementRow,
	Compare:   CompareMeasurements,
	StatusCol: 3,
	Leading:   []int{0, 1, 3},
	Widths:    []float32{135, 70, 82, 105, 90, 105, 75, 112, 88, 92, 100, 100},
}

// NewMeasurementsTable is the All measurements table, empty.
func NewMeasurementsTable() *MeasurementsTable {
	m := &MeasurementsTable{ResultTable: NewResultTable(measurementsSpec, report.MeasurementColumns), Flags: widget.NewLabel(""), Details: widget.NewLabel("")}
	m.Flags.Wrapping, m.Details.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	m.Flags.Hide()
	m.Details.Hide()
	m.Table.OnSelected = func(id widget.TableCellID) {
		if id.Row >= 0 && id.Row < len(m.Rows) {
			SetOptional(m.Details, CellDetails(m.Rows[id.Row], m.slo))
		}
	}
	m.box = container.NewBorder(nil, container.NewVBox(m.Flags, m.Details), nil, nil, m.Table)
	return m
}

// SetSLO judges the cell chosen from now on against slo.
func (m *MeasurementsTable) SetSLO(slo engine.SLO) {
	m.slo = slo
	m.Table.UnselectAll()
	m.Details.Hide()
}

// Object is the table to place on the screen.
func (m *MeasurementsTable) Object() fyne.CanvasObject { return m.box }

// SetResults shows results in the run's order, and lists their flags.
func (m *MeasurementsTable) SetResults(results []engine.Result) {
	m.ResultTable.SetResults(report.MeasurementColumns, results)
	showFlagLines(m.Flags, report.FlagLines(results))
	m.Table.UnselectAll()
	m.Details.Hide()
}

// CompareMeasurements orders two results by a column of the All
// measurements table.
func CompareMeasurements(col int, a, b engine.Result) int {
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
		return MeasuredKey(r, []float64{r.TotalTokPerSec, r.PerRequestTokPerSec, r.TTFTMs, r.ITLMs, r.AvgActive,
			float64(r.Completed), float64(r.OutputTokens), r.MeasuredS}[col-4])
	}
	return cmp.Compare(key(a), key(b))
}
