package widget

import (
	"cmp"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// NoChecksLine is the Checks tab's sentence for a run whose cells carry no
// check data (a server without /metrics, a machine without NVML).
const NoChecksLine = "No server cross-check was recorded in this run: no decode cell has the server's or the GPUs' own figures to show beside ours."

// ChecksView is the Results screen's Checks tab: which trust checks ran,
// the GPU throttle verdict when it is not ok, and report.md's Checks table.
type ChecksView struct {
	lines *widget.Label
	Table *ResultTable
	box   fyne.CanvasObject
}

// checksSpec is report.CheckRow as a resultTable.
var checksSpec = TableSpec{
	Row:       report.CheckRow,
	Compare:   compareChecks,
	StatusCol: 2,
	Leading:   []int{0, 2, 9, 10},
	Widths:    []float32{70, 82, 82, 95, 105, 125, 110, 110, 70, 320, 320},
}

// NewChecksView is the Checks table, empty until Show.
func NewChecksView() *ChecksView {
	c := &ChecksView{lines: widget.NewLabel(""), Table: NewResultTable(checksSpec, report.CheckColumns)}
	c.lines.Wrapping = fyne.TextWrapWord
	c.box = container.NewBorder(c.lines, nil, nil, nil, c.Table.Table)
	return c
}

// Object is the view to place on the screen.
func (c *ChecksView) Object() fyne.CanvasObject { return c.box }

// Show puts rep's checks on the tab: the Run section's Checks lines, the
// throttle summary when a GPU throttled, a line for each GPU whose PCIe
// link ran below its maximum under load, then the table, or a sentence
// saying there is none.
func (c *ChecksView) Show(rep engine.Report) {
	lines := slices.Clone(rep.Run.Checks)
	if line, ok := report.ThrottleSummary(rep.Results); !ok {
		lines = append(lines, line)
	}
	lines = append(lines, report.PCIeWarnings(rep.Results)...)
	rows := report.CheckResults(rep)
	c.Table.SetResults(report.CheckHeader(rows), rows)
	if len(rows) == 0 {
		lines = append(lines, NoChecksLine)
		c.Table.Table.Hide()
	} else {
		c.Table.Table.Show()
	}
	c.lines.SetText(strings.Join(lines, "\n"))
}

// compareChecks orders two results by a column of the Checks table.
func compareChecks(col int, a, b engine.Result) int {
	switch col {
	case 0, 1, 2: // Context, Requests at once, Status: as All measurements
		return CompareMeasurements(col+1, a, b)
	case 9: // GPU throttle: by the verdict as shown
		return cmp.Compare(report.CheckRow(a)[col], report.CheckRow(b)[col])
	}
	return cmp.Compare(checkKey(col, a), checkKey(col, b))
}

// checkKey is the figure a Checks column shows for r, or -1 where it shows
// report.Dash, so cells without one sort first ascending.
func checkKey(col int, r engine.Result) float64 {
	s := r.Server
	switch {
	case col == 3:
		return MeasuredKey(r, r.TotalTokPerSec)
	case col == 5:
		if v, ok := report.ServerVsOurs(r); ok {
			return v
		}
		return -2 // below any real gap, which is ≥ −1
	case s == nil:
		return -1
	case col == 4 && s.NotComparable != "":
		return -1
	case col == 10 && s.SpecDecode == nil:
		return -1
	}
	switch col {
	case 4:
		return s.TokPerSec
	case 6:
		return s.Active
	case 7:
		return float64(s.Preemptions)
	case 8:
		return r.DrainS
	case 10:
		return s.SpecDecode.AcceptanceRate
	}
	return -1
}
