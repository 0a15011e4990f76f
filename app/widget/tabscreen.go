package widget

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// TabScreen holds one screen of the app's tabs. Fyne's AppTabs refreshes the
// content of every tab whenever it refreshes: when it is made, when a tab
// is selected, when a tab's title changes ("Run 40%"). Each of those
// walked all seven screens, shown or not, and laid out their text again
// (in app/shell's tests a third of the CPU, most of it building the tabs).
// A TabScreen passes a refresh on to its content only when what a refresh is
// for has changed there: the theme, its colours or its sizes. Its content
// refreshes its own widgets as it changes them, as before.
type TabScreen struct {
	widget.BaseWidget
	content fyne.CanvasObject
	look    screenLook
	seen    bool // a refresh has reached the content once
}

// screenLook is what a theme change would change.
type screenLook struct {
	variant                 fyne.ThemeVariant
	bg, fg, primary, input  color.Color
	text, padding, inputPad float32
}

// NewTabScreen holds content.
func NewTabScreen(content fyne.CanvasObject) *TabScreen {
	s := &TabScreen{content: content}
	s.ExtendBaseWidget(s)
	return s
}

// Content is what the screen holds.
func (s *TabScreen) Content() fyne.CanvasObject { return s.content }

// Refresh passes the refresh on to the content the first time and after a
// change of theme, and not otherwise.
func (s *TabScreen) Refresh() {
	look := currentLook()
	if s.seen && look == s.look {
		return
	}
	s.seen, s.look = true, look
	s.BaseWidget.Refresh()
}

// currentLook is the look the app's theme gives now.
func currentLook() screenLook {
	// The app's theme, not s.Theme(): BaseWidget keeps that until its own
	// Refresh, which a refresh held back here never reaches.
	th := fyne.CurrentApp().Settings().Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	return screenLook{
		variant: v,
		bg:      th.Color(theme.ColorNameBackground, v), fg: th.Color(theme.ColorNameForeground, v),
		primary: th.Color(theme.ColorNamePrimary, v), input: th.Color(theme.ColorNameInputBackground, v),
		text: th.Size(theme.SizeNameText), padding: th.Size(theme.SizeNamePadding), inputPad: th.Size(theme.SizeNameInnerPadding),
	}
}

func (s *TabScreen) CreateRenderer() fyne.WidgetRenderer { return &screenRenderer{s: s} }

type screenRenderer struct{ s *TabScreen }

func (r *screenRenderer) Layout(size fyne.Size) {
	r.s.content.Resize(size)
	r.s.content.Move(fyne.NewPos(0, 0))
}
func (r *screenRenderer) MinSize() fyne.Size           { return r.s.content.MinSize() }
func (r *screenRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.s.content} }
func (r *screenRenderer) Refresh()                     { r.s.content.Refresh() }
func (r *screenRenderer) Destroy()                     {}
