package app

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

	"speedmatrix/engine"
)

// Theme choices as the Settings screen labels them.
var themeLabels = map[string]string{themeSystem: "Follow system", themeLight: "Light", themeDark: "Dark"}

// settingsTab edits what the app remembers besides the screens' own
// choices: theme, folders, the run's timeouts and the telemetry interval.
// The theme applies as soon as it is chosen, the rest on Apply; the
// settings in use are the state's (appState.settings).
type settingsTab struct {
	u    *base
	help *helpOverlay

	banner                      *banner
	theme                       *widget.RadioGroup
	exportDir, runsDir          *widget.Entry
	firstToken, stall, interval *widget.Entry
	slo                         *sloFields // settings_slo.go
	sloSeen                     engine.SLO // the state's SLO as the fields last showed it
	status                      *widget.Label
	intervalPending             bool // the new interval waits for the run to end
}

// newSettingsTab builds the Settings screen and applies the remembered
// settings: the theme, the sampler at the remembered interval, and the
// state's settings. It is built before the screens that read them.
func newSettingsTab(u *base) (*settingsTab, *container.TabItem) {
	s := &settingsTab{u: u, help: &helpOverlay{win: u.win}, banner: newBanner()}
	u.state.setSettings(loadAppSettings(u.prefs))
	current := u.state.settings
	if current.Theme != themeSystem {
		applyTheme(u.app, current.Theme)
	}
	if u.deps.newTelemetry != nil {
		u.deps.telemetry = u.deps.newTelemetry(current.interval())
	}
	s.theme = widget.NewRadioGroup([]string{themeLabels[themeSystem], themeLabels[themeLight], themeLabels[themeDark]}, s.onTheme)
	s.theme.Horizontal, s.theme.Required = true, true
	s.theme.SetSelected(themeLabels[current.Theme])
	entry := func() *widget.Entry {
		e := widget.NewEntry()
		e.OnSubmitted = func(string) { s.onApply() }
		return e
	}
	s.exportDir, s.runsDir = entry(), entry()
	s.exportDir.SetPlaceHolder("your home folder")
	s.firstToken, s.stall, s.interval = entry(), entry(), entry()
	s.slo = newSLOFields(nil)
	s.slo.ttft.OnSubmitted, s.slo.itl.OnSubmitted = func(string) { s.onApply() }, func(string) { s.onApply() }
	s.status = widget.NewLabel("")
	s.status.Importance = widget.LowImportance
	s.fill(current)
	u.state.watch(changeRun, s.onRunChange)
	u.state.watch(changeSettings, s.showSLO)
	// Also when the system switches between light and dark.
	u.app.Settings().AddListener(func(fyne.Settings) { u.do(u.state.themeChanged) })

	col := &formColumn{}
	appearance := col.form(formRow{"Theme", s.theme, ""})
	folders := col.form(
		formRow{"Default export folder", s.folderRow(s.exportDir), "Export all… (Ctrl+E) opens here. Empty: your home folder."},
		formRow{"Runs folder", s.folderRow(s.runsDir), "Every run is saved here as it goes; History lists the runs in it."})
	runs := col.form(
		formRow{firstTokenField.name, unitRow(s.firstToken, firstTokenField), "A request with no first token after this long has stalled and fails. Default " + durationWords(firstTokenField.def) + "."},
		formRow{stallField.name, unitRow(s.stall, stallField), "A request whose stream stops this long after its first token has stalled and fails. Default " + durationWords(stallField.def) + "."},
		formRow{intervalField.name, unitRow(s.interval, intervalField), "How often GPU utilization, power, memory and temperature are read. Default " + durationWords(intervalField.def) + "."})
	apply := widget.NewButtonWithIcon("Apply", theme.ConfirmIcon(), s.onApply)
	apply.Importance = widget.HighImportance
	defaults := widget.NewButtonWithIcon("Restore defaults", theme.ViewRefreshIcon(), s.onDefaults)
	body := container.NewVBox(s.banner.object(),
		widget.NewCard("Appearance", "", appearance),
		widget.NewCard("Folders", "", folders),
		widget.NewCard("Runs", "a plain number counts the unit shown; 90s, 2 min or 250ms also work", runs),
		s.sloCard(col),
		container.NewBorder(nil, nil, container.NewHBox(apply, defaults), nil, s.status),
		shortcutsCard(s.help))
	header := screenHeader("Settings", "Remembered between launches. The theme changes at once; the other settings when you press Apply or Enter.")
	return s, container.NewTabItemWithIcon(tabSettings, theme.SettingsIcon(), screen(header, body, nil))
}

// unitRow is an entry wide enough for a number, its unit after it.
func unitRow(e *widget.Entry, f durationField) fyne.CanvasObject {
	e.SetPlaceHolder(f.format(f.def))
	e.Validator = func(text string) error {
		_, err := f.parse(text)
		return err
	}
	box := container.NewGridWrap(fyne.NewSize(160, e.MinSize().Height), e)
	return container.NewHBox(box, widget.NewLabel(f.unitName))
}

// folderRow is an entry with a "Choose folder" button after it.
func (s *settingsTab) folderRow(e *widget.Entry) fyne.CanvasObject {
	choose := widget.NewButtonWithIcon("Choose folder", theme.FolderOpenIcon(), func() { s.onChooseFolder(e) })
	return container.NewBorder(nil, nil, nil, choose, e)
}

// fill shows c in the fields, the defaults spelt out.
func (s *settingsTab) fill(c appSettings) {
	s.exportDir.SetText(c.ExportDir)
	s.runsDir.SetText(c.RunsDir)
	if c.RunsDir == "" {
		s.runsDir.SetText(s.u.deps.runsDir)
	}
	s.firstToken.SetText(firstTokenField.format(c.firstToken()))
	s.stall.SetText(stallField.format(c.stall()))
	s.interval.SetText(intervalField.format(c.interval()))
	s.sloSeen = c.SLO
	s.slo.set(c.SLO)
}

// read is the fields as settings, or the first field that cannot be used.
// The folders are created when missing.
func (s *settingsTab) read() (appSettings, error) {
	c := appSettings{Theme: s.u.state.settings.Theme}
	var err error
	if text := strings.TrimSpace(s.exportDir.Text); text != "" {
		if c.ExportDir, err = usableFolder(text); err != nil {
			return c, folderProblem{"default export folder", err}
		}
	}
	if runs := cmp.Or(strings.TrimSpace(s.runsDir.Text), s.u.deps.runsDir); runs != "" {
		if c.RunsDir, err = usableFolder(runs); err != nil {
			return c, folderProblem{"runs folder", err}
		}
	}
	if c.RunsDir == s.u.deps.runsDir {
		c.RunsDir = "" // follows the default
	}
	for _, f := range []struct {
		field durationField
		entry *widget.Entry
		dst   *time.Duration
	}{{firstTokenField, s.firstToken, &c.FirstTokenTimeout}, {stallField, s.stall, &c.StallTimeout}, {intervalField, s.interval, &c.TelemetryInterval}} {
		d, err := f.field.parse(f.entry.Text)
		if err != nil {
			return c, err
		}
		if d != f.field.def {
			*f.dst = d
		}
	}
	c.SLO, err = s.slo.read()
	return c, err
}

// onApply checks every field and, when all can be used, applies and
// remembers them; otherwise the banner says which field to fix and
// nothing changes.
func (s *settingsTab) onApply() {
	next, err := s.read()
	if err != nil {
		s.banner.show(problemNotice(err))
		s.status.SetText("Not saved.")
		return
	}
	s.banner.hide()
	s.apply(next)
}

// onDefaults puts every field back to its default and applies them.
func (s *settingsTab) onDefaults() {
	s.fill(appSettings{Theme: s.u.state.settings.Theme})
	s.onApply()
}

// apply makes next the settings in use.
func (s *settingsTab) apply(next appSettings) {
	prev := s.u.state.settings
	s.u.prefs.save(prefApp, next)
	s.u.state.setSettings(next)
	s.fill(next)
	s.status.SetText("Saved.")
	if next.interval() != prev.interval() {
		s.applyInterval()
	}
}

// onTheme applies and remembers the theme chosen.
func (s *settingsTab) onTheme(label string) {
	choice := themeSystem
	for k, v := range themeLabels {
		if v == label {
			choice = k
		}
	}
	next := s.u.state.settings
	if choice == next.Theme {
		return
	}
	next.Theme = choice
	s.u.prefs.save(prefApp, next)
	s.u.state.setSettings(next)
	applyTheme(s.u.app, choice)
}

// onChooseFolder picks a folder for e and applies it.
func (s *settingsTab) onChooseFolder(e *widget.Entry) {
	d := dialog.NewFolderOpen(func(uri fyne.ListableURI, err error) {
		if err != nil || uri == nil {
			return
		}
		e.SetText(uri.Path())
		s.onApply()
	}, s.u.win)
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
func (s *settingsTab) applyInterval() {
	newTelemetry := s.u.deps.newTelemetry
	if newTelemetry == nil {
		return
	}
	if s.u.state.run.Running {
		s.intervalPending = true
		s.status.SetText("Saved. The new telemetry interval applies when the run ends.")
		return
	}
	s.intervalPending = false
	old := s.u.deps.telemetry
	s.u.deps.telemetry = newTelemetry(s.u.state.settings.interval())
	if st, ok := old.(interface{ Stop() }); ok {
		st.Stop()
	}
	if st, ok := s.u.deps.telemetry.(interface{ Start(ctx context.Context) }); ok {
		st.Start(s.u.bg)
	}
}

// onRunChange applies an interval that waited for the run to end.
func (s *settingsTab) onRunChange() {
	if s.intervalPending && !s.u.state.run.Running {
		s.applyInterval()
	}
}
