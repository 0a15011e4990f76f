package widget

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

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

// NewThemedText is s in colour name.
func NewThemedText(s string, name fyne.ThemeColorName) *themedText {
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
