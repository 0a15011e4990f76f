package widget

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// colDone is the Run screen's column of completed and failed requests in
// one ("198 / 2"), made from report.LoadRow's two.
const colDone = "Completed / failed"

// LoadRunColumns are the Run screen's columns of a load test: what a rate
// tells at a glance, narrow enough for the screen's left pane.
var LoadRunColumns = []string{"Rate", "Status", colDone, "Requests/s", "Output tok/s", "TTFT p50", "TTFT p99", "E2E p99", "Goodput"}

// loadWidths fit each column's figures at the default text size.
var loadWidths = map[string]float32{"Rate": 96, "Status": 104, "Completed": 92, "Failed": 62, colDone: 128, "Duration": 82,
	"Requests/s": 96, "Output tok/s": 102, "Goodput": 96}

// loadWidth is a column's width: loadWidths', else a latency's.
func loadWidth(col string) float32 {
	if w, ok := loadWidths[col]; ok {
		return w
	}
	return 84
}

// loadCells is one rate's figures by column: report.LoadRow's (the one
// home of their formatting), and colDone.
func loadCells(r engine.LoadResult) map[string]string {
	row := report.LoadRow(r)
	cells := make(map[string]string, len(row)+1)
	for i, col := range report.LoadColumns {
		cells[col] = row[i]
	}
	cells[colDone] = cells["Completed"] + " / " + cells["Failed"]
	return cells
}

// PlanRateLabel names a rate a load test will measure, as report.RateLabel
// names a measured one.
func PlanRateLabel(rateRPS float64) string { return report.RateRPS(rateRPS) + " req/s" }

// RateList writes rates as "1, 2, 4, 8 req/s".
func RateList(rates []float64) string {
	s := make([]string, len(rates))
	for i, r := range rates {
		s[i] = report.RateRPS(r)
	}
	return strings.Join(s, ", ") + " req/s"
}

// LoadLine is a finished rate in the event log: "4 req/s: Valid · 3.98
// req/s · 995.0 tok/s · TTFT p99 412 ms · E2E p99 3,000 ms · 2 failed"; a
// rate that stopped part-way gives its completed requests' figures too.
func LoadLine(r engine.LoadResult) string {
	c := loadCells(r)
	s := c["Rate"] + ": " + c["Status"]
	if report.LoadHasFigures(r) {
		s += " · "
		if report.LoadPartial(r) {
			s += "before it stopped: "
		}
		s += c["Requests/s"] + " · " + c["Output tok/s"] + " tok/s · TTFT p99 " + c["TTFT p99"] + " · E2E p99 " + c["E2E p99"]
	}
	if r.Failed > 0 {
		s += " · " + report.Int(r.Failed) + " failed"
	}
	if why := report.StatusReason(r.Status, r.Error); why != "" {
		s += " · " + why
	}
	return s
}

// loadTableRow is a row of a loadTable: a finished rate, or one planned or
// being measured (res nil), whose note stands in the Status column.
type loadTableRow struct {
	rateRPS float64 // -1: the rates a sweep has yet to choose
	// trace: the row of a trace's replay, whose one rate (the trace's
	// own) is known once the trace is read; it holds whatever rate comes.
	trace bool
	label string
	res   *engine.LoadResult
	note  string
}

// LoadTable is a load test's table, one row per rate, in the columns cols
// (of report.LoadColumns, and colDone); its flags and the few-samples
// marker are explained under it.
type LoadTable struct {
	cols  []string
	Rows  []loadTableRow
	Cells [][]string
	table *widget.Table
	notes *widget.Label
	box   fyne.CanvasObject
}

// NewLoadTable is an empty table of the columns cols.
func NewLoadTable(cols []string) *LoadTable {
	t := &LoadTable{cols: cols, notes: widget.NewLabel("")}
	t.notes.Wrapping = fyne.TextWrapWord
	t.notes.Hide()
	t.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(t.Cells), len(t.cols) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		t.updateCell)
	t.table.ShowHeaderColumn = false
	t.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 && id.Col < len(t.cols) {
			l := o.(*widget.Label)
			l.TextStyle = fyne.TextStyle{Bold: true}
			l.SetText(t.cols[id.Col])
		}
	}
	for i, c := range cols {
		t.table.SetColumnWidth(i, loadWidth(c))
	}
	t.box = container.NewBorder(nil, t.notes, nil, nil, t.table)
	return t
}

// Object is the table to place on the screen.
func (t *LoadTable) Object() fyne.CanvasObject { return t.box }

func (t *LoadTable) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	l := o.(*widget.Label)
	if id.Row >= len(t.Cells) || id.Col >= len(t.cols) {
		return
	}
	l.SetText(t.Cells[id.Row][id.Col])
	col, row := t.cols[id.Col], t.Rows[id.Row]
	l.Alignment = fyne.TextAlignTrailing
	if col == "Rate" || col == "Status" {
		l.Alignment = fyne.TextAlignLeading
	}
	switch {
	case col == "Rate":
		l.Importance = widget.MediumImportance
	case row.res == nil || !report.LoadMeasured(*row.res):
		l.Importance = widget.LowImportance
	case col == "Status" && len(row.res.Flags) > 0:
		l.Importance = widget.WarningImportance
	default:
		l.Importance = widget.MediumImportance
	}
	l.Refresh()
}

// SetPlanned lists the rates a load test will measure, each with note
// ("will run"); a burst is one row, a sweep's rates one row until known.
func (t *LoadTable) SetPlanned(p engine.LoadPlan, note string) {
	t.Rows = t.Rows[:0]
	switch {
	case p.Trace != nil:
		t.Rows = append(t.Rows, loadTableRow{trace: true, label: "trace", note: note})
	case p.Conversations != nil:
		t.Rows = append(t.Rows, loadTableRow{label: "conversations", note: note})
	case p.Burst > 0:
		t.Rows = append(t.Rows, loadTableRow{label: "burst of " + report.Int(p.Burst), note: note})
	case p.Sweep:
		t.Rows = append(t.Rows, loadTableRow{rateRPS: -1, label: "sweep", note: "rates follow the limit it measures first"})
	}
	for _, r := range p.RatesRPS {
		t.Rows = append(t.Rows, loadTableRow{rateRPS: r, label: PlanRateLabel(r), note: note})
	}
	t.Refresh()
}

// SetResults shows the finished rates of a load test, in its order.
func (t *LoadTable) SetResults(rs []engine.LoadResult) {
	t.Rows = t.Rows[:0]
	for i := range rs {
		t.Rows = append(t.Rows, loadTableRow{rateRPS: rs[i].RateRPS, res: &rs[i]})
	}
	t.Refresh()
}

// SetResult shows a finished rate in its row, or a new one (a sweep's
// rates are known only as they come).
func (t *LoadTable) SetResult(r engine.LoadResult) {
	t.dropSweepRow()
	row := loadTableRow{rateRPS: r.RateRPS, res: &r, trace: r.Arrivals == engine.ArrivalsTrace}
	if i := t.find(r.RateRPS); i >= 0 {
		t.Rows[i] = row
	} else {
		t.Rows = append(t.Rows, row)
	}
	t.Refresh()
}

// SetNote writes note in the row of a rate not finished yet (added when
// the table has no such row); rows of other unfinished rates get other.
func (t *LoadTable) SetNote(rateRPS float64, note, other string) {
	t.dropSweepRow()
	for i := range t.Rows {
		if t.Rows[i].res == nil {
			t.Rows[i].note = other
		}
	}
	if i := t.find(rateRPS); i >= 0 {
		if t.Rows[i].res == nil {
			t.Rows[i].note = note
		}
	} else {
		label := PlanRateLabel(rateRPS)
		if rateRPS <= 0 {
			label = "burst"
		}
		t.Rows = append(t.Rows, loadTableRow{rateRPS: rateRPS, label: label, note: note})
	}
	t.Refresh()
}

// dropSweepRow removes the placeholder of a sweep's rates once one is known.
func (t *LoadTable) dropSweepRow() {
	t.Rows = slices.DeleteFunc(t.Rows, func(r loadTableRow) bool { return r.rateRPS < 0 })
}

func (t *LoadTable) find(rateRPS float64) int {
	return slices.IndexFunc(t.Rows, func(r loadTableRow) bool { return r.trace || r.rateRPS == rateRPS })
}

func (t *LoadTable) Refresh() {
	t.Cells = make([][]string, len(t.Rows))
	var finished []engine.LoadResult
	few := false
	for i, r := range t.Rows {
		cells := map[string]string{"Rate": r.label, "Status": r.note}
		if r.res != nil {
			cells = loadCells(*r.res)
			finished = append(finished, *r.res)
		}
		t.Cells[i] = make([]string, len(t.cols))
		for j, c := range t.cols {
			t.Cells[i][j] = cells[c]
			few = few || strings.Contains(cells[c], report.FewSamplesMarker)
		}
	}
	var notes []string
	for _, l := range report.LoadFlagLines(finished) {
		notes = append(notes, report.FlagMarker+" "+l)
	}
	if few {
		notes = append(notes, report.NoteFewSamples)
	}
	SetOptional(t.notes, strings.Join(notes, "\n"))
	t.table.Refresh()
}

// HeaderSubtitle is the explanation line of a screenHeader, which a screen
// with two kinds of plan words for the kind shown; nil if header is not one.
func HeaderSubtitle(header fyne.CanvasObject) *widget.Label {
	if c, ok := header.(*fyne.Container); ok {
		for _, o := range c.Objects {
			if l, ok := o.(*widget.Label); ok {
				return l
			}
		}
	}
	return nil
}
