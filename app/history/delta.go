package history

import (
	"fmt"
	"image"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
)

// DeltaText is the % change of total tok/s of one decode cell from base to
// other, or why there is none ("—" when either cell was not measured).
func DeltaText(base, other engine.Result, okBase, okOther bool) string {
	switch {
	case !okBase || !okOther:
		return "—"
	case !base.Measured() || !other.Measured():
		return fmt.Sprintf("%s → %s", shortStatus(base, okBase), shortStatus(other, okOther))
	case base.TotalTokPerSec == 0:
		return "—"
	}
	p := (other.TotalTokPerSec/base.TotalTokPerSec - 1) * 100
	return fmt.Sprintf("%+.1f %%", p)
}

func shortStatus(r engine.Result, ok bool) string {
	if !ok {
		return "—"
	}
	if r.Measured() {
		return "Valid"
	}
	return string(r.Status)
}

// newDeltaView is the comparison of two runs drawn for its pane (the
// charts' delta heatmap), or, when that cannot be drawn, deltaGrid in its
// place in box.
func newDeltaView(u *app.UI, base, other engine.Report, box *fyne.Container) fyne.CanvasObject {
	source := "delta/" + app.ReportKey(base) + "/" + app.ReportKey(other)
	u.Pictures.Showing(app.PlaceCompare, source) // the last comparison's picture goes
	v := appwidget.NewChartView(u, source, func(p charts.Pane, dark bool) (image.Image, error) {
		return u.Deps.Charts.Delta(base, other, p, dark)
	})
	v.OnFail = func(error) {
		box.Objects = []fyne.CanvasObject{deltaGrid(base, other)}
		box.Refresh()
	}
	// Start drawing for the area the comparison had (or about the History
	// pane's): the view corrects it when laid out.
	size := box.Size()
	if size.Width < appwidget.ChartMinSize.Width || size.Height < appwidget.ChartMinSize.Height {
		win := u.Win.Canvas().Size()
		size = fyne.NewSize(max(appwidget.ChartMinSize.Width, win.Width*0.59), max(appwidget.ChartMinSize.Height, win.Height-333))
	}
	v.Ask(v.PaneFor(size))
	return v.Object()
}

// deltaGrid is a table of deltaText for every decode cell of either run,
// shown when charts cannot draw the delta heatmap.
func deltaGrid(base, other engine.Report) fyne.CanvasObject {
	index := func(rs []engine.Result) map[[2]int]engine.Result {
		m := map[[2]int]engine.Result{}
		for _, r := range rs {
			if r.Phase == engine.PhaseDecode {
				m[[2]int{r.ContextTokens, r.Concurrency}] = r
			}
		}
		return m
	}
	b, o := index(base.Results), index(other.Results)
	contexts, conc := appwidget.DecodeAxes(append(append([]engine.Result{}, base.Results...), other.Results...))
	grid := container.NewGridWithColumns(len(conc) + 1)
	grid.Add(widget.NewLabelWithStyle("Context", fyne.TextAlignCenter, fyne.TextStyle{Bold: true}))
	for _, c := range conc {
		grid.Add(widget.NewLabelWithStyle(strconv.Itoa(c), fyne.TextAlignCenter, fyne.TextStyle{Bold: true}))
	}
	for _, ctx := range contexts {
		grid.Add(widget.NewLabelWithStyle(engine.ContextLabel(ctx), fyne.TextAlignCenter, fyne.TextStyle{Bold: true}))
		for _, c := range conc {
			k := [2]int{ctx, c}
			rb, okB := b[k]
			ro, okO := o[k]
			grid.Add(widget.NewLabelWithStyle(DeltaText(rb, ro, okB, okO), fyne.TextAlignCenter, fyne.TextStyle{}))
		}
	}
	return container.NewVScroll(grid)
}
