package results

import (
	"fmt"
	"image"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
)

// headlineColumns are the Results screen's table of a sweep's
// configurations (sweep.Headline), as sweep.md heads its own.
var headlineColumns = []string{"Configuration", "Status", "Peak tok/s", "Peak at", "Tok/s, 1 request", "TTFT p50", "KV cache tokens", "Start-up"}

// headlineWidths fit headlineColumns at the default text size.
var headlineWidths = []float32{270, 120, 100, 90, 130, 90, 130, 80}

// resultsSweep is the Results screen's view of a sweep: its summary in the
// place of a run's views, each of its runs a button away.
type resultsSweep struct {
	Shown bool
	dir   string
	s     sweep.Sweep
	Views *container.AppTabs // the summary's, hidden unless shown
	// Back, beside the title of a run of a sweep, shows that sweep's summary.
	Back *widget.Button
}

// withSweepViews is runs (the views of a run) with the sweep's summary in
// their place, shown when a sweep is opened.
func (r *Tab) withSweepViews(runs fyne.CanvasObject) fyne.CanvasObject {
	r.Sweep.Views = container.NewAppTabs()
	r.Sweep.Views.Hide()
	r.Sweep.Back = widget.NewButtonWithIcon("Sweep summary", theme.NavigateBackIcon(), func() {
		r.ShowSweep(filepath.Dir(r.Source))
	})
	r.Sweep.Back.Hide()
	return container.NewStack(runs, r.Sweep.Views)
}

// OpenSweep comes to the front showing the summary of the sweep saved in
// dir (reportViewer).
func (r *Tab) OpenSweep(dir string) { r.ShowSweep(dir) }

// ShowSweep comes to the front showing the summary of the sweep in dir.
func (r *Tab) ShowSweep(dir string) {
	r.u.Show(app.TabResults)
	s, err := sweep.Load(dir)
	if err != nil {
		r.Banner.Show(app.Notice{Message: "This sweep could not be opened.", Action: "Its folder may be from a newer Speed Matrix, or damaged: " + dir + ".", Detail: err.Error()})
		return
	}
	got, _ := sweep.LoadRuns(dir, s)
	if s.Answer == nil { // it stopped before its first summary
		a := sweep.Analyze(s, got)
		s.Answer = &a
	}
	r.Has, r.Source = false, ""
	r.Sweep.Shown, r.Sweep.dir, r.Sweep.s = true, dir, s
	r.setEnabled(false)
	r.Status.SetText("")
	r.Banner.Hide()
	r.ResumeBtn.Hide()
	r.Sweep.Back.Hide()
	r.Title.SetText(sweepTitle(s, got))
	r.Subtitle.SetText(sweepSubtitle(s, got) + "\nSaved in " + dir)
	r.BadgeBox.Objects = []fyne.CanvasObject{sweepBadge(s)}
	r.BadgeBox.Refresh()
	r.Views.Hide()
	r.Load.Views.Hide()
	r.Sweep.Views.SetItems(r.sweepTabs(dir, s, got))
	r.Sweep.Views.SelectIndex(0)
	r.Sweep.Views.Show()
}

// hideSweep puts a run's views back in the sweep summary's place, and
// offers the way back to the sweep of a run of one (source, its folder).
func (r *Tab) hideSweep(source string) {
	r.Sweep.Shown = false
	r.Sweep.Views.Hide()
	appwidget.ShowIf(r.Sweep.Back, app.IsSweepRun(source))
}

// sweepTitle names a sweep by its model on its GPU, from its first run.
func sweepTitle(s sweep.Sweep, got map[string]engine.Report) string {
	for _, c := range s.Configs {
		if rep, ok := got[c.Name]; ok {
			return "Sweep: " + report.ModelOnGPU(rep)
		}
	}
	return "Sweep"
}

// sweepSubtitle says what a sweep varied, what its configurations
// measured (runs, by name: the plan fitted to the servers, as sweep.md
// says it), how long it took and what its estimate assumed.
func sweepSubtitle(s sweep.Sweep, runs map[string]engine.Report) string {
	line := fmt.Sprintf("%s varying %s · the same plan for each: decode %s × %s requests",
		engine.Count(len(s.Configs), "configuration", "configurations"), strings.Join(s.Varied(), ", "),
		sweep.MeasuredContexts(s, runs), engine.FormatCounts(s.Plan.Concurrency))
	if s.Simulated {
		line = "Simulated · " + line
	}
	est := app.FormatAbout(time.Duration(s.EstimateS * float64(time.Second)))
	took := app.FormatDuration(time.Duration(s.ActualS * float64(time.Second)))
	if s.Ended.IsZero() {
		line += fmt.Sprintf(" · not finished (%s so far, estimated %s)", took, est)
	} else {
		line += fmt.Sprintf(" · took %s (estimated %s)", took, est)
	}
	return line + "\nThe estimate assumed " + runner.EstimateBasis(s) + "."
}

// sweepBadge says whether a sweep's figures were simulated or measured,
// and that it did not finish.
func sweepBadge(s sweep.Sweep) fyne.CanvasObject {
	b := appwidget.Badge("Measured", appwidget.MeasuredColor)
	if s.Simulated {
		b = appwidget.Badge("Simulated: the simulator stood in for the server", appwidget.SimulatedColor)
	}
	if s.Ended.IsZero() {
		return container.NewHBox(appwidget.Badge("Not finished", appwidget.PartialColor), b)
	}
	return b
}

// sweepTabs are the summary's views: the answer, the best-configuration
// heatmap and the Pareto chart of every configuration (when charts draw
// them), and the runs.
func (r *Tab) sweepTabs(dir string, s sweep.Sweep, got map[string]engine.Report) []*container.TabItem {
	items := []*container.TabItem{container.NewTabItem("Answer", container.NewVScroll(r.sweepAnswer(s)))}
	if d := r.u.Deps.SweepCharts; d != nil {
		source := "sweep/" + dir + "/" + s.Ended.String() + fmt.Sprint(s.ActualS) + "/"
		r.u.Pictures.Showing(app.PlaceSweep, source) // the last sweep's pictures go
		v := appwidget.NewChartView(r.u, source+"best", func(p charts.Pane, dark bool) (image.Image, error) {
			return d.Best(s, p, dark)
		})
		items = append(items, container.NewTabItem("Best heatmap", v.Object()))
		pareto := appwidget.NewChartView(r.u, source+"pareto", func(p charts.Pane, dark bool) (image.Image, error) {
			return d.Pareto(s, got, p, dark)
		})
		items = append(items, container.NewTabItem("Pareto", pareto.Object()))
	}
	return append(items, container.NewTabItem("Runs", container.NewVScroll(r.sweepRuns(dir, s, got))))
}

// sweepAnswer is the answer of a sweep: its configurations' headline
// figures, then the best configuration per cell, with its notes.
func (r *Tab) sweepAnswer(s sweep.Sweep) fyne.CanvasObject {
	best := widget.NewLabel(appwidget.Sentence(appwidget.SweepBestLine(s)))
	best.TextStyle = fyne.TextStyle{Bold: true}
	best.Wrapping = fyne.TextWrapWord
	a := *s.Answer
	cells := make([][]string, len(a.Headlines))
	for i, h := range a.Headlines {
		name := h.Config
		if sweep.UnmeasuredChange(s.Configs[i]) {
			name += " †"
		}
		status := string(h.Status)
		if reason := s.Configs[i].Reason; reason != "" {
			status += ": " + reason
		}
		cells[i] = []string{name, status, figure(h.PeakTokS, report.TokPerSec), h.PeakCell, figure(h.SingleTokS, report.TokPerSec),
			figure(h.TTFTP50Ms, report.Millis), figure(float64(h.KVCacheTokens), func(v float64) string { return report.Int(int(v)) }),
			figure(h.StartupS, func(v float64) string { return app.FormatDuration(time.Duration(v * float64(time.Second))) })}
	}
	table := appwidget.NewTextTable(headlineColumns, headlineWidths, cells)
	n := len(cells)
	lines := make([]string, len(a.Cells))
	for i, ca := range a.Cells {
		lines[i] = sweep.CellLine(ca)
	}
	perCell := widget.NewLabel(strings.Join(lines, "\n"))
	perCell.Wrapping = fyne.TextWrapWord
	caveat := widget.NewLabel(engine.RerunCaveat)
	caveat.Wrapping = fyne.TextWrapWord
	heading := func(text string) fyne.CanvasObject {
		return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	objs := []fyne.CanvasObject{best, heading("Configurations"), container.New(&appwidget.RowsHeight{Rows: func() int { return n }, Most: 8}, table),
		heading("Best configuration per cell (total tok/s; a margin within " + engine.WindowsNoise + " reads \"no difference\")"), perCell, caveat}
	if notes := sweepNotes(s); notes != "" {
		l := widget.NewLabel(notes)
		l.Wrapping = fyne.TextWrapWord
		objs = append(objs, l)
	}
	return container.NewVBox(objs...)
}

// figure is v formatted, or a dash when the run has none.
func figure(v float64, f func(float64) string) string {
	if v <= 0 {
		return report.Dash
	}
	return f(v)
}

// sweepNotes are the summary's notes: settings that change the model's
// output, cells that went Looped, and that the figures are simulated.
func sweepNotes(s sweep.Sweep) string {
	var notes []string
	if s.Simulated {
		notes = append(notes, "Simulated: every configuration was served by the Speed Matrix simulator standing in for the server; no figure here is a real server's.")
	}
	var changes, quality []string
	for _, c := range s.Configs {
		if sweep.UnmeasuredChange(c) {
			changes = append(changes, fmt.Sprintf("%s (%s)", c.Name, strings.Join(c.ChangesOutput, ", ")))
		}
		if q := sweep.QualityText(c); q != "" {
			quality = append(quality, c.Name+": "+q)
		}
	}
	if len(quality) > 0 && s.Quality != nil {
		notes = append(notes, "Quality against the baseline's output (budget "+s.Quality.Budget+"): "+strings.Join(quality, "; ")+".")
	}
	if len(changes) > 0 {
		notes = append(notes, "† Not the same model output: "+strings.Join(changes, "; ")+" change what the model answers: faster, perhaps, but not the same model quality.")
	}
	if a := s.Answer; a != nil && len(a.Looped) > 0 {
		looped := "Looped cells (the output repeated itself): " + strings.Join(a.Looped, "; ") + "."
		for i, h := range a.Headlines {
			if i >= len(s.Configs) {
				break
			}
			if line := sweep.LoopedText(h, s.Configs[i]); line != "" {
				looped += "\n" + h.Config + ": " + line
			}
		}
		notes = append(notes, looped)
	}
	return strings.Join(notes, "\n\n")
}

// sweepRuns lists a sweep's configurations, each run opening as any run
// opens, with the folder and Resume for a sweep that did not finish.
func (r *Tab) sweepRuns(dir string, s sweep.Sweep, got map[string]engine.Report) fyne.CanvasObject {
	box := container.NewVBox()
	for _, c := range s.Configs {
		runDir := sweep.RunDir(dir, c)
		rep, ok := got[c.Name]
		open := widget.NewButtonWithIcon("Open", theme.FolderOpenIcon(), func() { r.OpenReport(rep, runDir) })
		text := c.Name + " · " + string(c.Status)
		switch {
		case c.Reason != "":
			text += ": " + c.Reason
		case ok:
			text += " · " + appwidget.SweepCellsText(rep)
		}
		if !ok {
			open.Disable()
		}
		l := widget.NewLabel(text)
		l.Truncation = fyne.TextTruncateEllipsis
		box.Add(container.NewBorder(nil, nil, open, nil, l))
	}
	folder := widget.NewButtonWithIcon("Open folder", theme.FolderIcon(), func() { r.u.OpenFolder(dir) })
	actions := container.NewHBox(folder)
	if s.Ended.IsZero() && !r.u.State.Run.Running {
		resume := widget.NewButtonWithIcon("Resume sweep", theme.MediaPlayIcon(), func() { app.ResumeSweep(r.Targets, r.Runs, dir) })
		resume.Importance = widget.HighImportance
		actions.Add(resume)
	}
	box.Add(actions)
	return box
}
