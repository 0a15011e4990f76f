package results

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
)

// resultsQuality is the Results screen's Quality tab, there while the
// report shown has a quality section: the drift chart (drawn as the other
// charts are, charts.KindQuality) above the tables charts.BuildQuality
// makes of it: the drift per context, the needle task and the task file's
// run with its flipped items, as report.md and the sheet show them.
type resultsQuality struct {
	Tab    *container.TabItem
	Title  *widget.Label // what was compared with what: "simulated" when it was
	View   *widget.RadioGroup
	chart  fyne.CanvasObject
	Tables *fyne.Container
	scroll *container.Scroll   // the tables
	Model  charts.QualityModel // what the tables show (tests read it)
}

// The Quality tab's name and its two views: the drift chart takes the
// tab's whole height (its two panels stacked need it: under the tables it
// showed one panel, at 1,440 × 900 too), the tables theirs.
const (
	qualityTabName    = "Quality"
	QualityViewChart  = "Drift chart"
	QualityViewTables = "Tables"
)

// newResultsQuality builds the tab around chart, the drift chart's place.
func newResultsQuality(chart fyne.CanvasObject) *resultsQuality {
	q := &resultsQuality{Title: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), Tables: container.NewVBox(), chart: chart}
	q.Title.Truncation = fyne.TextTruncateEllipsis // beside the view's choice; the chart and the tables say it too
	q.scroll = container.NewScroll(q.Tables)
	q.View = widget.NewRadioGroup([]string{QualityViewChart, QualityViewTables}, func(string) { q.showView() })
	q.View.Horizontal, q.View.Required = true, true
	q.View.Selected = QualityViewChart
	q.Tab = container.NewTabItem(qualityTabName, container.NewBorder(container.NewBorder(nil, nil, q.View, nil, q.Title), nil, nil, nil, container.NewStack(chart, q.scroll)))
	q.showView()
	return q
}

// showView shows the view chosen: the chart or the tables.
func (q *resultsQuality) showView() {
	appwidget.ShowIf(q.chart, q.View.Selected != QualityViewTables)
	appwidget.ShowIf(q.scroll, q.View.Selected == QualityViewTables)
}

// Show fills the tab for rep and puts it among views when rep has a
// quality section; takes it away otherwise.
func (q *resultsQuality) Show(rep engine.Report, views *container.AppTabs) {
	has := rep.Quality != nil
	if !has {
		views.Remove(q.Tab)
		return
	}
	if !ContainsTab(views, q.Tab) {
		views.Append(q.Tab)
	}
	q.Model = charts.BuildQuality(*rep.Quality)
	q.Title.SetText(appwidget.OnScreen(qualityTitle(*rep.Quality, q.Model)))
	objs := []fyne.CanvasObject{}
	for _, t := range []charts.Table{q.Model.Drift, q.Model.Needle, q.Model.Tasks} {
		if len(t.Rows) > 0 {
			objs = append(objs, widget.NewLabelWithStyle(t.Title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), newModelTable(t))
		}
	}
	if len(q.Model.Flipped) > 0 {
		objs = append(objs, note("Flipped against the reference:\n"+strings.Join(q.Model.Flipped, "\n")))
	}
	for _, n := range q.Model.Notes {
		objs = append(objs, note(n))
	}
	q.Tables.Objects = objs
	q.Tables.Refresh()
}

// qualityTitle says what was compared with what, and simulated when it
// was: "Quality drift against the reference (simulated): tiny recorded
// 2026-12-06 10:37 · budget kld=0.01,top1=98%".
func qualityTitle(q engine.QualityReport, m charts.QualityModel) string {
	s := m.Title + ": " + q.Reference.Model + " recorded " + q.Reference.RecordedAt.Format("2006-01-02 15:04")
	if q.Budget != "" {
		s += " · budget " + q.Budget
	}
	return s
}

// note is a wrapped line under the tables.
func note(text string) *widget.Label {
	l := widget.NewLabel(appwidget.OnScreen(text))
	l.Wrapping = fyne.TextWrapWord
	return l
}

// ContainsTab reports whether views holds item.
func ContainsTab(views *container.AppTabs, item *container.TabItem) bool {
	for _, it := range views.Items {
		if it == item {
			return true
		}
	}
	return false
}

// modelTableMaxColumn is the widest a column of a model's table grows:
// a longer cell is cut with an ellipsis (the exports hold it whole).
const modelTableMaxColumn = 320

// newModelTable shows a table of the charts' model: its header, and each
// row's cells, a row over budget (StatusLooped in the model) as a
// warning. Its size is its content's, so that tables stack in a scroll.
func newModelTable(t charts.Table) fyne.CanvasObject {
	widths := make([]float32, len(t.Columns))
	measure := func(col int, text string) {
		w := widget.NewLabel(text).MinSize().Width + 2*theme.Padding() // the cell's own inset
		widths[col] = min(max(widths[col], w), modelTableMaxColumn)
	}
	for i, c := range t.Columns {
		measure(i, c.Title)
	}
	for _, r := range t.Rows {
		for i, c := range r.Cells[:min(len(r.Cells), len(widths))] {
			measure(i, appwidget.OnScreen(c))
		}
	}
	tbl := widget.NewTableWithHeaders(func() (int, int) { return len(t.Rows), len(t.Columns) },
		func() fyne.CanvasObject { l := widget.NewLabel(""); l.Truncation = fyne.TextTruncateEllipsis; return l },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			row := t.Rows[id.Row]
			l.SetText("")
			if id.Col < len(row.Cells) {
				l.SetText(appwidget.OnScreen(row.Cells[id.Col]))
			}
			l.Alignment = fyne.TextAlignLeading
			if t.Columns[id.Col].Right {
				l.Alignment = fyne.TextAlignTrailing
			}
			l.Importance = widget.MediumImportance
			if row.Status != engine.StatusValid {
				l.Importance = widget.WarningImportance
			}
			l.Refresh()
		})
	tbl.ShowHeaderColumn = false
	tbl.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			o.(*widget.Label).SetText(t.Columns[id.Col].Title)
		}
	}
	var total float32
	for i, w := range widths {
		tbl.SetColumnWidth(i, w)
		total += w + 4
	}
	rowH := widget.NewLabel("X").MinSize().Height + 4
	return container.NewGridWrap(fyne.NewSize(total, rowH*float32(len(t.Rows)+1)+4), tbl)
}
