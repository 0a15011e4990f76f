package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// The columns of a load test's table, one row per rate. loadRow fills them.
const (
	loadColRate = iota
	loadColStatus
	loadColCompleted
	loadColFailed
	loadColThroughput
	loadColTokPerSec
	loadColTTFTP50
	loadColTTFTP99
	loadColTPOTP50
	loadColITLP99
	loadColE2EP50
	loadColE2EP99
	loadColGoodput
	loadColBehind
	loadColDone // completed and failed in one: "198 / 2" (the Run screen's)
)

// loadColumns are the headings of a load test's table.
var loadColumns = []string{"Rate", "Status", "Completed", "Failed", "Req/s", "Output tok/s", "TTFT p50", "TTFT p99",
	"TPOT p50", "ITL p99", "E2E p50", "E2E p99", "Good req/s", "Behind", "Completed / failed"}

// loadWidths fit each column's figures at the default text size.
var loadWidths = []float32{72, 100, 92, 62, 58, 100, 78, 78, 78, 74, 78, 78, 90, 74, 128}

// fewMarker follows a p99 read from fewer than engine.MinP99Samples requests.
const fewMarker = "*"

// noteFew explains fewMarker under a table that shows it.
const noteFew = fewMarker + " p99 of fewer than 100 requests: the slowest few, not a percentile."

// rateLabel names a rate as the tables and lines do: "4 req/s", "burst".
func rateLabel(rateRPS float64) string {
	if rateRPS <= 0 {
		return "burst"
	}
	return strconv.FormatFloat(rateRPS, 'f', -1, 64) + " req/s"
}

// rateList writes rates as "1, 2, 4, 8 req/s".
func rateList(rates []float64) string {
	return engine.FormatRates(rates) + " req/s"
}

// reqPerSec writes a request rate: 3.98.
func reqPerSec(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// loadRow is one rate's figures under loadColumns. Until the report
// package formats load figures (report.md's load section), this is the
// app's one home for them.
func loadRow(r engine.LoadResult) []string {
	row := make([]string, len(loadColumns))
	row[loadColRate] = rateLabel(r.RateRPS)
	row[loadColStatus] = string(r.Status)
	if len(r.Flags) > 0 {
		row[loadColStatus] += " " + report.FlagMarker
	}
	row[loadColCompleted] = report.Int(r.Completed)
	row[loadColFailed] = report.Int(r.Failed)
	row[loadColDone] = row[loadColCompleted] + " / " + row[loadColFailed]
	if r.Completed == 0 {
		for i := loadColThroughput; i <= loadColBehind; i++ {
			row[i] = report.Dash
		}
		return row
	}
	p99 := func(p engine.Percentiles) string {
		if p.FewForP99() {
			return report.Millis(p.P99) + fewMarker
		}
		return report.Millis(p.P99)
	}
	row[loadColThroughput] = reqPerSec(r.RequestThroughputRPS)
	row[loadColTokPerSec] = report.TokPerSec(r.OutputTokPerSec)
	row[loadColTTFTP50], row[loadColTTFTP99] = report.Millis(r.TTFTMs.P50), p99(r.TTFTMs)
	row[loadColTPOTP50], row[loadColITLP99] = report.Millis(r.TPOTMs.P50), p99(r.ITLMs)
	row[loadColE2EP50], row[loadColE2EP99] = report.Millis(r.E2EMs.P50), p99(r.E2EMs)
	row[loadColGoodput] = reqPerSec(r.GoodputRPS)
	row[loadColBehind] = report.Millis(r.BehindMs)
	return row
}

// loadLine is a finished rate in the event log: "4 req/s: Valid · 3.98 req/s ·
// TTFT p99 412 ms · 2 failed".
func loadLine(r engine.LoadResult) string {
	row := loadRow(r)
	s := row[loadColRate] + ": " + row[loadColStatus]
	if r.Completed > 0 {
		s += " · " + row[loadColThroughput] + " req/s · " + row[loadColTokPerSec] + " tok/s · TTFT p99 " + row[loadColTTFTP99] + " · E2E p99 " + row[loadColE2EP99]
	}
	if r.Failed > 0 {
		s += " · " + report.Int(r.Failed) + " failed"
	}
	if r.Error != "" {
		s += " · " + r.Error
	}
	return s
}

// loadTableRow is a row of a loadTable: a finished rate, or one planned or
// being measured (res nil), whose note stands in the Status column.
type loadTableRow struct {
	rateRPS float64
	res     *engine.LoadResult
	note    string
}

// loadTable is a load test's table, one row per rate, showing the columns
// cols of loadColumns; the flags and the few-samples mark are explained
// under it.
type loadTable struct {
	cols  []int
	rows  []loadTableRow
	cells [][]string
	table *widget.Table
	notes *widget.Label
	box   fyne.CanvasObject
}

// newLoadTable is an empty table of the columns cols (when nil, every
// column of the reports: completed and failed apart).
func newLoadTable(cols []int) *loadTable {
	if cols == nil {
		for i := range loadColDone {
			cols = append(cols, i)
		}
	}
	t := &loadTable{cols: cols, notes: widget.NewLabel("")}
	t.notes.Wrapping = fyne.TextWrapWord
	t.notes.Hide()
	t.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(t.cells), len(t.cols) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		t.updateCell)
	t.table.ShowHeaderColumn = false
	t.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 && id.Col < len(t.cols) {
			l := o.(*widget.Label)
			l.TextStyle = fyne.TextStyle{Bold: true}
			l.SetText(loadColumns[t.cols[id.Col]])
		}
	}
	for i, c := range cols {
		t.table.SetColumnWidth(i, loadWidths[c])
	}
	t.box = container.NewBorder(nil, t.notes, nil, nil, t.table)
	return t
}

func (t *loadTable) object() fyne.CanvasObject { return t.box }

func (t *loadTable) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	l := o.(*widget.Label)
	if id.Row >= len(t.cells) || id.Col >= len(t.cols) {
		return
	}
	l.SetText(t.cells[id.Row][id.Col])
	l.Alignment = fyne.TextAlignTrailing
	if c := t.cols[id.Col]; c == loadColRate || c == loadColStatus {
		l.Alignment = fyne.TextAlignLeading
	}
	row := t.rows[id.Row]
	switch {
	case t.cols[id.Col] == loadColRate:
		l.Importance = widget.MediumImportance
	case row.res == nil || row.res.Status != engine.StatusValid:
		l.Importance = widget.LowImportance
	case t.cols[id.Col] == loadColStatus && len(row.res.Flags) > 0:
		l.Importance = widget.WarningImportance
	default:
		l.Importance = widget.MediumImportance
	}
	l.Refresh()
}

// setPlanned lists the rates a load test will measure, each with note
// ("will run"); a burst is one row.
func (t *loadTable) setPlanned(p engine.LoadPlan, note string) {
	t.rows = t.rows[:0]
	switch {
	case p.Burst > 0:
		t.rows = append(t.rows, loadTableRow{note: note})
	case p.Sweep:
		t.rows = append(t.rows, loadTableRow{rateRPS: -1, note: "the rates follow the limit it measures first"})
	}
	for _, r := range p.RatesRPS {
		t.rows = append(t.rows, loadTableRow{rateRPS: r, note: note})
	}
	t.refresh()
}

// setResults shows the finished rates of a load test, in its order.
func (t *loadTable) setResults(rs []engine.LoadResult) {
	t.rows = t.rows[:0]
	for i := range rs {
		t.rows = append(t.rows, loadTableRow{rateRPS: rs[i].RateRPS, res: &rs[i]})
	}
	t.refresh()
}

// setResult shows a finished rate in its row, or a new one (a sweep's
// rates are known only as they come).
func (t *loadTable) setResult(r engine.LoadResult) {
	t.dropSweepRow()
	row := loadTableRow{rateRPS: r.RateRPS, res: &r}
	if i := t.find(r.RateRPS); i >= 0 {
		t.rows[i] = row
	} else {
		t.rows = append(t.rows, row)
	}
	t.refresh()
}

// setNote writes note in the row of a rate not finished yet (added when
// the table has no such row); rows of other unfinished rates go back to
// other.
func (t *loadTable) setNote(rateRPS float64, note, other string) {
	t.dropSweepRow()
	for i := range t.rows {
		if t.rows[i].res == nil {
			t.rows[i].note = other
		}
	}
	if i := t.find(rateRPS); i >= 0 {
		if t.rows[i].res == nil {
			t.rows[i].note = note
		}
	} else {
		t.rows = append(t.rows, loadTableRow{rateRPS: rateRPS, note: note})
	}
	t.refresh()
}

// dropSweepRow removes the placeholder of a sweep's rates once one is known.
func (t *loadTable) dropSweepRow() {
	t.rows = slices.DeleteFunc(t.rows, func(r loadTableRow) bool { return r.rateRPS < 0 })
}

func (t *loadTable) find(rateRPS float64) int {
	return slices.IndexFunc(t.rows, func(r loadTableRow) bool { return r.rateRPS == rateRPS })
}

func (t *loadTable) refresh() {
	t.cells = make([][]string, len(t.rows))
	var flags []string
	few := false
	for i, r := range t.rows {
		full := make([]string, len(loadColumns))
		if r.res != nil {
			full = loadRow(*r.res)
			for _, f := range r.res.Flags {
				flags = append(flags, report.FlagMarker+" "+full[loadColRate]+": "+f.Message)
			}
			few = few || strings.Contains(strings.Join(full, " "), fewMarker)
		} else {
			full[loadColRate] = rateLabel(r.rateRPS)
			if r.rateRPS < 0 {
				full[loadColRate] = "sweep"
			}
			full[loadColStatus] = r.note
		}
		t.cells[i] = make([]string, len(t.cols))
		for j, c := range t.cols {
			t.cells[i][j] = full[c]
		}
	}
	if few {
		flags = append(flags, noteFew)
	}
	setOptional(t.notes, strings.Join(flags, "\n"))
	t.table.Refresh()
}

// loadPlanLine says what a load test sent: "Load test at 1, 2, 4, 8 req/s
// · Poisson arrivals · 200 requests per rate · 1024 input, 256 output tokens".
func loadPlanLine(p engine.LoadPlan) string {
	parts := []string{"Load test"}
	switch {
	case p.Burst > 0:
		parts[0] += ": a burst of " + engine.Count(p.Burst, "request", "requests") + " at once"
	case p.Sweep:
		parts[0] += ": a sweep up to the measured limit"
	default:
		parts[0] += " at " + rateList(p.RatesRPS)
	}
	if p.Burst == 0 {
		parts = append(parts, arrivalsWords(p.Arrivals), engine.Count(p.Requests, "request", "requests")+" per rate")
	}
	if p.MaxConcurrency > 0 {
		parts = append(parts, fmt.Sprintf("at most %d at once", p.MaxConcurrency))
	}
	input := engine.FormatTokenRange(p.InputTokens) + " input"
	if p.Dataset != "" {
		input = "prompts of " + filepath.Base(p.Dataset)
	}
	parts = append(parts, input+", "+engine.FormatTokenRange(p.OutputTokens)+" output tokens")
	return strings.Join(parts, " · ")
}

// headerSubtitle is the explanation line of a screenHeader, which a screen
// with two kinds of plan words for the kind shown; nil if header is not one.
func headerSubtitle(header fyne.CanvasObject) *widget.Label {
	if c, ok := header.(*fyne.Container); ok {
		for _, o := range c.Objects {
			if l, ok := o.(*widget.Label); ok {
				return l
			}
		}
	}
	return nil
}

// arrivalsWords names how requests arrive: "Poisson arrivals".
func arrivalsWords(a engine.Arrivals) string {
	switch a {
	case engine.ArrivalsPoisson:
		return "Poisson arrivals"
	case engine.ArrivalsConstant:
		return "evenly spaced arrivals"
	}
	return string(a) + " arrivals"
}
