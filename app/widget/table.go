package app

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// tableSpec says what a resultTable shows: its rows come from the report
// package, so the screen and the exports format every figure one way.
type tableSpec struct {
	row       func(engine.Result) []string
	compare   func(col int, a, b engine.Result) int // orders rows by a column
	statusCol int                                   // the column that shows the cell's status
	leading   []int                                 // columns aligned left; the rest are figures
	widths    []float32                             // fit the formatted figures at the default text size
}

// resultTable is a table of results, one row per cell; tapping a column's
// header sorts by it, tapping again reverses the order. A flagged cell's
// status is shown as a warning, a cell that isn't Valid in low importance.
type resultTable struct {
	spec    tableSpec
	columns []string
	rows    []engine.Result
	cells   [][]string
	sortCol int // -1: the run's order
	desc    bool
	table   *widget.Table
}

func newResultTable(spec tableSpec, columns []string) *resultTable {
	m := &resultTable{spec: spec, columns: columns, sortCol: -1}
	m.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(m.cells), len(m.columns) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		m.updateCell)
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
	for i, w := range spec.widths {
		m.table.SetColumnWidth(i, max(w, m.headerWidth(i)))
	}
	return m
}

// headerWidth is how wide column col must be for its header to show
// whole, with the sort arrow: 0 for a column without a title.
func (m *resultTable) headerWidth(col int) float32 {
	if col >= len(m.columns) {
		return 0
	}
	return widget.NewButton(shortColumn(m.columns[col])+" ▼", nil).MinSize().Width
}

func (m *resultTable) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	l := o.(*widget.Label)
	l.SetText(m.cells[id.Row][id.Col])
	l.Alignment = fyne.TextAlignTrailing
	if slices.Contains(m.spec.leading, id.Col) {
		l.Alignment = fyne.TextAlignLeading
	}
	l.Importance = widget.MediumImportance
	switch r := m.rows[id.Row]; {
	case id.Col == m.spec.statusCol && report.Marked(r):
		l.Importance = widget.WarningImportance
	case r.Status != engine.StatusValid:
		l.Importance = widget.LowImportance
	}
	l.Refresh()
}

// headerText is a column's title with the sort arrow when sorted by it.
func (m *resultTable) headerText(col int) string {
	t := shortColumn(m.columns[col])
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

// setResults shows results in the run's order under columns, which are
// the spec's row cut to their length.
func (m *resultTable) setResults(columns []string, results []engine.Result) {
	m.columns, m.rows = columns, slices.Clone(results)
	m.sortCol, m.desc = -1, false
	m.refresh()
}

// sortBy sorts by col, or reverses the order when already sorted by it.
func (m *resultTable) sortBy(col int) {
	if m.sortCol == col {
		m.desc = !m.desc
	} else {
		m.sortCol, m.desc = col, false
	}
	slices.SortStableFunc(m.rows, func(a, b engine.Result) int {
		c := m.spec.compare(col, a, b)
		if m.desc {
			return -c
		}
		return c
	})
	m.refresh()
}

func (m *resultTable) refresh() {
	m.cells = make([][]string, len(m.rows))
	for i, r := range m.rows {
		m.cells[i] = m.spec.row(r)[:len(m.columns)]
	}
	m.table.Refresh()
}

// measuredKey is a figure to sort by, or -1 for a cell that has none to
// show, so unmeasured cells sort first ascending and last descending.
func measuredKey(r engine.Result, v float64) float64 {
	if !r.Measured() {
		return -1
	}
	return v
}
