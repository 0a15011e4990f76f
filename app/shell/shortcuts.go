package app

import (
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
	c := u.win.Canvas()
	c.AddShortcut(shortcutStart, func(fyne.Shortcut) {
		u.show(tabRun)
		u.run.onStart()
	})
	c.AddShortcut(shortcutExport, func(fyne.Shortcut) {
		if u.results.has {
			u.show(tabResults)
			u.results.onExport()
		}
	})
	help := u.settings.help
	prev := c.OnTypedKey()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		switch {
		case ev.Name == fyne.KeyF1:
			help.toggle()
			return
		case ev.Name == fyne.KeyEscape && help.open():
			help.close()
			return
		}
		if ev.Name == fyne.KeyEscape && u.run.running() {
			u.run.onCancel()
			return
		}
		if prev != nil {
			prev(ev)
		}
	})
	prevRune := c.OnTypedRune()
	c.SetOnTypedRune(func(r rune) {
		if r == '?' {
			help.toggle()
			return
		}
		if prevRune != nil {
			prevRune(r)
		}
	})
}
