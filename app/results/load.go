package results

import (
	"fmt"
	"image"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// resultsLoad is the Results screen's view of a load test: its two curves
// and its table of rates, shown instead of the matrix's views.
type resultsLoad struct {
	Views  *container.AppTabs
	Charts map[charts.Kind]*fyne.Container
	Table  *appwidget.LoadTable
	// Cache is the prefix cache and reasoning per rate, with a trace's
	// line above it (CacheText): report.md's tables.
	Cache     *fyne.Container
	CacheText *widget.Label
	CacheRows [][]string
	// TurnRows are a conversation replay's TTFT by turn, shown under the
	// cache's table (report.TurnRows).
	TurnRows [][]string
}

// withLoadViews is matrix (the matrix's views) with the load test's
// views in its place, shown when the report is a load test.
func (r *Tab) withLoadViews(matrix fyne.CanvasObject) fyne.CanvasObject {
	l := &r.Load
	l.Charts = map[charts.Kind]*fyne.Container{}
	for _, k := range charts.LoadKinds {
		l.Charts[k] = container.NewStack()
	}
	l.Table = appwidget.NewLoadTable(report.LoadColumns)
	l.CacheText = widget.NewLabel("")
	l.CacheText.Wrapping = fyne.TextWrapWord
	l.Cache = container.NewStack()
	l.Views = container.NewAppTabs(
		container.NewTabItem("Latency", l.Charts[charts.KindLoadLatency]),
		container.NewTabItem("Goodput", l.Charts[charts.KindLoadGoodput]),
		container.NewTabItem("Pareto", l.Charts[charts.KindPareto]),
		container.NewTabItem("Per rate", l.Table.Object()),
		container.NewTabItem("Cache and turns", container.NewBorder(l.CacheText, nil, nil, nil, l.Cache)),
		container.NewTabItem("Report sheet", l.Charts[charts.KindReport]),
	)
	l.Views.Hide()
	return container.NewStack(matrix, l.Views)
}

// showLoadViews shows the load test's views for a load test's report, the
// matrix's for any other. The hidden kind's charts are let go: they showed
// an earlier report, and hidden they held its pictures (15–25 MB) for as
// long as the app ran.
func (r *Tab) showLoadViews(rep engine.Report) {
	on := app.IsLoad(rep)
	appwidget.ShowIf(r.Load.Views, on)
	appwidget.ShowIf(r.Views, !on)
	if on {
		r.Load.Table.SetResults(rep.Load.Results)
		emptyPanes(r.Charts)
	} else {
		r.Load.Table.SetResults(nil)
		emptyPanes(r.Load.Charts)
	}
	r.showCache(rep)
}

// showCache fills the Prefix cache view: what a trace's ids imply, and
// per rate the server's hit rate beside it and the reasoning split.
func (r *Tab) showCache(rep engine.Report) {
	l := &r.Load
	l.CacheRows, l.TurnRows, l.Cache.Objects = nil, nil, nil
	text := "The server's prefix cache per rate, from its own counters, and the reasoning split where the replies streamed their thought."
	if app.IsLoad(rep) {
		l.CacheRows = report.CacheReasoningRows(rep)
		for _, line := range []string{report.TraceLine(rep.Load.Trace), report.ConversationLine(rep.Load.Conversations)} {
			if line != "" {
				text = line + "."
			}
		}
		for _, res := range rep.Load.Results {
			l.TurnRows = append(l.TurnRows, report.TurnRows(res)...)
		}
	}
	var cache fyne.CanvasObject = widget.NewLabel("No prefix-cache figures: the server gave no prefix-cache counters.")
	if len(l.CacheRows) > 0 {
		cache = appwidget.NewTextTable(report.CacheReasoningColumns, columnWidths(report.CacheReasoningColumns), l.CacheRows)
	}
	l.Cache.Objects = []fyne.CanvasObject{cache}
	if len(l.TurnRows) > 0 {
		heading := widget.NewLabelWithStyle("TTFT by turn: each turn sent with the history before it; as the prefix cache holds it, TTFT grows less than the prompt.",
			fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		heading.Wrapping = fyne.TextWrapWord
		turns := container.NewBorder(heading, nil, nil, nil, appwidget.NewTextTable(report.TurnColumns, columnWidths(report.TurnColumns), l.TurnRows))
		split := container.NewVSplit(cache, turns)
		split.Offset = 0.35
		l.Cache.Objects = []fyne.CanvasObject{split}
	}
	l.CacheText.SetText(text)
	l.Cache.Refresh()
}

// columnWidths are a text table's widths: each its heading's, bold at the
// default text size, and at least a figure's; the first column, which
// names the row, wider.
func columnWidths(columns []string) []float32 {
	w := make([]float32, len(columns))
	for i, c := range columns {
		w[i] = max(110, fyne.MeasureText(c, theme.TextSize(), fyne.TextStyle{Bold: true}).Width+2*theme.Padding()+8)
	}
	w[0] = max(w[0], 180)
	return w
}

// emptyPanes takes the charts out of panes.
func emptyPanes(panes map[charts.Kind]*fyne.Container) {
	for _, c := range panes {
		c.Objects = nil
		c.Refresh()
	}
}

// drawLoadCharts shows a view of each curve of a load test, drawn as
// drawCharts draws the matrix's.
func (r *Tab) drawLoadCharts(rep engine.Report) {
	r.drawViews(rep, charts.LoadKinds, func(k charts.Kind, id string, g *appwidget.ChartGroup) {
		ch := r.u.Deps.Charts
		v := appwidget.NewChartView(r.u, id+"/"+string(k), func(p charts.Pane, dark bool) (image.Image, error) {
			return safePicture(func() (image.Image, error) { return ch.Picture(k, rep, p, dark) })
		})
		v.OnFail = func(err error) { r.showLoadFallback(k, err) }
		g.Add(v)
		r.Load.Charts[k].Objects = []fyne.CanvasObject{v.Object()}
		r.Load.Charts[k].Refresh()
	})
}

// safePicture draws, turning a panic of the drawing into its error: a
// chart that cannot draw a report leaves its pane saying why, and the app
// running.
func safePicture(draw func() (image.Image, error)) (img image.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, fmt.Errorf("the chart failed: %v", p)
		}
	}()
	return draw()
}

// showLoadFallback says in the pane of a curve why it could not be drawn.
func (r *Tab) showLoadFallback(k charts.Kind, err error) {
	b := appwidget.NewBanner()
	b.Show(app.Notice{Message: fmt.Sprintf("The %s chart could not be drawn.", loadChartTitle(k)),
		Action: "Its figures are in Per rate.", Detail: err.Error()})
	r.Load.Charts[k].Objects = []fyne.CanvasObject{container.NewVBox(b.Object())}
	r.Load.Charts[k].Refresh()
}

// loadChartTitle is how a load test's chart is named in words.
func loadChartTitle(k charts.Kind) string {
	switch k {
	case charts.KindLoadGoodput:
		return "goodput"
	case charts.KindPareto:
		return "Pareto"
	case charts.KindReport:
		return "report sheet"
	}
	return "latency"
}

// loadPlanRest is what report.LoadPlanLine says of l's plan that the line
// above it, said, does not: the seed, lengths, API and SLO. A part that
// adds words in brackets to one said ("Poisson arrivals (seed 0)") gives
// just those words.
func loadPlanRest(said string, l engine.LoadSection) string {
	var rest []string
	for _, part := range strings.Split(report.LoadPlanLine(l), " · ") {
		if head, more, ok := strings.Cut(part, " ("); ok && strings.Contains(said, head) {
			part = strings.TrimSuffix(more, ")")
		}
		if !strings.Contains(said, part) {
			rest = append(rest, part)
		}
	}
	return strings.Join(rest, " · ")
}
