package widget

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// DropDown is the app's drop-down: a widget.Select whose menu opens only
// while Fyne knows which canvas it is on.
//
// A Select asks the driver for its canvas as its menu opens, and Fyne's
// menu dereferences that canvas unchecked: with none it panics with a nil
// pointer inside Fyne's drop-down code (fyne-io/fyne#5965, guarded upstream
// only after Fyne 2.7.1). The driver's answer comes from a cache whose
// entries expire when an object was neither asked for nor refreshed for
// FYNE_CACHE (10 s in this app, app/shell/memory.go), and only frames with nothing
// to redraw keep the objects on screen alive: while every frame redraws
// something (a run under memory pressure, frames slower than the run's
// updates), a drop-down on screen loses its canvas, and the click after
// the next cache clean opened its menu on none. That is the crash seen
// after clicking "Save one file…" at 1920 × 1080. Such a click now asks for
// the window to be redrawn, which registers the drop-down again, and the
// next click opens the menu.
type DropDown struct {
	widget.Select
	// CanvasFor is the driver's CanvasForObject; tests replace it.
	CanvasFor func(fyne.CanvasObject) fyne.Canvas
}

// NewDropDown is a drop-down of options; changed, when set, hears every
// choice (Select's OnChanged).
func NewDropDown(options []string, changed func(string)) *DropDown {
	d := &DropDown{CanvasFor: func(o fyne.CanvasObject) fyne.Canvas { return fyne.CurrentApp().Driver().CanvasForObject(o) }}
	d.Options, d.OnChanged = options, changed
	d.ExtendBaseWidget(d)
	return d
}

// Tapped opens the menu, once the drop-down is on a known canvas.
func (d *DropDown) Tapped(ev *fyne.PointEvent) {
	if d.known() {
		d.Select.Tapped(ev)
	}
}

// TypedKey opens the menu (Space, Up, Down) once the drop-down is on a
// known canvas; Left and Right choose the previous and next option.
func (d *DropDown) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeySpace, fyne.KeyUp, fyne.KeyDown:
		if !d.known() {
			return
		}
	}
	d.Select.TypedKey(ev)
}

// known reports whether Fyne knows the drop-down's canvas; when it does
// not, it has every window redraw the drop-down, which registers it again.
func (d *DropDown) known() bool {
	if d.CanvasFor(d) != nil {
		return true
	}
	for _, w := range fyne.CurrentApp().Driver().AllWindows() {
		w.Canvas().Refresh(d)
	}
	return false
}
