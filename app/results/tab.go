package shell

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

// resultsTab shows a finished run: the charts, the All measurements and
// Checks tables, and the exports.
type resultsTab struct {
	u *app.UI
	// runs and targets finish a partial run or sweep shown here (connected
	// by newUI).
	runs    runStarter
	targets targetSource

	has    bool
	report engine.Report
	source string // "" for the run just finished, else the History folder

	title, subtitle *widget.Label
	badgeBox        *fyne.Container
	views           *container.AppTabs
	charts          map[charts.Kind]*fyne.Container // each holds a chart view or a fallback
	group           *appwidget.ChartGroup           // the chart views of the shown report
	heat            *appwidget.Heatmap              // fallback when charts can't draw
	heatMode        *widget.RadioGroup              // the decode heatmap by total tok/s, % of roofline or SLO
	slo             *resultsSLO                     // the SLO's lines and view (results_slo.go)
	table           *appwidget.MeasurementsTable
	checks          *checksView
	exportAllBtn    *widget.Button
	openHTML        *widget.Button    // opens the exported report.html (export_html.go)
	htmlPath        string            // the shown report's report.html; "" for none
	pages           map[string]string // the report.html each run's last export wrote, by runs.Folder
	saveOne         *widget.Button    // opens saveMenu
	copyMD          *widget.Button
	darkExport      *widget.Check // exports with the dark background (on screen the charts follow the app's theme)
	status          *widget.Label
	banner          *appwidget.Banner // export problems
	resumeBtn       *widget.Button    // shown for a partial run saved in History
	load            resultsLoad       // a load test's views (results_load.go)
	quality         *resultsQuality   // the Quality tab (results_quality.go)
	sweep           resultsSweep      // a sweep's summary (results_sweep.go)
	rendered        chan struct{}     // closed when the charts of the shown report are drawn
	exported        chan struct{}     // closed when the last export finished (tests wait on it)
	// saveAs asks where to save one file (saveDialog); tests replace it.
	saveAs func(name string, ok func(w io.WriteCloser, path string))
}

// newResultsTab builds the Results screen (empty until a run finishes).
func newResultsTab(u *app.UI) (*resultsTab, *container.TabItem) {
	r := &resultsTab{u: u, charts: map[charts.Kind]*fyne.Container{}, pages: map[string]string{}, heat: appwidget.NewHeatmap(""), table: appwidget.NewMeasurementsTable(), checks: newChecksView()}
	r.saveAs = r.saveDialog
	r.title = widget.NewLabelWithStyle("No results yet", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.subtitle = widget.NewLabel("Run the matrix (Run screen) or open a saved run (History).")
	r.subtitle.Wrapping = fyne.TextWrapWord
	r.badgeBox = container.NewHBox()
	for _, k := range append(slices.Clone(charts.Kinds), charts.KindQuality) {
		r.charts[k] = container.NewStack()
	}
	r.quality = newResultsQuality(r.charts[charts.KindQuality])
	r.heatMode = appwidget.NewHeatMode(r.onHeatMode)
	r.slo = newResultsSLO(r)
	r.views = container.NewAppTabs(
		container.NewTabItem("Decode heatmap", container.NewBorder(container.NewVBox(r.heatMode, r.slo.top()), nil, nil, nil,
			container.NewStack(r.charts[charts.KindHeatmap], r.slo.heat.Object()))),
		container.NewTabItem("Prefill", r.charts[charts.KindPrefill]),
		container.NewTabItem("Per request", r.charts[charts.KindPerRequest]),
		container.NewTabItem("All measurements", r.table.Object()),
		container.NewTabItem("Checks", r.checks.Object()),
		container.NewTabItem("Report sheet", r.charts[charts.KindReport]),
	)
	r.exportAllBtn = widget.NewButtonWithIcon("Export all… (Ctrl+E)", theme.DocumentSaveIcon(), r.onExport)
	r.exportAllBtn.Importance = widget.HighImportance
	r.openHTML = r.newOpenHTMLButton()
	r.saveOne = widget.NewButtonWithIcon("Save one file…", theme.MenuDropUpIcon(), r.onSaveMenu)
	r.copyMD = widget.NewButtonWithIcon("Copy Markdown", theme.ContentCopyIcon(), r.onCopyMarkdown)
	r.darkExport = widget.NewCheck("Export with dark background", nil)
	r.status = widget.NewLabel("")
	r.status.Importance = widget.LowImportance
	r.status.Wrapping = fyne.TextWrapWord
	r.setEnabled(false)
	r.banner = appwidget.NewBanner()
	r.resumeBtn = widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), func() { r.runs.resumeRun(r.report, r.source) })
	r.resumeBtn.Importance = widget.HighImportance
	r.resumeBtn.Hide()
	u.State.Watch(app.ChangeRun, r.showResume)
	u.State.Watch(app.ChangeTheme, r.followTheme)

	head := appwidget.ScreenHeader("Results", "Charts and every measurement of a run, ready to share.")
	body := r.withSweepViews(r.withLoadViews(r.views))
	top := container.NewVBox(head, container.NewBorder(nil, nil, nil, container.NewHBox(r.sweep.back, r.resumeBtn, r.badgeBox), r.title), r.subtitle, r.banner.Object())
	actions := container.NewBorder(nil, nil, container.NewHBox(r.exportAllBtn, r.openHTML, r.saveOne, r.darkExport, r.copyMD), nil, r.status)
	return r, container.NewTabItemWithIcon(app.TabResults, theme.DocumentIcon(), appwidget.Screen(top, body, actions))
}

func (r *resultsTab) setEnabled(on bool) {
	for _, w := range []fyne.Disableable{r.exportAllBtn, r.saveOne, r.copyMD, r.darkExport} {
		if on {
			w.Enable()
		} else {
			w.Disable()
		}
	}
}

// Show displays rep; source names the History folder it came from ("" for a new run).
func (r *resultsTab) Show(rep engine.Report, source string) {
	r.has, r.report, r.source = true, rep, source
	r.showPage(r.pageOf(rep, source)) // an earlier export is another report's page
	r.hideSweep(source)
	r.title.SetText(report.ModelOnGPU(rep))
	sub := report.Subtitle(rep)
	if app.IsLoad(rep) {
		sub += "\n" + loadPlanRest(sub, rep.Load.Plan)
	}
	sub = appwidget.OnScreen(sub)
	if imp := rep.Run.Imported; imp != nil {
		sub += "\nMeasured by " + imp.Label() + ", not by Speed Matrix: the Report sheet's Run section says where its method differs from ours."
	}
	if source != "" {
		sub += "\nSaved in " + source
	}
	r.subtitle.SetText(sub)
	r.badgeBox.Objects = []fyne.CanvasObject{reportBadge(rep)}
	r.badgeBox.Refresh()
	r.table.SetResults(rep.Results)
	r.checks.Show(rep)
	r.quality.Show(rep, r.views)
	r.showLoadViews(rep)
	r.setEnabled(true)
	r.status.SetText("")
	r.banner.Hide()
	if n, ok := partialNotice(rep.Run, canResume(rep) && source != "" && !isSweepRun(source)); ok {
		r.banner.Show(n)
	}
	r.showResume()
	appwidget.OfferModes(r.heatMode, appwidget.HeatModeOptions(charts.HasRoofline(rep), true))
	r.slo.Show(rep)
	r.slo.setView(r.heatMode.Selected == appwidget.HeatModeSLO, r.charts[charts.KindHeatmap])
	r.drawCharts(rep)
}

// openReport comes to the front showing rep, kept in the History folder
// dir ("" for a run just finished) (reportViewer). It returns a channel closed
// once the charts are drawn.
func (r *resultsTab) openReport(rep engine.Report, dir string) <-chan struct{} {
	r.Show(rep, dir)
	r.u.Show(app.TabResults)
	return r.rendered
}

// offerReport shows rep, kept in the History folder dir, if nothing is
// shown yet, staying where it is (reportViewer): the latest saved run at start.
func (r *resultsTab) offerReport(rep engine.Report, dir string) {
	if r.has || r.sweep.shown {
		return
	}
	r.Show(rep, dir)
}

// followTheme draws the fallback heatmap and the charts again in the
// theme's variant.
func (r *resultsTab) followTheme() {
	r.heat.Redraw()
	if r.has {
		r.drawCharts(r.report)
	}
}

// showResume offers Resume for a partial run kept in History, while no
// other run is going on.
func (r *resultsTab) showResume() {
	if r.has && !r.report.Run.Complete && r.source != "" && !r.u.State.Run.Running && canResume(r.report) && !isSweepRun(r.source) {
		r.resumeBtn.Show()
	} else {
		r.resumeBtn.Hide()
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
		return appwidget.Badge("Imported · "+imp.Label(), importedColor)
	}
	if rep.Engine.Simulated {
		return appwidget.Badge(rep.Engine.SimulatedLabel(), appwidget.SimulatedColor)
	}
	return appwidget.Badge("Measured", appwidget.MeasuredColor)
}

// drawCharts shows a view of every chart of rep. The views draw for the
// area the charts had last (a guess the first time), in the background,
// and again for the area they get, each picture kept (pictureCache).
func (r *resultsTab) drawCharts(rep engine.Report) {
	if app.IsLoad(rep) {
		r.drawLoadCharts(rep)
		return
	}
	kinds := charts.Kinds
	if rep.Quality != nil {
		kinds = append(slices.Clone(kinds), charts.KindQuality)
	}
	r.drawViews(rep, kinds, func(k charts.Kind, id string, g *appwidget.ChartGroup) {
		ch := r.u.Deps.Charts
		drawn := k
		if k == charts.KindHeatmap && !r.heatMode.Hidden && r.heatMode.Selected == appwidget.HeatModeRoofline {
			drawn = charts.KindRoofline
		}
		v := appwidget.NewChartView(r.u, id+"/"+string(drawn), func(p charts.Pane, dark bool) (image.Image, error) {
			return ch.Picture(drawn, rep, p, dark)
		})
		v.OnFail = func(err error) { r.showFallback(k, err, rep) }
		g.Add(v)
		r.charts[k].Objects = []fyne.CanvasObject{v.Object()}
		r.charts[k].Refresh()
	})
}

// drawViews has view make a view of each of kinds (given the report's key),
// add it to a new chart group and place it, then draws them for the area
// the charts had last, or a guess the first time.
func (r *resultsTab) drawViews(rep engine.Report, kinds []charts.Kind, view func(k charts.Kind, id string, g *appwidget.ChartGroup)) {
	last := charts.Pane{}
	if r.group != nil {
		last = r.group.Pane
		r.group.Release() // its views are replaced, or hidden with the other kind's panes
	}
	g := appwidget.NewChartGroup(len(kinds))
	r.group, r.rendered = g, g.Done
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
func (r *resultsTab) paneGuess() charts.Pane {
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
func (r *resultsTab) showFallback(k charts.Kind, err error, rep engine.Report) {
	var obj fyne.CanvasObject
	if k == charts.KindHeatmap {
		r.heat.SetAxes(nil, nil)
		contexts, conc := decodeAxes(rep.Results)
		r.heat.SetAxes(contexts, conc)
		r.heat.SetSLO(rep.Plan.SLO)
		for _, res := range rep.Results {
			r.heat.SetResult(res)
		}
		r.heat.Redraw()
		obj = r.heat.Object()
	} else {
		b := appwidget.NewBanner()
		b.Show(app.Notice{Message: fmt.Sprintf("The %s chart could not be drawn.", chartTitle(k)),
			Action: "Its figures are in All measurements, and Export all writes every file.", Detail: err.Error()})
		obj = container.NewVBox(b.Object())
	}
	r.charts[k].Objects = []fyne.CanvasObject{obj}
	r.charts[k].Refresh()
}

// chartTitle is how the Results tabs name a chart.
func chartTitle(k charts.Kind) string {
	switch k {
	case charts.KindPrefill:
		return "Prefill"
	case charts.KindPerRequest:
		return "Per request"
	case charts.KindReport:
		return "report sheet"
	case charts.KindQuality:
		return "quality drift"
	}
	return "decode heatmap"
}

// onCopyMarkdown puts the report's Markdown on the clipboard.
func (r *resultsTab) onCopyMarkdown() {
	if !r.has {
		return
	}
	r.u.App.Clipboard().SetContent(report.Markdown(r.report))
	r.status.SetText("Markdown copied to the clipboard.")
}

// isRendered reports whether the charts of the shown report are drawn.
func (r *resultsTab) isRendered() bool { return isClosed(r.rendered) }
