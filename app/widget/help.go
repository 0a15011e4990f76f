package widget

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// shortcutHelp is one keyboard shortcut as the help lists it.
type shortcutHelp struct {
	Keys string // "Ctrl+R"
	What string // what it does, and where
}

// ShortcutList is every keyboard shortcut of the app: the help overlay, the
// Settings screen and the buttons' labels say the same (see the test).
var ShortcutList = []shortcutHelp{
	{"Ctrl+R", "Start a run with the Matrix plan against the Server target (from any screen)"},
	{"Esc", "Cancel the run in progress (the finished cells are kept); close this list"},
	{"Ctrl+E", "Export every file of the results shown (Results screen)"},
	{"F1 or ?", "Show this list (when no text field has the focus)"},
}

// shortcutRows lays the shortcuts out as keys and what they do.
func shortcutRows() fyne.CanvasObject {
	f := widget.NewForm()
	for _, s := range ShortcutList {
		what := widget.NewLabel(s.What)
		what.Wrapping = fyne.TextWrapWord
		f.Append(s.Keys, what)
	}
	return f
}

// HelpOverlay is the list of shortcuts over the window: F1 or ? opens it,
// Esc or its button closes it.
type HelpOverlay struct {
	Win fyne.Window
	d   *dialog.CustomDialog
}

// Toggle opens the list, or closes it when it is open.
func (h *HelpOverlay) Toggle() {
	if h.Open() {
		h.Close()
		return
	}
	h.d = dialog.NewCustom("Keyboard shortcuts", "Close (Esc)", shortcutRows(), h.Win)
	h.d.SetOnClosed(func() { h.d = nil })
	h.d.Resize(fyne.NewSize(560, 0))
	h.d.Show()
}

// Open reports whether the list is shown.
func (h *HelpOverlay) Open() bool { return h.d != nil }

// Close hides the list.
func (h *HelpOverlay) Close() {
	if h.d != nil {
		h.d.Hide()
	}
}

// helpButton opens the list from a screen.
func helpButton(h *HelpOverlay) *widget.Button {
	return widget.NewButton("Show keyboard shortcuts (F1)", h.Toggle)
}

// ShortcutsCard is the Settings screen's list of shortcuts.
func ShortcutsCard(h *HelpOverlay) fyne.CanvasObject {
	return widget.NewCard("Keyboard shortcuts", "the buttons show their shortcut in their label too",
		container.NewVBox(shortcutRows(), container.NewHBox(helpButton(h))))
}
