package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
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
