package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Theme choices, as the preferences keep them ("" follows the system).
const (
	themeSystem = ""
	themeLight  = "light"
	themeDark   = "dark"
)

// variantTheme is Fyne's default theme held in one variant whatever the
// system prefers: Fyne 2.7 has no other way to force light or dark.
type variantTheme struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

// Color is the default theme's colour n in the held variant.
func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.variant)
}

// applyTheme shows the app in choice (themeSystem, themeLight or
// themeDark), at once: Fyne refreshes every widget on screen.
func applyTheme(a fyne.App, choice string) {
	switch choice {
	case themeLight:
		a.Settings().SetTheme(variantTheme{theme.DefaultTheme(), theme.VariantLight})
	case themeDark:
		a.Settings().SetTheme(variantTheme{theme.DefaultTheme(), theme.VariantDark})
	default:
		a.Settings().SetTheme(theme.DefaultTheme())
	}
}

// shownVariant is the variant the app shows: the one held by a forced
// theme, else the system's.
func shownVariant(a fyne.App) fyne.ThemeVariant {
	if t, ok := a.Settings().Theme().(variantTheme); ok {
		return t.variant
	}
	return a.Settings().ThemeVariant()
}

// darkTheme reports whether the app shows its dark theme variant: the
// on-screen charts then use the charts' dark theme too.
func (u *ui) darkTheme() bool {
	return shownVariant(u.app) == theme.VariantDark
}

// themedRect is a rectangle filled with a theme colour that follows a
// change of theme (a plain canvas.Rectangle keeps the colour it was made
// with).
type themedRect struct {
	widget.BaseWidget
	name fyne.ThemeColorName
	rect *canvas.Rectangle
}

// newThemedRect is a rectangle of colour name with the input corners.
func newThemedRect(name fyne.ThemeColorName) *themedRect {
	r := &themedRect{name: name, rect: canvas.NewRectangle(theme.Color(name))}
	r.rect.CornerRadius = theme.InputRadiusSize()
	r.ExtendBaseWidget(r)
	return r
}

// Refresh takes the colour from the current theme.
func (r *themedRect) Refresh() {
	r.rect.FillColor = theme.Color(r.name)
	r.rect.CornerRadius = theme.InputRadiusSize()
	r.BaseWidget.Refresh()
}

func (r *themedRect) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.rect) }

// themedText is a canvas.Text whose colour follows a change of theme; the
// text itself is set on Text, then Refresh.
type themedText struct {
	widget.BaseWidget
	name fyne.ThemeColorName
	Text *canvas.Text
}

// newThemedText is s in colour name.
func newThemedText(s string, name fyne.ThemeColorName) *themedText {
	t := &themedText{name: name, Text: canvas.NewText(s, theme.Color(name))}
	t.ExtendBaseWidget(t)
	return t
}

// Refresh takes the colour from the current theme.
func (t *themedText) Refresh() {
	t.Text.Color = theme.Color(t.name)
	t.BaseWidget.Refresh()
}

func (t *themedText) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(t.Text) }
