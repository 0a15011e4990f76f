package shell

import (
	"speedmatrix/app"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// Keyboard shortcuts: Ctrl+R starts a run, Esc cancels it, Ctrl+E exports
// the results shown, F1 or ? lists them (shortcutList says so in words).
var (
	shortcutStart  = &desktop.CustomShortcut{KeyName: fyne.KeyR, Modifier: fyne.KeyModifierShortcutDefault}
	shortcutExport = &desktop.CustomShortcut{KeyName: fyne.KeyE, Modifier: fyne.KeyModifierShortcutDefault}
)

// addShortcuts binds the shortcuts on the window's canvas.
func addShortcuts(u *ui) {
	c := u.Win.Canvas()
	c.AddShortcut(shortcutStart, func(fyne.Shortcut) {
		u.Show(app.TabRun)
		u.run.OnStart()
	})
	c.AddShortcut(shortcutExport, func(fyne.Shortcut) {
		if u.results.Has {
			u.Show(app.TabResults)
			u.results.OnExport()
		}
	})
	help := u.settings.Help
	prev := c.OnTypedKey()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		switch {
		case ev.Name == fyne.KeyF1:
			help.Toggle()
			return
		case ev.Name == fyne.KeyEscape && help.Open():
			help.Close()
			return
		}
		if ev.Name == fyne.KeyEscape && u.run.Running() {
			u.run.OnCancel()
			return
		}
		if prev != nil {
			prev(ev)
		}
	})
	prevRune := c.OnTypedRune()
	c.SetOnTypedRune(func(r rune) {
		if r == '?' {
			help.Toggle()
			return
		}
		if prevRune != nil {
			prevRune(r)
		}
	})
}
