package widget

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// TableSpec says what a resultTable shows: its rows come from the report
// package, so the screen and the exports format every figure one way.
type TableSpec struct {
	Row       func(engine.Result) []string
	Compare   func(col int, a, b engine.Result) int // orders rows by a column
	StatusCol int                                   // the column that shows the cell's status
	Leading   []int                                 // columns aligned left; the rest are figures
	Widths    []float32                             // fit the formatted figures at the default text size
}

// ResultTable is a table of results, one row per cell; tapping a column's
// header sorts by it, tapping again reverses the order. A flagged cell's
// status is shown as a warning, a cell that isn't Valid in low importance.
type ResultTable struct {
	spec    TableSpec
	Columns []string
	Rows    []engine.Result
	Cells   [][]string
	sortCol int // -1: the run's order
	desc    bool
	Table   *widget.Table
}

// NewResultTable is a table of results laid out by spec, with these
// columns, empty.
func NewResultTable(spec TableSpec, columns []string) *ResultTable {
	m := &ResultTable{spec: spec, Columns: columns, sortCol: -1}
	m.Table = widget.NewTableWithHeaders(
		func() (int, int) { return len(m.Cells), len(m.Columns) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		m.updateCell)
	m.Table.ShowHeaderColumn = false
	m.Table.CreateHeader = func() fyne.CanvasObject {
		b := widget.NewButton("", nil)
		b.Importance = widget.LowImportance
		return b
	}
	m.Table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		b := o.(*widget.Button)
		if id.Col < 0 {
			return
		}
		b.SetText(m.HeaderText(id.Col))
		col := id.Col
		b.OnTapped = func() { m.SortBy(col) }
	}
	for i, w := range spec.Widths {
		m.Table.SetColumnWidth(i, max(w, m.headerWidth(i)))
	}
	return m
}

// headerWidth is how wide column col must be for its header to show
// whole, with the sort arrow: 0 for a column without a title.
func (m *ResultTable) headerWidth(col int) float32 {
	if col >= len(m.Columns) {
		return 0
	}
	return widget.NewButton(shortColumn(m.Columns[col])+" ▼", nil).MinSize().Width
}

func (m *ResultTable) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	l := o.(*widget.Label)
	l.SetText(m.Cells[id.Row][id.Col])
	l.Alignment = fyne.TextAlignTrailing
	if slices.Contains(m.spec.Leading, id.Col) {
		l.Alignment = fyne.TextAlignLeading
	}
	l.Importance = widget.MediumImportance
	switch r := m.Rows[id.Row]; {
	case id.Col == m.spec.StatusCol && report.Marked(r):
		l.Importance = widget.WarningImportance
	case r.Status != engine.StatusValid:
		l.Importance = widget.LowImportance
	}
	l.Refresh()
}

// HeaderText is a column's title with the sort arrow when sorted by it.
func (m *ResultTable) HeaderText(col int) string {
	t := shortColumn(m.Columns[col])
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

// SetResults shows results in the run's order under columns, which are
// the spec's row cut to their length.
func (m *ResultTable) SetResults(columns []string, results []engine.Result) {
	m.Columns, m.Rows = columns, slices.Clone(results)
	m.sortCol, m.desc = -1, false
	m.refresh()
}

// SortBy sorts by col, or reverses the order when already sorted by it.
func (m *ResultTable) SortBy(col int) {
	if m.sortCol == col {
		m.desc = !m.desc
	} else {
		m.sortCol, m.desc = col, false
	}
	slices.SortStableFunc(m.Rows, func(a, b engine.Result) int {
		c := m.spec.Compare(col, a, b)
		if m.desc {
			return -c
		}
		return c
	})
	m.refresh()
}

func (m *ResultTable) refresh() {
	m.Cells = make([][]string, len(m.Rows))
	for i, r := range m.Rows {
		m.Cells[i] = m.spec.Row(r)[:len(m.Columns)]
	}
	m.Table.Refresh()
}

// MeasuredKey is a figure to sort by, or -1 for a cell that has none to
// show, so unmeasured cells sort first ascending and last descending.
func MeasuredKey(r engine.Result, v float64) float64 {
	if !r.Measured() {
		return -1
	}
	return v
}
