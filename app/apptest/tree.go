package app

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// walk calls f on obj and every object inside it (widgets through their renderers).
func walk(obj fyne.CanvasObject, f func(fyne.CanvasObject) bool) bool {
	if obj == nil {
		return false
	}
	if f(obj) {
		return true
	}
	switch o := obj.(type) {
	case *fyne.Container:
		for _, c := range o.Objects {
			if walk(c, f) {
				return true
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(o).Objects() {
			if walk(c, f) {
				return true
			}
		}
	}
	return false
}

// hasText reports whether a label, text or card inside obj shows s.
func hasText(obj fyne.CanvasObject, s string) bool {
	return walk(obj, func(o fyne.CanvasObject) bool {
		switch w := o.(type) {
		case *widget.Label:
			return strings.Contains(w.Text, s)
		case *widget.Card:
			return strings.Contains(w.Title, s) || strings.Contains(w.Subtitle, s)
		case *canvas.Text:
			return strings.Contains(w.Text, s)
		}
		return false
	})
}

// findButton returns the button inside obj whose text is s.
func findButton(obj fyne.CanvasObject, s string) *widget.Button {
	var found *widget.Button
	walk(obj, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*widget.Button); ok && b.Text == s {
			found = b
			return true
		}
		return false
	})
	return found
}
