package settings

import (
	"cmp"
	"context"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

// Theme choices as the Settings screen labels them.
var themeLabels = map[string]string{app.ThemeSystem: "Follow system", app.ThemeLight: "Light", app.ThemeDark: "Dark"}

// Tab edits what the app remembers besides the screens' own
// choices: theme, folders, the run's timeouts and the telemetry interval.
// The theme applies as soon as it is chosen, the rest on Apply; the
// settings in use are the state's (app.State.Settings).
type Tab struct {
	U    *app.UI
	Help *appwidget.HelpOverlay

	Banner                      *appwidget.Banner
	Theme                       *widget.RadioGroup
	ExportDir, RunsDir          *widget.Entry
	FirstToken, Stall, Interval *widget.Entry
	Slo                         *appwidget.SloFields // slo.go
	Rent, Electricity           *widget.Entry        // cost.go
	sloSeen                     engine.SLO           // the state's SLO as the fields last showed it
	Status                      *widget.Label
	intervalPending             bool // the new interval waits for the run to end
}

// New builds the Settings screen and applies the remembered
// settings: the theme, the sampler at the remembered interval, and the
// state's settings. It is built before the screens that read them.
func New(u *app.UI) (*Tab, *container.TabItem) {
	s := &Tab{U: u, Help: &appwidget.HelpOverlay{Win: u.Win}, Banner: appwidget.NewBanner()}
	u.State.SetSettings(app.LoadSettings(u.Prefs))
	current := u.State.Settings
	if current.Theme != app.ThemeSystem {
		app.ApplyTheme(u.App, current.Theme)
	}
	if u.Deps.NewTelemetry != nil {
		u.Deps.Telemetry = u.Deps.NewTelemetry(current.Interval())
	}
	s.Theme = widget.NewRadioGroup([]string{themeLabels[app.ThemeSystem], themeLabels[app.ThemeLight], themeLabels[app.ThemeDark]}, s.onTheme)
	s.Theme.Horizontal, s.Theme.Required = true, true
	s.Theme.SetSelected(themeLabels[current.Theme])
	entry := func() *widget.Entry {
		e := widget.NewEntry()
		e.OnSubmitted = func(string) { s.OnApply() }
		return e
	}
	s.ExportDir, s.RunsDir = entry(), entry()
	s.ExportDir.SetPlaceHolder("your home folder")
	s.FirstToken, s.Stall, s.Interval = entry(), entry(), entry()
	s.Slo = appwidget.NewSLOFields(nil)
	s.Slo.Ttft.OnSubmitted, s.Slo.Itl.OnSubmitted = func(string) { s.OnApply() }, func(string) { s.OnApply() }
	s.Rent, s.Electricity = entry(), entry()
	s.Status = widget.NewLabel("")
	s.Status.Importance = widget.LowImportance
	s.fill(current)
	u.State.Watch(app.ChangeRun, s.onRunChange)
	u.State.Watch(app.ChangeSettings, s.showSLO)
	// Also when the system switches between light and dark.
	u.App.Settings().AddListener(func(fyne.Settings) { u.Do(u.State.ThemeChanged) })

	col := &appwidget.FormColumn{}
	appearance := col.Form(appwidget.FormRow{Label: "Theme", Field: s.Theme, Hint: ""})
	folders := col.Form(
		appwidget.FormRow{Label: "Default export folder", Field: s.folderRow(s.ExportDir), Hint: "Export all… (Ctrl+E) opens here. Empty: your home folder."},
		appwidget.FormRow{Label: "Runs folder", Field: s.folderRow(s.RunsDir), Hint: "Every run is saved here as it goes; History lists the runs in it."})
	runs := col.Form(
		appwidget.FormRow{Label: app.FirstTokenField.Name, Field: unitRow(s.FirstToken, app.FirstTokenField), Hint: "A request with no first token after this long has stalled and fails. Default " + app.DurationWords(app.FirstTokenField.Def) + "."},
		appwidget.FormRow{Label: app.StallField.Name, Field: unitRow(s.Stall, app.StallField), Hint: "A request whose stream stops this long after its first token has stalled and fails. Default " + app.DurationWords(app.StallField.Def) + "."},
		appwidget.FormRow{Label: app.IntervalField.Name, Field: unitRow(s.Interval, app.IntervalField), Hint: "How often GPU utilization, power, memory and temperature are read. Default " + app.DurationWords(app.IntervalField.Def) + "."})
	apply := widget.NewButtonWithIcon("Apply", theme.ConfirmIcon(), s.OnApply)
	apply.Importance = widget.HighImportance
	defaults := widget.NewButtonWithIcon("Restore defaults", theme.ViewRefreshIcon(), s.OnDefaults)
	body := container.NewVBox(s.Banner.Object(),
		widget.NewCard("Appearance", "", appearance),
		widget.NewCard("Folders", "", folders),
		widget.NewCard("Runs", "a plain number counts the unit shown; 90s, 2 min or 250ms also work", runs),
		s.sloCard(col),
		s.costCard(col),
		container.NewBorder(nil, nil, container.NewHBox(apply, defaults), nil, s.Status),
		appwidget.ShortcutsCard(s.Help))
	header := appwidget.ScreenHeader("Settings", "Remembered between launches. The theme changes at once; the other settings when you press Apply or Enter.")
	return s, container.NewTabItemWithIcon(app.TabSettings, theme.SettingsIcon(), appwidget.Screen(header, body, nil))
}

// unitRow is an entry wide enough for a number, its unit after it.
func unitRow(e *widget.Entry, f app.DurationField) fyne.CanvasObject {
	e.SetPlaceHolder(f.Format(f.Def))
	e.Validator = func(text string) error {
		_, err := f.Parse(text)
		return err
	}
	box := container.NewGridWrap(fyne.NewSize(160, e.MinSize().Height), e)
	return container.NewHBox(box, widget.NewLabel(f.UnitName))
}

// folderRow is an entry with a "Choose folder" button after it.
func (s *Tab) folderRow(e *widget.Entry) fyne.CanvasObject {
	choose := widget.NewButtonWithIcon("Choose folder", theme.FolderOpenIcon(), func() { s.onChooseFolder(e) })
	return container.NewBorder(nil, nil, nil, choose, e)
}

// fill shows c in the fields, the defaults spelt out.
func (s *Tab) fill(c app.Settings) {
	s.ExportDir.SetText(c.ExportDir)
	s.RunsDir.SetText(c.RunsDir)
	if c.RunsDir == "" {
		s.RunsDir.SetText(s.U.Deps.RunsDir)
	}
	s.FirstToken.SetText(app.FirstTokenField.Format(c.FirstToken()))
	s.Stall.SetText(app.StallField.Format(c.Stall()))
	s.Interval.SetText(app.IntervalField.Format(c.Interval()))
	s.sloSeen = c.SLO
	s.Slo.Set(c.SLO)
	s.Rent.SetText(app.RentField.Format(c.Prices.PerHourUSD))
	s.Electricity.SetText(app.ElectricityField.Format(c.Prices.PerKWhUSD))
}

// Read is the fields as settings, or the first field that cannot be used.
// The folders are created when missing.
func (s *Tab) Read() (app.Settings, error) {
	c := app.Settings{Theme: s.U.State.Settings.Theme}
	var err error
	if text := strings.TrimSpace(s.ExportDir.Text); text != "" {
		if c.ExportDir, err = app.UsableFolder(text); err != nil {
			return c, app.FolderProblem{Field: "default export folder", Err: err}
		}
	}
	if runs := cmp.Or(strings.TrimSpace(s.RunsDir.Text), s.U.Deps.RunsDir); runs != "" {
		if c.RunsDir, err = app.UsableFolder(runs); err != nil {
			return c, app.FolderProblem{Field: "runs folder", Err: err}
		}
	}
	if c.RunsDir == s.U.Deps.RunsDir {
		c.RunsDir = "" // follows the default
	}
	for _, f := range []struct {
		field app.DurationField
		entry *widget.Entry
		dst   *time.Duration
	}{{app.FirstTokenField, s.FirstToken, &c.FirstTokenTimeout}, {app.StallField, s.Stall, &c.StallTimeout}, {app.IntervalField, s.Interval, &c.TelemetryInterval}} {
		d, err := f.field.Parse(f.entry.Text)
		if err != nil {
			return c, err
		}
		if d != f.field.Def {
			*f.dst = d
		}
	}
	if c.Prices, err = s.readPrices(); err != nil {
		return c, err
	}
	c.SLO, err = s.Slo.Read()
	return c, err
}

// OnApply checks every field and, when all can be used, applies and
// remembers them; otherwise the banner says which field to fix and
// nothing changes.
func (s *Tab) OnApply() {
	next, err := s.Read()
	if err != nil {
		s.Banner.Show(app.ProblemNotice(err))
		s.Status.SetText("Not saved.")
		return
	}
	s.Banner.Hide()
	s.apply(next)
}

// OnDefaults puts every field back to its default and applies them.
func (s *Tab) OnDefaults() {
	s.fill(app.Settings{Theme: s.U.State.Settings.Theme})
	s.OnApply()
}

// apply makes next the settings in use.
func (s *Tab) apply(next app.Settings) {
	prev := s.U.State.Settings
	s.U.Prefs.Save(app.PrefApp, next)
	s.U.State.SetSettings(next)
	s.fill(next)
	s.Status.SetText("Saved.")
	if next.Interval() != prev.Interval() {
		s.applyInterval()
	}
}

// onTheme applies and remembers the theme chosen.
func (s *Tab) onTheme(label string) {
	choice := app.ThemeSystem
	for k, v := range themeLabels {
		if v == label {
			choice = k
		}
	}
	next := s.U.State.Settings
	if choice == next.Theme {
		return
	}
	next.Theme = choice
	s.U.Prefs.Save(app.PrefApp, next)
	s.U.State.SetSettings(next)
	app.ApplyTheme(s.U.App, choice)
}

// onChooseFolder picks a folder for e and applies it.
func (s *Tab) onChooseFolder(e *widget.Entry) {
	d := dialog.NewFolderOpen(func(uri fyne.ListableURI, err error) {
		if err != nil || uri == nil {
			return
		}
		e.SetText(uri.Path())
		s.OnApply()
	}, s.U.Win)
	d.SetConfirmText("Choose folder")
	d.SetTitleText("Choose a folder") // else Fyne writes "Choose folder Folder"
	if dir := e.Text; dir != "" {
		if _, err := os.Stat(dir); err == nil {
			if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
				d.SetLocation(l)
			}
		}
	}
	d.Show()
}

// applyInterval makes the sampler read at the new interval. A Sampler's
// interval is fixed, so a new one replaces it; a run reading the old one
// keeps it until it ends.
func (s *Tab) applyInterval() {
	newTelemetry := s.U.Deps.NewTelemetry
	if newTelemetry == nil {
		return
	}
	if s.U.State.Run.Running {
		s.intervalPending = true
		s.Status.SetText("Saved. The new telemetry interval applies when the run ends.")
		return
	}
	s.intervalPending = false
	old := s.U.Deps.Telemetry
	s.U.Deps.Telemetry = newTelemetry(s.U.State.Settings.Interval())
	if st, ok := old.(interface{ Stop() }); ok {
		st.Stop()
	}
	if st, ok := s.U.Deps.Telemetry.(interface{ Start(ctx context.Context) }); ok {
		st.Start(s.U.Bg)
	}
}

// onRunChange applies an interval that waited for the run to end.
func (s *Tab) onRunChange() {
	if s.intervalPending && !s.U.State.Run.Running {
		s.applyInterval()
	}
}
