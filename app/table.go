package app

import (
	"cmp"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// measurementsTable is the seeds' All measurements table; tapping a
// column's header sorts by it, tapping again reverses the order. A flagged
// cell's status carries report.FlagMarker, and the flags are listed under
// the table.
type measurementsTable struct {
	rows    []engine.Result
	cells   [][]string
	sortCol int // -1: the run's order
	desc    bool
	table   *widget.Table
	flags   *widget.Label
	box     fyne.CanvasObject
}

// columnWidths fit the seeds' formatted figures at the default text size.
var columnWidths = []float32{135, 70, 82, 105, 90, 105, 75, 112, 88, 92, 100, 100}

func newMeasurementsTable() *measurementsTable {
	m := &measurementsTable{sortCol: -1, flags: widget.NewLabel("")}
	m.flags.Wrapping = fyne.TextWrapWord
	m.flags.Hide()
	m.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(m.cells), len(report.MeasurementColumns) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			l.SetText(m.cells[id.Row][id.Col])
			l.Alignment = fyne.TextAlignLeading
			if id.Col >= 4 || id.Col == 2 {
				l.Alignment = fyne.TextAlignTrailing
			}
			l.Importance = widget.MediumImportance
			switch r := m.rows[id.Row]; {
			case id.Col == 3 && report.Marked(r):
				l.Importance = widget.WarningImportance
			case r.Status != engine.StatusValid:
				l.Importance = widget.LowImportance
			}
			l.Refresh()
		})
	m.table.ShowHeaderColumn = false
	m.table.CreateHeader = func() fyne.CanvasObject {
		b := widget.NewButton("", nil)
		b.Importance = widget.LowImportance
		return b
	}
	m.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		b := o.(*widget.Button)
		if id.Col < 0 {
			return
		}
		b.SetText(m.headerText(id.Col))
		col := id.Col
		b.OnTapped = func() { m.sortBy(col) }
	}
	for i, w := range columnWidths {
		m.table.SetColumnWidth(i, w)
	}
	m.box = container.NewBorder(nil, m.flags, nil, nil, m.table)
	return m
}

func (m *measurementsTable) object() fyne.CanvasObject { return m.box }

// headerText is a column's title with the sort arrow when sorted by it.
func (m *measurementsTable) headerText(col int) string {
	t := shortColumn(report.MeasurementColumns[col])
	if col == m.sortCol {
		if m.desc {
			return t + " ▼"
		}
		return t + " ▲"
	}
	return t
}

// shortColumn abbreviates the long titles so the table fits 1280 px.
func shortColumn(title string) string {
	switch title {
	case "Requests at once":
		return "Requests"
	case "Per request tok/s":
		return "Per req tok/s"
	case "Time between tokens":
		return "Between tokens"
	case "Average active requests":
		return "Avg active"
	case "Completed requests":
		return "Completed"
	}
	return title
}

// setResults shows results in the run's order, and lists their flags.
func (m *measurementsTable) setResults(results []engine.Result) {
	m.rows = slices.Clone(results)
	m.sortCol, m.desc = -1, false
	m.refresh()
	showFlagLines(m.flags, report.FlagLines(results))
}

// sortBy sorts by col, or reverses the order when already sorted by it.
func (m *measurementsTable) sortBy(col int) {
	if m.sortCol == col {
		m.desc = !m.desc
	} else {
		m.sortCol, m.desc = col, false
	}
	slices.SortStableFunc(m.rows, func(a, b engine.Result) int {
		c := compareBy(col, a, b)
		if m.desc {
			return -c
		}
		return c
	})
	m.refresh()
}

func (m *measurementsTable) refresh() {
	m.cells = make([][]string, len(m.rows))
	for i, r := range m.rows {
		m.cells[i] = report.MeasurementRow(r)
	}
	m.table.Refresh()
}

// compareBy orders two results by a column of the table.
func compareBy(col int, a, b engine.Result) int {
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
		if !r.Measured() {
			return -1 // unmeasured cells sort first ascending, last descending
		}
		return []float64{r.TotalTokPerSec, r.PerRequestTokPerSec, r.TTFTMs, r.ITLMs, r.AvgActive,
			float64(r.Completed), float64(r.OutputTokens), r.MeasuredS}[col-4]
	}
	return cmp.Compare(key(a), key(b))
}
