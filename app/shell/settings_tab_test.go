package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/settings"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
)

// fakeSampler is a live telemetry source that records its interval and
// whether it was started and stopped.
type fakeSampler struct {
	interval         time.Duration
	mu               sync.Mutex
	started, stopped bool
}

func (f *fakeSampler) Summary(from, to time.Time) *engine.Telemetry { return nil }
func (f *fakeSampler) Latest() (telemetry.Sample, bool)             { return telemetry.Sample{}, false }
func (f *fakeSampler) Start(context.Context)                        { f.mu.Lock(); f.started = true; f.mu.Unlock() }
func (f *fakeSampler) Stop()                                        { f.mu.Lock(); f.stopped = true; f.mu.Unlock() }

// samplers makes fakeSamplers and keeps them, newest last.
type samplers struct{ made []*fakeSampler }

func (s *samplers) make(interval time.Duration) app.LiveTelemetry {
	f := &fakeSampler{interval: interval}
	s.made = append(s.made, f)
	return f
}

func (s *samplers) last() *fakeSampler { return s.made[len(s.made)-1] }

func TestSettingsIsTheLastScreen(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	var titles []string
	for _, it := range u.Tabs.Items {
		titles = append(titles, it.Text)
	}
	if got := strings.Join(titles, ","); got != "Hardware,Server,Matrix,Run,Results,History,Settings" {
		t.Errorf("screens = %s", got)
	}
}

func TestSettingsTimeoutsReachTheRun(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the first run")
	if tgt := eng.lastTarget(); tgt.FirstTokenTimeout != 5*time.Minute || tgt.StallTimeout != 30*time.Second {
		t.Errorf("default timeouts: first token %v, stall %v; want the engine's 5m0s and 30s", tgt.FirstTokenTimeout, tgt.StallTimeout)
	}

	s := u.settings
	s.FirstToken.SetText("2")
	s.Stall.SetText("45s")
	s.OnApply()
	if s.Banner.Visible() || s.Status.Text != "Saved." {
		t.Fatalf("apply: banner %q, status %q", s.Banner.Current.Message, s.Status.Text)
	}
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the second run")
	if tgt := eng.lastTarget(); tgt.FirstTokenTimeout != 2*time.Minute || tgt.StallTimeout != 45*time.Second {
		t.Errorf("timeouts after Apply: first token %v, stall %v; want 2m0s and 45s", tgt.FirstTokenTimeout, tgt.StallTimeout)
	}
	if s.FirstToken.Text != "2" || s.Stall.Text != "45" {
		t.Errorf("fields after Apply show %q min and %q s", s.FirstToken.Text, s.Stall.Text)
	}
}

func TestSettingsBadInputIsRefused(t *testing.T) {
	uiOnly(t)
	tests := []struct {
		name, message string
		edit          func(s *settings.Tab)
	}{
		{"stall not a number", `Stall timeout: "soon" is not a duration.`, func(s *settings.Tab) { s.Stall.SetText("soon") }},
		{"interval too short", "Telemetry interval: 10ms is out of range.", func(s *settings.Tab) { s.Interval.SetText("10ms") }},
		{"relative runs folder", "The runs folder runs is not a full path.", func(s *settings.Tab) { s.RunsDir.SetText("runs") }},
		{"export folder is a file", "is a file, not a folder.", func(s *settings.Tab) {
			file := filepath.Join(s.U.Deps.RunsDir, "file")
			_ = os.WriteFile(file, nil, 0o644)
			s.ExportDir.SetText(file)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
			s := u.settings
			s.FirstToken.SetText("3") // valid, but not saved either: nothing changes
			tt.edit(s)
			s.OnApply()
			n := s.Banner.Current
			if !s.Banner.Visible() || !strings.Contains(n.Message, tt.message) || n.Action == "" {
				t.Errorf("banner %v: %q / %q; want %q and what to do", s.Banner.Visible(), n.Message, n.Action, tt.message)
			}
			if strings.Contains(n.Message, "--") || strings.Contains(n.Action, "--") {
				t.Errorf("the banner names a flag: %q %q", n.Message, n.Action)
			}
			if u.Prefs.P.String(app.PrefApp) != "" || u.State.Settings.FirstTokenTimeout != 0 {
				t.Errorf("a refused Apply changed the settings: %q, %+v", u.Prefs.P.String(app.PrefApp), u.State.Settings)
			}
			s.OnDefaults()
			if s.Banner.Visible() {
				t.Errorf("Restore defaults left the banner: %q", s.Banner.Current.Message)
			}
		})
	}
}

func TestSettingsRunsFolderMovesHistory(t *testing.T) {
	a := apptest.NewTempApp(t)
	d := testDeps(t, &fakeEngine{})
	u := newUI(a, test.NewTempWindow(t, nil), d, app.Options{})
	defer u.shutdown()
	dir := filepath.Join(t.TempDir(), "elsewhere", "runs")
	u.settings.RunsDir.SetText(dir)
	u.settings.OnApply()
	if u.RunsDir() != dir {
		t.Fatalf("runs folder = %q, want %q (banner %q)", u.RunsDir(), dir, u.settings.Banner.Current.Message)
	}
	rep := engine.Report{Run: engine.RunInfo{ServedModel: "tiny", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		Results: []engine.Result{{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 1024}, Status: engine.StatusValid}}}
	saved, err := saveRun(u.UI, rep)
	if err != nil || filepath.Dir(saved) != dir {
		t.Fatalf("saved in %q (%v), want under %s", saved, err, dir)
	}
	if len(u.history.Entries) != 1 || !strings.Contains(u.history.Where.Text, dir) {
		t.Errorf("History lists %d runs under %q", len(u.history.Entries), u.history.Where.Text)
	}

	again := newUI(a, test.NewTempWindow(t, nil), d, app.Options{})
	defer again.shutdown()
	if again.RunsDir() != dir || again.settings.RunsDir.Text != dir || len(again.history.Entries) != 1 {
		t.Errorf("after relaunch: runs folder %q (field %q), %d runs listed", again.RunsDir(), again.settings.RunsDir.Text, len(again.history.Entries))
	}
	again.settings.OnDefaults()
	if again.RunsDir() != d.RunsDir || len(again.history.Entries) != 0 {
		t.Errorf("Restore defaults: runs folder %q, %d runs listed; want %s, none", again.RunsDir(), len(again.history.Entries), d.RunsDir)
	}
}

func TestSettingsThemeAppliedAtOnceAndRemembered(t *testing.T) {
	uiOnly(t)
	a := apptest.NewTempApp(t)
	d := testDeps(t, &fakeEngine{})
	u := newUI(a, test.NewTempWindow(t, nil), d, app.Options{})
	defer u.shutdown()
	for _, tt := range []struct {
		label string
		dark  bool
	}{{"Light", false}, {"Dark", true}, {"Light", false}} {
		u.settings.Theme.SetSelected(tt.label)
		if u.DarkTheme() != tt.dark || theme.Color(theme.ColorNameBackground) != theme.DefaultTheme().Color(theme.ColorNameBackground, variantOf(tt.dark)) {
			t.Errorf("%s: dark %v, background %v", tt.label, u.DarkTheme(), theme.Color(theme.ColorNameBackground))
		}
	}
	u.settings.Theme.SetSelected("Dark")
	again := newUI(a, test.NewTempWindow(t, nil), d, app.Options{})
	defer again.shutdown()
	if again.settings.Theme.Selected != "Dark" || !again.DarkTheme() {
		t.Errorf("after relaunch: theme %q, dark %v", again.settings.Theme.Selected, again.DarkTheme())
	}
	again.settings.Theme.SetSelected("Follow system")
	if _, forced := a.Settings().Theme().(app.VariantTheme); forced || again.State.Settings.Theme != app.ThemeSystem {
		t.Errorf("Follow system keeps a forced theme (%T) or remembers %q", a.Settings().Theme(), again.State.Settings.Theme)
	}
}

func variantOf(dark bool) fyne.ThemeVariant {
	if dark {
		return theme.VariantDark
	}
	return theme.VariantLight
}

func TestSettingsIntervalReplacesTheSampler(t *testing.T) {
	made := &samplers{}
	d := testDeps(t, &fakeEngine{events: cannedEvents()[:2], hold: true})
	d.Hardware, d.NewTelemetry = oneGPU, made.make
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	if len(made.made) != 1 || made.last().interval != time.Second || u.Deps.Telemetry != made.last() {
		t.Fatalf("at start: %d samplers, want one at 1s in use", len(made.made))
	}
	first := made.last()
	u.settings.Interval.SetText("0.5")
	u.settings.OnApply()
	if len(made.made) != 2 || made.last().interval != 500*time.Millisecond || !first.stopped || !made.last().started {
		t.Fatalf("after Apply: %d samplers, last at %v; first stopped %v, new started %v", len(made.made), made.last().interval, first.stopped, made.last().started)
	}

	// During a run the engine reads the sampler: the new one waits for the end.
	u.run.OnStart()
	u.settings.Interval.SetText("2")
	u.settings.OnApply()
	if len(made.made) != 2 || !strings.Contains(u.settings.Status.Text, "when the run ends") {
		t.Errorf("during a run: %d samplers, status %q", len(made.made), u.settings.Status.Text)
	}
	u.run.CancelNow()
	waitFor(t, u.run.UiDone, "the run to end")
	if len(made.made) != 3 || made.last().interval != 2*time.Second || u.Deps.Telemetry != made.last() {
		t.Errorf("after the run: %d samplers, last at %v", len(made.made), made.last().interval)
	}
}

func TestHelpOverlayOpensWithF1AndQuestionMarkAndClosesWithEsc(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()[:2], hold: true}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	c := u.Win.Canvas()
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyF1})
	if !u.settings.Help.Open() || c.Overlays().Top() == nil {
		t.Fatal("F1 does not show the shortcuts")
	}
	for _, s := range appwidget.ShortcutList {
		if !apptest.HasText(c.Overlays().Top(), s.What) {
			t.Errorf("the help does not list %s (%s)", s.Keys, s.What)
		}
	}
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if u.settings.Help.Open() || c.Overlays().Top() != nil {
		t.Error("Esc does not close the shortcuts")
	}
	c.OnTypedRune()('?')
	if !u.settings.Help.Open() {
		t.Error("? does not show the shortcuts")
	}
	u.run.OnStart()
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if u.settings.Help.Open() || !u.run.Running() {
		t.Errorf("Esc with the help open during a run: help open %v, running %v; want the help closed, the run going", u.settings.Help.Open(), u.run.Running())
	}
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	waitFor(t, eng.cancelled, "the second Esc to cancel the run")
}

// TestShortcutsAreNamedWhereTheyAct checks that the buttons a shortcut
// presses say it in their label (Fyne has no tooltips) and that the
// Settings screen lists every shortcut.
func TestShortcutsAreNamedWhereTheyAct(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	for keys, label := range map[string]string{"Ctrl+R": u.run.StartBtn.Text, "Esc": u.run.CancelBtn.Text, "Ctrl+E": u.results.ExportAllBtn.Text} {
		if !strings.Contains(label, "("+keys+")") {
			t.Errorf("button %q does not name its shortcut %s", label, keys)
		}
		found := false
		for _, s := range appwidget.ShortcutList {
			found = found || strings.Contains(s.Keys, keys)
		}
		if !found {
			t.Errorf("%s is missing from the list of shortcuts", keys)
		}
	}
	u.Show(app.TabSettings)
	for _, s := range appwidget.ShortcutList {
		if !apptest.HasText(u.Tabs.Selected().Content, s.What) {
			t.Errorf("the Settings screen does not list %s", s.Keys)
		}
	}
}
