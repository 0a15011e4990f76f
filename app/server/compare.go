package shell

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
)

// compareForm is the "Compare settings…" dialog: the fields to vary, the
// configurations they make with the form as the baseline, and the start of
// the sweep. UI goroutine only.
type compareForm struct {
	l        *launchPanel
	base     string              // the form as server.toml, without its secrets
	secrets  launch.ServerConfig // the form with them, kept in memory
	plan     engine.Plan
	rows     []*compareRow
	rowsBox  *fyne.Container
	count    *widget.Label // "baseline + 4 configurations, about 40 min with start-ups"
	basis    *widget.Label // what that estimate assumes (sweep.Sweep.EstimateBasis)
	problem  *widget.Label // a configuration the server would refuse
	many     *widget.Check // runs a grid of more than sweep.MaxConfigs
	startBtn *widget.Button
	dialog   dialog.Dialog
	configs  []sweep.Config  // what Start runs, once the form is valid
	vary     []string        // the rows that make them, as --vary options
	quality  *compareQuality // the quality phase and its budget (server_compare_quality.go)
}

// onCompare opens "Compare settings…" for the form as it is now: the
// baseline of the sweep.
func (l *launchPanel) onCompare() {
	cfg, ok := l.checkForm("then press Compare settings… again")
	if !ok {
		return
	}
	st := l.s.u.State
	switch {
	case st.PlanErr != nil:
		l.s.banner.Show(app.Notice{Message: "The matrix has a problem: " + st.PlanErr.Error() + ".", Action: "Fix it on the Matrix screen, then press Compare settings… again."})
		return
	case st.Load.On:
		l.s.banner.Show(app.Notice{Message: "A sweep compares matrix runs, and the Matrix screen plans a load test.", Action: "Choose the matrix on the Matrix screen, then press Compare settings… again."})
		return
	}
	base, err := launch.EncodeConfig(l.s.form.config(false))
	if err != nil {
		l.s.banner.Show(app.Notice{Message: "The form could not be written as server.toml.", Action: "Check its fields.", Detail: err.Error()})
		return
	}
	f := &compareForm{l: l, base: base, secrets: cfg, plan: st.Plan}
	l.compare = f
	f.build()
	f.dialog.Show()
}

// checkForm reads the form with its API key, or shows on the screen why it
// can't start a server (then, what to do); ok is false then. What this
// machine lacks is said beside Start (refreshStart), where it goes once
// the cause is fixed, not in the server's state line, which would keep it.
func (l *launchPanel) checkForm(then string) (cfg launch.ServerConfig, ok bool) {
	cfg = l.s.form.config(true)
	if why := l.blocker(); why.problem != "" {
		l.refreshStart()
		return cfg, false
	}
	if p := l.s.form.problems(); len(p) > 0 {
		l.s.banner.Show(app.Notice{Message: "The form has a problem: " + strings.Join(p, "; ") + ".", Action: "Fix it, " + then + "."})
		return cfg, false
	}
	resolved, _, _ := l.s.u.LaunchDevice(cfg) // with the device Launch decides, so that its checks apply
	if err := resolved.WithDefaults().Validate(); err != nil {
		l.s.banner.Show(app.Notice{Message: "The form has a problem: " + strings.ReplaceAll(formWords.Replace(err.Error()), "\n", "; ") + ".", Action: "Fix it, " + then + "."})
		return cfg, false
	}
	l.s.banner.Hide()
	return cfg, true
}

// build makes the dialog's widgets, with one field to fill in.
func (f *compareForm) build() {
	intro := widget.NewLabel("Each configuration starts the server with the form's settings and these changes, then runs the Matrix screen's plan. " +
		"The form as it is runs first: the baseline. Type a field's values separated by commas; several fields run every combination.")
	intro.Wrapping = fyne.TextWrapWord
	f.rowsBox = container.NewVBox()
	add := widget.NewButtonWithIcon("Add a field", theme.ContentAddIcon(), func() { f.addRow(); f.refresh() })
	f.count = widget.NewLabel("")
	f.count.TextStyle = fyne.TextStyle{Bold: true}
	f.count.Wrapping = fyne.TextWrapWord
	f.basis = widget.NewLabel("")
	f.basis.Wrapping = fyne.TextWrapWord
	f.basis.Importance = widget.LowImportance
	f.problem = widget.NewLabel("")
	f.problem.Importance = widget.DangerImportance
	f.problem.Wrapping = fyne.TextWrapWord
	f.problem.Hide()
	f.many = widget.NewCheck("", func(bool) { f.refresh() })
	f.many.Hide()
	f.startBtn = widget.NewButtonWithIcon("Start sweep", theme.MediaPlayIcon(), f.onStart)
	f.startBtn.Importance = widget.HighImportance
	f.quality = newCompareQuality(f.refresh)
	f.addRow()
	content := container.NewVBox(intro, f.rowsBox, container.NewHBox(add), widget.NewSeparator(), f.quality.Object(), widget.NewSeparator(), f.count, f.basis, f.problem, f.many)
	d := dialog.NewCustomWithoutButtons("Compare settings", container.New(&app.FixedWidth{Width: compareWidth}, content), f.l.s.u.Win)
	cancel := widget.NewButton("Cancel", d.Hide)
	d.SetButtons([]fyne.CanvasObject{cancel, f.startBtn})
	f.dialog = d
	f.refresh()
}

// compareWidth is how wide the dialog's content is: a field and its
// values side by side, and its text in a few lines.
const compareWidth = 620

// refresh reads the fields, counts the configurations they make and
// enables Start sweep when they can run.
func (f *compareForm) refresh() {
	f.configs = nil
	qualityErr := f.quality.Read()
	axes, vary, ok := f.axes()
	f.problem.Hide()
	if !ok {
		f.count.SetText("Type the values of each field to see the configurations they make.")
		f.many.Hide()
		f.startBtn.Disable()
		return
	}
	cs := sweep.Grid(axes)
	n := len(cs) - 1
	large := n > sweep.MaxConfigs
	if large {
		f.many.SetText(fmt.Sprintf("Run all %d configurations: more than %d, each starting the server (minutes with vLLM)", n, sweep.MaxConfigs))
	}
	showIf(f.many, large)
	if !large || f.many.Checked {
		var dropped []string
		var err error
		if cs, dropped, err = sweep.Resolve("the Launch form", f.base, cs); err != nil {
			f.showProblem(err)
			return
		}
		if len(dropped) > 0 {
			f.showNote(strings.Join(dropped, ", ") + " is the form's own setting: it runs once, as the baseline.")
		}
		n = len(cs) - 1
	}
	s := f.sweep(cs, "")
	f.count.SetText(fmt.Sprintf("baseline + %s, %s with start-ups", engine.Count(n, "configuration", "configurations"), app.FormatAbout(s.Estimate())))
	f.basis.SetText("The estimate assumes " + s.EstimateBasis() + ".")
	if n == 0 || (large && !f.many.Checked) || qualityErr != nil {
		f.startBtn.Disable()
		return
	}
	f.configs, f.vary = cs, vary
	f.startBtn.Enable()
}

// sweep is the sweep of configurations cs, with the prior its estimate
// starts from: sweep.PriorFor the form (its program found as Start finds
// it), and the start-up of the form's server where it was timed with the
// form as it is now.
func (f *compareForm) sweep(cs []sweep.Config, tool string) sweep.Sweep {
	s := sweep.New("", f.plan, cs, tool)
	s.Prior = sweep.PriorFor(f.l.s.u.WithProgram(f.secrets))
	if t := f.l.lastStart; t.took > 0 && t.base == f.base {
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
	began       time.Time
	took        time.Duration
	maxModelLen int
}

// timing begins timing a start of the form as it is now.
func (l *launchPanel) timing() timedStart {
	base, _ := launch.EncodeConfig(l.s.form.config(false))
	return timedStart{base: base, began: l.s.u.Deps.Now()}
}

// ready ends the timing: the server was ready at now, with facts.
func (t *timedStart) ready(now time.Time, facts launch.LogFacts) {
	t.took, t.maxModelLen = now.Sub(t.began), facts.ConcurrencyTokens
}

// showProblem says why a configuration can't start, in the form's words.
func (f *compareForm) showProblem(err error) {
	msg := strings.TrimPrefix(err.Error(), "server config ")
	f.problem.Importance = widget.DangerImportance
	f.problem.SetText(appwidget.Sentence(strings.ReplaceAll(formWords.Replace(msg), "\n", "; ")))
	f.problem.Show()
	f.count.SetText("Fix the values: every configuration must be one the server can start.")
	f.startBtn.Disable()
}

// showNote says something about the configurations that is not a problem.
func (f *compareForm) showNote(msg string) {
	f.problem.Importance = widget.LowImportance
	f.problem.SetText(msg)
	f.problem.Show()
}

// onStart starts the sweep on the Run screen, stopping the server started
// here first (asked): each configuration starts its own on the same port
// and GPUs.
func (f *compareForm) onStart() {
	if f.configs == nil {
		return
	}
	u := f.l.s.u
	if u.State.Run.Running {
		f.showProblem(errors.New("a run is in progress: wait for it to end, or cancel it on the Run screen"))
		return
	}
	job := &sweepJob{s: f.sweep(f.configs, u.Opts.Version), base: f.base, model: f.secrets.Model, secrets: f.secrets}
	job.s.Vary = f.vary // a resume makes the configurations again from these
	job.s.Quality = f.quality.setup
	start := func() {
		f.dialog.Hide()
		f.l.s.runs.startSweep(job)
	}
	if !f.l.up() {
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
