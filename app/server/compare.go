package server

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
)

// CompareForm is the "Compare settings…" dialog: the fields to vary, the
// configurations they make with the form as the baseline, and the start of
// the sweep. UI goroutine only.
type CompareForm struct {
	l        *launchPanel
	base     string              // the form as server.toml, without its secrets
	secrets  launch.ServerConfig // the form with them, kept in memory
	plan     engine.Plan
	Rows     []*compareRow
	rowsBox  *fyne.Container
	Count    *widget.Label // "baseline + 4 configurations, about 40 min with start-ups"
	Basis    *widget.Label // what that estimate assumes (sweep.Sweep.EstimateBasis)
	problem  *widget.Label // a configuration the server would refuse
	Many     *widget.Check // runs a grid of more than sweep.MaxConfigs
	StartBtn *widget.Button
	Dialog   dialog.Dialog
	Configs  []sweep.Config  // what Start runs, once the form is valid
	vary     []string        // the rows that make them, as --vary options
	Quality  *compareQuality // the quality phase and its budget (compare_quality.go)
}

// OnCompare opens "Compare settings…" for the form as it is now: the
// baseline of the sweep.
func (l *launchPanel) OnCompare() {
	cfg, ok := l.checkForm("then press Compare settings… again")
	if !ok {
		return
	}
	st := l.s.u.State
	switch {
	case st.PlanErr != nil:
		l.s.Banner.Show(app.Notice{Message: "The matrix has a problem: " + st.PlanErr.Error() + ".", Action: "Fix it on the Matrix screen, then press Compare settings… again."})
		return
	case st.Load.On:
		l.s.Banner.Show(app.Notice{Message: "A sweep compares matrix runs, and the Matrix screen plans a load test.", Action: "Choose the matrix on the Matrix screen, then press Compare settings… again."})
		return
	}
	base, err := launch.EncodeConfig(l.s.Form.Config(false))
	if err != nil {
		l.s.Banner.Show(app.Notice{Message: "The form could not be written as server.toml.", Action: "Check its fields.", Detail: err.Error()})
		return
	}
	f := &CompareForm{l: l, base: base, secrets: cfg, plan: st.Plan}
	l.Compare = f
	f.build()
	f.Dialog.Show()
}

// checkForm reads the form with its API key, or shows on the screen why it
// can't start a server (then, what to do); ok is false then. What this
// machine lacks is said beside Start (refreshStart), where it goes once
// the cause is fixed, not in the server's state line, which would keep it.
func (l *launchPanel) checkForm(then string) (cfg launch.ServerConfig, ok bool) {
	cfg = l.s.Form.Config(true)
	if why := l.Blocker(); why.Problem != "" {
		l.refreshStart()
		return cfg, false
	}
	if p := l.s.Form.Problems(); len(p) > 0 {
		l.s.Banner.Show(app.Notice{Message: "The form has a problem: " + strings.Join(p, "; ") + ".", Action: "Fix it, " + then + "."})
		return cfg, false
	}
	resolved, _, _ := l.s.u.LaunchDevice(cfg) // with the device Launch decides, so that its checks apply
	if err := resolved.WithDefaults().Validate(); err != nil {
		l.s.Banner.Show(app.Notice{Message: "The form has a problem: " + strings.ReplaceAll(formWords.Replace(err.Error()), "\n", "; ") + ".", Action: "Fix it, " + then + "."})
		return cfg, false
	}
	l.s.Banner.Hide()
	return cfg, true
}

// build makes the dialog's widgets, with one field to fill in.
func (f *CompareForm) build() {
	intro := widget.NewLabel("Each configuration starts the server with the form's settings and these changes, then runs the Matrix screen's plan. " +
		"The form as it is runs first: the baseline. Type a field's values separated by commas; several fields run every combination.")
	intro.Wrapping = fyne.TextWrapWord
	f.rowsBox = container.NewVBox()
	add := widget.NewButtonWithIcon("Add a field", theme.ContentAddIcon(), func() { f.AddRow(); f.Refresh() })
	f.Count = widget.NewLabel("")
	f.Count.TextStyle = fyne.TextStyle{Bold: true}
	f.Count.Wrapping = fyne.TextWrapWord
	f.Basis = widget.NewLabel("")
	f.Basis.Wrapping = fyne.TextWrapWord
	f.Basis.Importance = widget.LowImportance
	f.problem = widget.NewLabel("")
	f.problem.Importance = widget.DangerImportance
	f.problem.Wrapping = fyne.TextWrapWord
	f.problem.Hide()
	f.Many = widget.NewCheck("", func(bool) { f.Refresh() })
	f.Many.Hide()
	f.StartBtn = widget.NewButtonWithIcon("Start sweep", theme.MediaPlayIcon(), f.OnStart)
	f.StartBtn.Importance = widget.HighImportance
	f.Quality = newCompareQuality(f.Refresh)
	f.AddRow()
	content := container.NewVBox(intro, f.rowsBox, container.NewHBox(add), widget.NewSeparator(), f.Quality.Object(), widget.NewSeparator(), f.Count, f.Basis, f.problem, f.Many)
	d := dialog.NewCustomWithoutButtons("Compare settings", container.New(&app.FixedWidth{Width: compareWidth}, content), f.l.s.u.Win)
	cancel := widget.NewButton("Cancel", d.Hide)
	d.SetButtons([]fyne.CanvasObject{cancel, f.StartBtn})
	f.Dialog = d
	f.Refresh()
}

// compareWidth is how wide the dialog's content is: a field and its
// values side by side, and its text in a few lines.
const compareWidth = 620

// Refresh reads the fields, counts the configurations they make and
// enables Start sweep when they can run.
func (f *CompareForm) Refresh() {
	f.Configs = nil
	qualityErr := f.Quality.Read()
	axes, vary, ok := f.axes()
	f.problem.Hide()
	if !ok {
		f.Count.SetText("Type the values of each field to see the configurations they make.")
		f.Many.Hide()
		f.StartBtn.Disable()
		return
	}
	cs := runner.Grid(axes)
	n := len(cs) - 1
	large := n > sweep.MaxConfigs
	if large {
		f.Many.SetText(fmt.Sprintf("Run all %d configurations: more than %d, each starting the server (minutes with vLLM)", n, sweep.MaxConfigs))
	}
	appwidget.ShowIf(f.Many, large)
	if !large || f.Many.Checked {
		var dropped []string
		var err error
		if cs, dropped, err = runner.Resolve("the Launch form", f.base, cs); err != nil {
			f.showProblem(err)
			return
		}
		if len(dropped) > 0 {
			f.showNote(strings.Join(dropped, ", ") + " is the form's own setting: it runs once, as the baseline.")
		}
		n = len(cs) - 1
	}
	s := f.sweep(cs, "")
	f.Count.SetText(fmt.Sprintf("baseline + %s, %s with start-ups", engine.Count(n, "configuration", "configurations"), app.FormatAbout(runner.Estimate(s))))
	f.Basis.SetText("The estimate assumes " + runner.EstimateBasis(s) + ".")
	if n == 0 || (large && !f.Many.Checked) || qualityErr != nil {
		f.StartBtn.Disable()
		return
	}
	f.Configs, f.vary = cs, vary
	f.StartBtn.Enable()
}

// sweep is the sweep of configurations cs, with the prior its estimate
// starts from: runner.PriorFor the form (its program found as Start finds
// it), and the start-up of the form's server where it was timed with the
// form as it is now.
func (f *CompareForm) sweep(cs []sweep.Config, tool string) sweep.Sweep {
	s := sweep.New("", f.plan, cs, tool)
	s.Prior = runner.PriorFor(f.l.s.u.WithProgram(f.secrets))
	if t := f.l.LastStart; t.took > 0 && t.base == f.base {
		s.Prior.StartupS, s.Prior.Startup = t.took.Seconds(), sweep.StartupMeasured
		s.Prior.MaxModelLen = cmp.Or(s.Prior.MaxModelLen, t.maxModelLen)
	}
	return s
}

// timedStart is a start of the Launch form's server: the form as it
// started (server.toml's text, without secrets), how long it took to be
// ready, and the max model length its log gave.
type timedStart struct {
	base        string
	Began       time.Time
	took        time.Duration
	maxModelLen int
}

// Timing begins timing a start of the form as it is now.
func (l *launchPanel) Timing() timedStart {
	base, _ := launch.EncodeConfig(l.s.Form.Config(false))
	return timedStart{base: base, Began: l.s.u.Deps.Now()}
}

// Ready ends the timing: the server was ready at now, with facts.
func (t *timedStart) Ready(now time.Time, facts launch.LogFacts) {
	t.took, t.maxModelLen = now.Sub(t.Began), facts.ConcurrencyTokens
}

// showProblem says why a configuration can't start, in the form's words.
func (f *CompareForm) showProblem(err error) {
	msg := strings.TrimPrefix(err.Error(), "server config ")
	f.problem.Importance = widget.DangerImportance
	f.problem.SetText(appwidget.Sentence(strings.ReplaceAll(formWords.Replace(msg), "\n", "; ")))
	f.problem.Show()
	f.Count.SetText("Fix the values: every configuration must be one the server can start.")
	f.StartBtn.Disable()
}

// showNote says something about the configurations that is not a problem.
func (f *CompareForm) showNote(msg string) {
	f.problem.Importance = widget.LowImportance
	f.problem.SetText(msg)
	f.problem.Show()
}

// OnStart starts the sweep on the Run screen, stopping the server started
// here first (asked): each configuration starts its own on the same port
// and GPUs.
func (f *CompareForm) OnStart() {
	if f.Configs == nil {
		return
	}
	u := f.l.s.u
	if u.State.Run.Running {
		f.showProblem(errors.New("a run is in progress: wait for it to end, or cancel it on the Run screen"))
		return
	}
	job := &app.SweepJob{S: f.sweep(f.Configs, u.Opts.Version), Base: f.base, Model: f.secrets.Model, Secrets: f.secrets}
	job.S.Vary = f.vary // a resume makes the configurations again from these
	job.S.Quality = f.Quality.Setup
	start := func() {
		f.Dialog.Hide()
		f.l.s.Runs.StartSweep(job)
	}
	if !f.l.Up() {
		start()
		return
	}
	u.Confirm("Stop the server?", "The server started here stops first: the sweep starts the server itself with each configuration, on the same port and GPUs.",
		"Stop it and start the sweep", "Cancel", func(yes bool) {
			if yes {
				f.l.stopThen(start)
			}
		})
}
