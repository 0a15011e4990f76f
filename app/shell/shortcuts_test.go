package shell

import (
	"testing"

	"speedmatrix/app"

	"fyne.io/fyne/v2"
)

// shortcutter is the part of a canvas that dispatches shortcuts.
type shortcutter interface {
	TypedShortcut(fyne.Shortcut)
}

func TestShortcutsStartAndCancel(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()[:4], hold: true}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	c, ok := u.Win.Canvas().(shortcutter)
	if !ok {
		t.Skip("the test canvas does not dispatch shortcuts")
	}
	c.TypedShortcut(shortcutStart)
	if !u.run.Running() || u.Tabs.Selected() != u.RunItem {
		t.Fatalf("Ctrl+R: running %v on %q", u.run.Running(), u.Tabs.Selected().Text)
	}
	u.Win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	waitFor(t, eng.cancelled, "Esc to cancel the run")
	waitFor(t, u.run.UiDone, "the run to end")
	c.TypedShortcut(shortcutExport) // with results shown, Ctrl+E opens the export dialog
	if u.Tabs.Selected().Text != app.TabResults || u.Win.Canvas().Overlays().Top() == nil {
		t.Errorf("Ctrl+E: on %q, dialog shown %v", u.Tabs.Selected().Text, u.Win.Canvas().Overlays().Top() != nil)
	}
}
