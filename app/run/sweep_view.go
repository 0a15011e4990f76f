package run

import (
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
)

// sweepRowsShown is how many configurations the Run screen lists before
// the list scrolls (to the one that runs): the heatmap under it keeps the
// rest of the height.
const sweepRowsShown = 3

// sweepColumns are the Run screen's list of configurations.
var sweepColumns = []string{"Configuration", "Status", "Start-up", "Cells"}

// sweepWidths fit sweepColumns in the Run screen's left side at 1,024 px;
// the names take what the others leave (sweepLayout).
var sweepWidths = []float32{230, 125, 75, 105}

// sweepView is the Run screen's part of a sweep: which configuration runs
// (line, over the progress bar) and every configuration's progress (list,
// over the heatmap). It is hidden outside a sweep and after a run.
type sweepView struct {
	Line      *widget.Label
	list      fyne.CanvasObject // the table, laid out by sweepLayout
	table     *widget.Table
	Rows      [][]string
	nameWidth float32 // the names' column, as wide as the others leave
}

func newSweepView() *sweepView {
	v := &sweepView{Line: widget.NewLabel("")}
	v.Line.TextStyle = fyne.TextStyle{Bold: true}
	v.Line.Truncation = fyne.TextTruncateEllipsis
	v.Line.Hide()
	v.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(v.Rows), len(sweepColumns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			if id.Row < len(v.Rows) {
				o.(*widget.Label).SetText(v.Rows[id.Row][id.Col])
			}
		})
	v.table.ShowHeaderColumn = false
	v.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			l := o.(*widget.Label)
			l.TextStyle = fyne.TextStyle{Bold: true}
			l.SetText(sweepColumns[id.Col])
		}
	}
	for i, w := range sweepWidths {
		v.table.SetColumnWidth(i, w)
	}
	v.list = container.New(&sweepLayout{v: v, RowsHeight: appwidget.RowsHeight{Rows: func() int { return len(v.Rows) }, Most: sweepRowsShown}}, v.table)
	v.list.Hide()
	return v
}

// sweepLayout lays the list of configurations out as a table of at most
// sweepRowsShown rows, its names' column as wide as the others leave.
type sweepLayout struct {
	v *sweepView
	appwidget.RowsHeight
}

// Layout widens the names' column to the width the others leave.
func (l *sweepLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	rest := theme.ScrollBarSize() + 2*theme.Padding()
	for _, w := range sweepWidths[1:] {
		rest += w + theme.Padding()
	}
	if w := max(sweepWidths[0], size.Width-rest); w != l.v.nameWidth {
		l.v.nameWidth = w
		l.v.table.SetColumnWidth(0, w)
	}
	l.RowsHeight.Layout(objects, size)
}

// setRows lists the configurations of a sweep with what each measured,
// scrolled to the one that runs.
func (v *sweepView) setRows(sr *sweepRun, now time.Time, startedAt time.Time) {
	v.Rows = v.Rows[:0]
	for i, c := range sr.configs {
		start := ""
		switch {
		case c.Status == sweep.StatusStarting && !startedAt.IsZero():
			start = app.FormatDuration(now.Sub(startedAt))
		case c.StartupS > 0:
			start = app.FormatDuration(time.Duration(c.StartupS * float64(time.Second)))
		}
		v.Rows = append(v.Rows, []string{c.Name, string(c.Status), start, sr.Cells[i]})
	}
	v.table.Refresh()
	if sr.current < len(v.Rows) {
		v.table.ScrollTo(widget.TableCellID{Row: sr.current, Col: 0})
	}
}

// showSweepBegun shows a sweep that starts (or resumes): its
// configurations, the first still to run, and where it is saved.
func (r *Tab) showSweepBegun(s sweep.Sweep) {
	sr := r.Sweep
	sr.configs = s.Configs
	r.Banner.Hide()
	r.hideLoad()
	r.StartBtn.Disable()
	r.CancelBtn.SetText("Stop sweep (Esc)")
	r.CancelBtn.Enable()
	r.TargetLine.SetText("Target: the Launch form's server, " + engine.Count(len(s.Configs), "configuration", "configurations") + " in turn")
	r.Log.Clear()
	verb := "sweep started"
	if !s.Started.IsZero() {
		verb = "resuming the sweep of " + s.Started.Local().Format("2006-01-02 15:04")
	}
	r.Log.Add(fmt.Sprintf("%s  %s: %s into %s (estimated %s, start-ups included)", r.u.Deps.Now().Format("15:04:05"), verb,
		engine.Count(len(s.Configs), "configuration", "configurations"), sr.Dir, app.FormatAbout(runner.Estimate(s))))
	r.Log.Flush()
	v := r.SweepView
	v.list.Show()
	v.Line.Show()
	for i, c := range s.Configs {
		if c.Status != sweep.StatusDone {
			sr.current = i
			break
		}
	}
	r.showSweepLine(sr)
	v.setRows(sr, r.u.Deps.Now(), time.Time{})
}

// showSweepLine says which configuration runs: "Configuration 2 of 5:
// max_num_seqs=4 · Measuring".
func (r *Tab) showSweepLine(sr *sweepRun) {
	c := sr.configs[sr.current]
	r.SweepView.Line.SetText(fmt.Sprintf("Configuration %d of %d: %s · %s", sr.current+1, sr.total, c.Name, c.Status))
}

// showStarting shows that configuration c's server starts: the plan it
// will run, and its start-up's log in Events.
func (r *Tab) showStarting(sr *sweepRun, c sweep.Config, began time.Time) {
	if r.Sweep != sr {
		return
	}
	if !sr.stopping {
		r.CancelBtn.Enable() // the last run's end disabled it
	}
	r.Log.Add(fmt.Sprintf("%s  ── %s: starting its server", began.Format("15:04:05"), c.Name))
	r.Log.Flush()
	r.Current.SetText("")
	r.ServerLine.SetText("")
	r.Progress.Hide()
	st := r.u.State.Run // the last run's progress is over (the sidebar shows it)
	st.Progress, st.Server = nil, nil
	r.u.State.SetRun(st)
	// The card's title does not name it: a title never truncates, and a
	// long name would widen the screen (the line above names it).
	r.heatCard.SetTitle("Next configuration")
	r.heatCard.SetSubTitle("its server is starting · the plan's decode cells, as they will run")
	r.Heat.IdleText = "will run"
	appwidget.PreviewPlan(r.Heat, sr.plan, app.Capacity{})
	r.Heat.Redraw()
	r.showStartingFor(sr, c, began)
}

// showStartingFor says how long configuration c's server has been starting.
func (r *Tab) showStartingFor(sr *sweepRun, c sweep.Config, began time.Time) {
	if r.Sweep != sr || sr.stopping || sr.configs[sr.current].Status != sweep.StatusStarting {
		return
	}
	now := r.u.Deps.Now()
	r.ProgressLine.SetText(fmt.Sprintf("Starting %s … %s (a vLLM start-up takes minutes on a large model)", c.Name, app.FormatDuration(now.Sub(began))))
	r.SweepView.setRows(sr, now, began)
}

// showSweepProgress shows a configuration's new status (i), or a note of
// the sweep's.
func (r *Tab) showSweepProgress(sr *sweepRun, cs []sweep.Config, i int, note string) {
	if r.Sweep != sr {
		return
	}
	sr.configs = cs
	if note != "" {
		r.Log.Add(note)
		r.Log.Flush()
		return
	}
	c := cs[i]
	sr.current = i
	switch c.Status {
	case sweep.StatusFailed:
		r.Log.Add(fmt.Sprintf("%s failed to start: %s; the sweep goes on", c.Name, c.Reason))
	case sweep.StatusDone:
		r.Log.Add(fmt.Sprintf("%s done: %s", c.Name, sr.Cells[i]))
	case sweep.StatusPartial:
		r.Log.Add(fmt.Sprintf("%s stopped early: %s", c.Name, c.Reason))
	}
	r.Log.Flush()
	r.showSweepLine(sr)
	r.SweepView.setRows(sr, r.u.Deps.Now(), time.Time{})
}

// showSweepCells shows how far the run of the configuration measured now
// has gone.
func (r *Tab) showSweepCells(p engine.Progress) {
	sr := r.Sweep
	if sr == nil || p.CellCount == 0 || p.Load != nil {
		return
	}
	sr.Cells[sr.current] = fmt.Sprintf("%d of %d cells", p.CellIndex-1, p.CellCount)
	r.SweepView.setRows(sr, r.u.Deps.Now(), time.Time{})
}

// showSweepEnd shows how the sweep ended, in the progress line and Events,
// and in a banner when it stopped on a problem.
func (r *Tab) showSweepEnd(sr *sweepRun, s sweep.Sweep, err error) {
	sr.configs = s.Configs
	r.CancelBtn.SetText("Cancel (Esc)")
	r.CancelBtn.Disable()
	r.Current.SetText("")
	r.ServerLine.SetText("")
	r.ProgressLine.SetText(sweepEndLine(s, err))
	r.SweepView.Line.SetText(fmt.Sprintf("Sweep of %s: %s", engine.Count(len(s.Configs), "configuration", "configurations"), sweepStates(s)))
	r.SweepView.setRows(sr, r.u.Deps.Now(), time.Time{})
	r.Log.Add(fmt.Sprintf("%s  sweep ended after %s; estimated %s", r.u.Deps.Now().Format("15:04:05"),
		app.FormatDuration(time.Duration(s.ActualS*float64(time.Second))), app.FormatAbout(time.Duration(s.EstimateS*float64(time.Second)))))
	switch {
	case err == nil:
	case errors.Is(err, measure.ErrInterrupted):
		r.Log.Add("sweep stopped: Resume in History measures the configurations it did not finish")
	default:
		r.Log.Add("sweep stopped: " + err.Error())
		r.Banner.Show(app.Notice{Message: "The sweep stopped on a problem.", Action: "Fix it, then resume the sweep from History: it keeps what it measured.", Detail: err.Error()})
	}
	r.Log.Flush()
}

// sweepStates counts a sweep's configurations by status: "4 Done · 1
// Failed to start".
func sweepStates(s sweep.Sweep) string {
	var order []sweep.Status
	n := map[sweep.Status]int{}
	for _, c := range s.Configs {
		if n[c.Status] == 0 {
			order = append(order, c.Status)
		}
		n[c.Status]++
	}
	text := ""
	for i, st := range order {
		if i > 0 {
			text += " · "
		}
		text += fmt.Sprintf("%d %s", n[st], st)
	}
	return text
}

// hideSweep hides what the last sweep left on the screen.
func (r *Tab) hideSweep() {
	r.SweepView.list.Hide()
	r.SweepView.Line.Hide()
}
