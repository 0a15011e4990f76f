package results

import (
	"fmt"
	"image"
	"io"
	"slices"
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

// Tab shows a finished run: the charts, the All measurements and
// Checks tables, and the exports.
type Tab struct {
	u *app.UI
	// Runs and targets finish a partial run or sweep shown here (connected
	// by newUI).
	Runs    app.RunStarter
	Targets app.TargetSource

	Has    bool
	Report engine.Report
	Source string // "" for the run just finished, else the History folder

	Title, Subtitle *widget.Label
	BadgeBox        *fyne.Container
	Views           *container.AppTabs
	Charts          map[charts.Kind]*fyne.Container // each holds a chart view or a fallback
	Group           *appwidget.ChartGroup           // the chart views of the shown report
	Heat            *appwidget.Heatmap              // fallback when charts can't draw
	HeatMode        *widget.RadioGroup              // the decode heatmap by total tok/s, % of roofline or SLO
	Slo             *resultsSLO                     // the SLO's lines and view (slo.go)
	Table           *appwidget.MeasurementsTable
	Checks          *appwidget.ChecksView
	ExportAllBtn    *widget.Button
	OpenHTML        *widget.Button    // opens the exported report.html (export_html.go)
	HtmlPath        string            // the shown report's report.html; "" for none
	pages           map[string]string // the report.html each run's last export wrote, by runs.Folder
	saveOne         *widget.Button    // opens saveMenu
	copyMD          *widget.Button
	darkExport      *widget.Check // exports with the dark background (on screen the charts follow the app's theme)
	Status          *widget.Label
	Banner          *appwidget.Banner // export problems
	ResumeBtn       *widget.Button    // shown for a partial run saved in History
	Load            resultsLoad       // a load test's views (load.go)
	Quality         *resultsQuality   // the Quality tab (quality.go)
	Sweep           resultsSweep      // a sweep's summary (sweep.go)
	Rendered        chan struct{}     // closed when the charts of the shown report are drawn
	Exported        chan struct{}     // closed when the last export finished (tests wait on it)
	// SaveAs asks where to save one file (saveDialog); tests replace it.
	SaveAs func(name string, ok func(w io.WriteCloser, path string))
}

// New builds the Results screen (empty until a run finishes).
func New(u *app.UI) (*Tab, *container.TabItem) {
	r := &Tab{u: u, Charts: map[charts.Kind]*fyne.Container{}, pages: map[string]string{}, Heat: appwidget.NewHeatmap(""), Table: appwidget.NewMeasurementsTable(), Checks: appwidget.NewChecksView()}
	r.SaveAs = r.saveDialog
	r.Title = widget.NewLabelWithStyle("No results yet", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.Subtitle = widget.NewLabel("Run the matrix (Run screen) or open a saved run (History).")
	r.Subtitle.Wrapping = fyne.TextWrapWord
	r.BadgeBox = container.NewHBox()
	for _, k := range append(slices.Clone(charts.Kinds), charts.KindQuality, charts.KindCost) {
		r.Charts[k] = container.NewStack()
	}
	r.Quality = newResultsQuality(r.Charts[charts.KindQuality])
	r.HeatMode = appwidget.NewHeatMode(r.onHeatMode)
	r.Slo = newResultsSLO(r)
	r.Views = container.NewAppTabs(
		container.NewTabItem("Decode heatmap", container.NewBorder(container.NewVBox(r.HeatMode, r.Slo.top()), nil, nil, nil,
			container.NewStack(r.Charts[charts.KindHeatmap], r.Slo.Heat.Object()))),
		container.NewTabItem("Prefill", r.Charts[charts.KindPrefill]),
		container.NewTabItem("Per request", r.Charts[charts.KindPerRequest]),
		container.NewTabItem("Pareto", r.Charts[charts.KindPareto]),
		container.NewTabItem("All measurements", r.Table.Object()),
		container.NewTabItem("Checks", r.Checks.Object()),
		container.NewTabItem("Report sheet", r.Charts[charts.KindReport]),
		container.NewTabItem("Energy", r.Charts[charts.KindEnergy]),
		container.NewTabItem("Cost", r.Charts[charts.KindCost]),
	)
	r.ExportAllBtn = widget.NewButtonWithIcon("Export all… (Ctrl+E)", theme.DocumentSaveIcon(), r.OnExport)
	r.ExportAllBtn.Importance = widget.HighImportance
	r.OpenHTML = r.newOpenHTMLButton()
	r.saveOne = widget.NewButtonWithIcon("Save one file…", theme.MenuDropUpIcon(), r.OnSaveMenu)
	r.copyMD = widget.NewButtonWithIcon("Copy Markdown", theme.ContentCopyIcon(), r.OnCopyMarkdown)
	r.darkExport = widget.NewCheck("Export with dark background", nil)
	r.Status = widget.NewLabel("")
	r.Status.Importance = widget.LowImportance
	r.Status.Wrapping = fyne.TextWrapWord
	r.setEnabled(false)
	r.Banner = appwidget.NewBanner()
	r.ResumeBtn = widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), func() { r.Runs.ResumeRun(r.Report, r.Source) })
	r.ResumeBtn.Importance = widget.HighImportance
	r.ResumeBtn.Hide()
	u.State.Watch(app.ChangeRun, r.showResume)
	u.State.Watch(app.ChangeTheme, r.followTheme)

	head := appwidget.ScreenHeader("Results", "Charts and every measurement of a run, ready to share.")
	body := r.withSweepViews(r.withLoadViews(r.Views))
	top := container.NewVBox(head, container.NewBorder(nil, nil, nil, container.NewHBox(r.Sweep.Back, r.ResumeBtn, r.BadgeBox), r.Title), r.Subtitle, r.Banner.Object())
	actions := container.NewBorder(nil, nil, container.NewHBox(r.ExportAllBtn, r.OpenHTML, r.saveOne, r.darkExport, r.copyMD), nil, r.Status)
	return r, container.NewTabItemWithIcon(app.TabResults, theme.DocumentIcon(), appwidget.Screen(top, body, actions))
}

func (r *Tab) setEnabled(on bool) {
	for _, w := range []fyne.Disableable{r.ExportAllBtn, r.saveOne, r.copyMD, r.darkExport} {
		if on {
			w.Enable()
		} else {
			w.Disable()
		}
	}
}

// Show displays rep; source names the History folder it came from ("" for a new run).
func (r *Tab) Show(rep engine.Report, source string) {
	r.Has, r.Report, r.Source = true, rep, source
	r.showPage(r.pageOf(rep, source)) // an earlier export is another report's page
	r.hideSweep(source)
	r.Title.SetText(report.ModelOnGPU(rep))
	sub := report.Subtitle(rep)
	if app.IsLoad(rep) {
		sub += "\n" + loadPlanRest(sub, *rep.Load)
	}
	sub = appwidget.OnScreen(sub)
	if imp := rep.Run.Imported; imp != nil {
		sub += "\nMeasured by " + imp.Label() + ", not by Speed Matrix: the Report sheet's Run section says where its method differs from ours."
	}
	if source != "" {
		sub += "\nSaved in " + source
	}
	r.Subtitle.SetText(sub)
	r.BadgeBox.Objects = []fyne.CanvasObject{reportBadge(rep)}
	r.BadgeBox.Refresh()
	r.Table.SetResults(rep.Results)
	r.Checks.Show(rep)
	r.Quality.Show(rep, r.Views)
	r.showLoadViews(rep)
	r.setEnabled(true)
	r.Status.SetText("")
	r.Banner.Hide()
	if n, ok := partialNotice(rep.Run, canResume(rep) && source != "" && !app.IsSweepRun(source)); ok {
		r.Banner.Show(n)
	}
	r.showResume()
	appwidget.OfferModes(r.HeatMode, appwidget.HeatModeOptions(charts.HasRoofline(rep), true))
	r.Slo.Show(rep)
	r.Slo.setView(r.HeatMode.Selected == appwidget.HeatModeSLO, r.Charts[charts.KindHeatmap])
	r.drawCharts(rep)
}

// OpenReport comes to the front showing rep, kept in the History folder
// dir ("" for a run just finished) (reportViewer). It returns a channel closed
// once the charts are drawn.
func (r *Tab) OpenReport(rep engine.Report, dir string) <-chan struct{} {
	r.Show(rep, dir)
	r.u.Show(app.TabResults)
	return r.Rendered
}

// OfferReport shows rep, kept in the History folder dir, if nothing is
// shown yet, staying where it is (reportViewer): the latest saved run at start.
func (r *Tab) OfferReport(rep engine.Report, dir string) {
	if r.Has || r.Sweep.Shown {
		return
	}
	r.Show(rep, dir)
}

// followTheme draws the fallback heatmap and the charts again in the
// theme's variant.
func (r *Tab) followTheme() {
	r.Heat.Redraw()
	if r.Has {
		r.drawCharts(r.Report)
	}
}

// showResume offers Resume for a partial run kept in History, while no
// other run is going on.
func (r *Tab) showResume() {
	if r.Has && !r.Report.Run.Complete && r.Source != "" && !r.u.State.Run.Running && canResume(r.Report) && !app.IsSweepRun(r.Source) {
		r.ResumeBtn.Show()
	} else {
		r.ResumeBtn.Hide()
	}
}

// canResume reports whether a report is one of our runs that the engine
// can finish: an imported one has no plan to resume.
func canResume(rep engine.Report) bool {
	return len(rep.Plan.DecodeContexts)+len(rep.Plan.PrefillContexts) > 0
}

// partialNotice tells that a run is partial, in plain words, with the
// engine's reason as the detail; resumable adds what Resume does.
func partialNotice(run engine.RunInfo, resumable bool) (app.Notice, bool) {
	if run.Complete || run.Incomplete == "" {
		return app.Notice{}, false
	}
	what, _, _ := strings.Cut(run.Incomplete, ":")
	n := app.Notice{Message: "This run is partial: " + what + ".", Detail: run.Incomplete}
	if resumable {
		n.Action = "Resume measures the cells it did not finish and keeps the rest; start the server first if it stopped."
	}
	return n, true
}

// reportBadge says whether the figures were measured, simulated, or
// imported from another tool.
func reportBadge(rep engine.Report) fyne.CanvasObject {
	if imp := rep.Run.Imported; imp != nil {
		return appwidget.Badge("Imported · "+imp.Label(), appwidget.ImportedColor)
	}
	if rep.Server.Simulated {
		return appwidget.Badge(rep.Server.SimulatedLabel(), appwidget.SimulatedColor)
	}
	return appwidget.Badge("Measured", appwidget.MeasuredColor)
}

// drawCharts shows a view of every chart of rep. The views draw for the
// area the charts had last (a guess the first time), in the background,
// and again for the area they get, each picture kept (pictureCache).
func (r *Tab) drawCharts(rep engine.Report) {
	if app.IsLoad(rep) {
		r.drawLoadCharts(rep)
		return
	}
	kinds := charts.Kinds
	if rep.Quality != nil {
		kinds = append(slices.Clone(kinds), charts.KindQuality)
	}
	if rep.Run.Prices.Any() {
		kinds = append(slices.Clone(kinds), charts.KindCost)
	} else {
		r.Charts[charts.KindCost].Objects = []fyne.CanvasObject{noPrices()}
		r.Charts[charts.KindCost].Refresh()
	}
	r.drawViews(rep, kinds, func(k charts.Kind, id string, g *appwidget.ChartGroup) {
		ch := r.u.Deps.Charts
		drawn := k
		if k == charts.KindHeatmap && !r.HeatMode.Hidden && r.HeatMode.Selected == appwidget.HeatModeRoofline {
			drawn = charts.KindRoofline
		}
		v := appwidget.NewChartView(r.u, id+"/"+string(drawn), func(p charts.Pane, dark bool) (image.Image, error) {
			return ch.Picture(drawn, rep, p, dark)
		})
		v.OnFail = func(err error) { r.showFallback(k, err, rep) }
		g.Add(v)
		r.Charts[k].Objects = []fyne.CanvasObject{v.Object()}
		r.Charts[k].Refresh()
	})
}

// drawViews has view make a view of each of kinds (given the report's key),
// add it to a new chart group and place it, then draws them for the area
// the charts had last, or a guess the first time.
func (r *Tab) drawViews(rep engine.Report, kinds []charts.Kind, view func(k charts.Kind, id string, g *appwidget.ChartGroup)) {
	last := charts.Pane{}
	if r.Group != nil {
		last = r.Group.Pane
		r.Group.Release() // its views are replaced, or hidden with the other kind's panes
	}
	g := appwidget.NewChartGroup(len(kinds))
	r.Group, r.Rendered = g, g.Done
	id := app.ReportKey(rep)
	r.u.Pictures.Showing(app.PlaceResults, id+"/") // the last report's pictures go
	for _, k := range kinds {
		view(k, id, g)
	}
	if last.Width == 0 {
		last = r.paneGuess()
	}
	g.DrawFor(last)
}

// paneGuess is about the area of the Results charts in the window as it is
// now, before they were ever laid out.
func (r *Tab) paneGuess() charts.Pane {
	s := r.u.Win.Canvas().Size()
	scale := r.u.Win.Canvas().Scale()
	if scale <= 0 {
		scale = 1
	}
	return charts.Pane{Width: float64(max(s.Width-resultsChrome.Width, appwidget.ChartMinSize.Width)),
		Height: float64(max(s.Height-resultsChrome.Height, appwidget.ChartMinSize.Height)), Scale: float64(scale)}
}

// resultsChrome is how much of the window the sidebar and the Results
// screen's header, tabs and buttons take around the charts (measured at
// 1024×700, 1280×800 and 1920×1080).
var resultsChrome = fyne.NewSize(97, 255)

// showFallback replaces a chart that could not be drawn: the decode
// heatmap by the live one, another chart by a notice saying why.
func (r *Tab) showFallback(k charts.Kind, err error, rep engine.Report) {
	var obj fyne.CanvasObject
	if k == charts.KindHeatmap {
		r.Heat.SetAxes(nil, nil)
		contexts, conc := appwidget.DecodeAxes(rep.Results)
		r.Heat.SetAxes(contexts, conc)
		r.Heat.SetSLO(rep.Plan.SLO)
		for _, res := range rep.Results {
			r.Heat.SetResult(res)
		}
		r.Heat.Redraw()
		obj = r.Heat.Object()
	} else {
		b := appwidget.NewBanner()
		b.Show(app.Notice{Message: fmt.Sprintf("The %s chart could not be drawn.", chartTitle(k)),
			Action: "Its figures are in All measurements, and Export all writes every file.", Detail: err.Error()})
		obj = container.NewVBox(b.Object())
	}
	r.Charts[k].Objects = []fyne.CanvasObject{obj}
	r.Charts[k].Refresh()
}

// noPrices is the Cost view of a run without prices: no cost is guessed.
func noPrices() fyne.CanvasObject {
	l := widget.NewLabel("This run has no prices, so no cost is shown. Give the GPU box's rent or the electricity price on the Settings screen before a run, " +
		"or price a saved run with speedmatrix report --in RUN --price-per-hour 2.50 --price-per-kwh 0.30.")
	l.Wrapping = fyne.TextWrapWord
	return l
}

// chartTitle is how the Results tabs name a chart.
func chartTitle(k charts.Kind) string {
	switch k {
	case charts.KindPrefill:
		return "Prefill"
	case charts.KindPerRequest:
		return "Per request"
	case charts.KindPareto:
		return "Pareto"
	case charts.KindEnergy:
		return "Energy"
	case charts.KindCost:
		return "Cost"
	case charts.KindReport:
		return "report sheet"
	case charts.KindQuality:
		return "quality drift"
	}
	return "decode heatmap"
}

// OnCopyMarkdown puts the report's Markdown on the clipboard.
func (r *Tab) OnCopyMarkdown() {
	if !r.Has {
		return
	}
	r.u.App.Clipboard().SetContent(report.Markdown(r.Report))
	r.Status.SetText("Markdown copied to the clipboard.")
}

// IsRendered reports whether the charts of the shown report are drawn.
func (r *Tab) IsRendered() bool { return appwidget.IsClosed(r.Rendered) }
