package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Theme choices, as the preferences keep them ("" follows the system).
const (
	ThemeSystem = ""
	ThemeLight  = "light"
	ThemeDark   = "dark"
)

// VariantTheme is Fyne's default theme held in one variant whatever the
// system prefers: Fyne 2.7 has no other way to force light or dark.
type VariantTheme struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

// Color is the default theme's colour n in the held variant.
func (t VariantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.variant)
}

// ApplyTheme shows the app in choice (themeSystem, themeLight or
// themeDark), at once: Fyne refreshes every widget on screen.
func ApplyTheme(a fyne.App, choice string) {
	switch choice {
	case ThemeLight:
		a.Settings().SetTheme(VariantTheme{theme.DefaultTheme(), theme.VariantLight})
	case ThemeDark:
		a.Settings().SetTheme(VariantTheme{theme.DefaultTheme(), theme.VariantDark})
	default:
		a.Settings().SetTheme(theme.DefaultTheme())
	}
}

// shownVariant is the variant the app shows: the one held by a forced
// theme, else the system's.
func shownVariant(a fyne.App) fyne.ThemeVariant {
	if t, ok := a.Settings().Theme().(VariantTheme); ok {
		return t.variant
	}
	return a.Settings().ThemeVariant()
}
