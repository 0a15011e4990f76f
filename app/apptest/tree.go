package apptest

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// Walk calls f on obj and every object inside it (widgets through their renderers).
func Walk(obj fyne.CanvasObject, f func(fyne.CanvasObject) bool) bool {
	if obj == nil {
		return false
	}
	if f(obj) {
		return true
	}
	switch o := obj.(type) {
	case *fyne.Container:
		for _, c := range o.Objects {
			if Walk(c, f) {
				return true
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(o).Objects() {
			if Walk(c, f) {
				return true
			}
		}
	}
	return false
}

// HasText reports whether a label, text or card inside obj shows s.
func HasText(obj fyne.CanvasObject, s string) bool {
	return Walk(obj, func(o fyne.CanvasObject) bool {
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

// FindButton returns the button inside obj whose text is s.
func FindButton(obj fyne.CanvasObject, s string) *widget.Button {
	var found *widget.Button
	Walk(obj, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*widget.Button); ok && b.Text == s {
			found = b
			return true
		}
		return false
	})
	return found
}
