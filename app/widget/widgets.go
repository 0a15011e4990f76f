package widget

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ScreenHeader is the title and one-line explanation at the top of a screen.
func ScreenHeader(title, subtitle string) fyne.CanvasObject {
	t := NewThemedText(title, theme.ColorNameForeground)
	t.Text.TextSize = theme.TextHeadingSize()
	t.Text.TextStyle = fyne.TextStyle{Bold: true}
	sub := widget.NewLabel(subtitle)
	sub.Wrapping = fyne.TextWrapWord
	return container.NewVBox(t, sub)
}

// Screen lays out a header, a body that takes the remaining space, and an
// optional bar of actions at the bottom, with padding around.
func Screen(header, body, actions fyne.CanvasObject) fyne.CanvasObject {
	var bottom fyne.CanvasObject
	if actions != nil {
		bottom = container.NewVBox(widget.NewSeparator(), actions)
	}
	return container.NewPadded(container.NewBorder(header, bottom, nil, nil, body))
}

// Panel puts obj on the input background, framing a log or a preview.
func Panel(obj fyne.CanvasObject) fyne.CanvasObject {
	return container.NewStack(newThemedRect(theme.ColorNameInputBackground), obj)
}

// KeyValues is a two-column form of read-only facts.
func KeyValues(rows ...[2]string) *widget.Form {
	f := widget.NewForm()
	for _, r := range rows {
		if r[1] == "" {
			continue
		}
		v := widget.NewLabel(r[1])
		v.Wrapping = fyne.TextWrapWord
		v.TextStyle = fyne.TextStyle{Bold: true}
		f.Append(r[0], v)
	}
	return f
}

// Badge is a small coloured label, e.g. "simulated (profile tiny)".
func Badge(text string, fill color.Color) fyne.CanvasObject {
	b, _ := TextBadge(text, fill)
	return b
}

// TextBadge is a badge with its text, to change later.
func TextBadge(text string, fill color.Color) (fyne.CanvasObject, *canvas.Text) {
	bg := canvas.NewRectangle(fill)
	bg.CornerRadius = 6
	l := canvas.NewText(text, color.White)
	l.TextStyle = fyne.TextStyle{Bold: true}
	return container.NewStack(bg, container.New(layout.NewCustomPaddedLayout(2, 2, 8, 8), l)), l
}

// SimulatedColor is the colour of every "simulated" badge.
var SimulatedColor = color.NRGBA{R: 0xb4, G: 0x53, B: 0x09, A: 0xff}

// MeasuredColor is the colour of the "Measured" badge.
var MeasuredColor = color.NRGBA{R: 0x15, G: 0x80, B: 0x3d, A: 0xff}

// columnsLayout puts its objects side by side in as many columns as the
// width allows (each at least colWidth wide, at most maxCols), row by row:
// a wide window uses its width, a narrow one gets a single column.
type columnsLayout struct {
	colWidth float32
	maxCols  int
}

// NewColumns lays objs out in columns of at least colWidth, at most maxCols.
func NewColumns(colWidth float32, maxCols int, objs ...fyne.CanvasObject) *fyne.Container {
	return container.New(&columnsLayout{colWidth: colWidth, maxCols: maxCols}, objs...)
}

func visibleObjects(objs []fyne.CanvasObject) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for _, o := range objs {
		if o.Visible() {
			out = append(out, o)
		}
	}
	return out
}

func (l *columnsLayout) columns(width float32, n int) int {
	return max(1, min(int(width/l.colWidth), l.maxCols, n))
}

// Layout places the objects row by row; a row is as tall as its tallest.
func (l *columnsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs = visibleObjects(objs)
	cols, pad := l.columns(size.Width, len(objs)), theme.Padding()
	w := (size.Width - pad*float32(cols-1)) / float32(cols)
	y := float32(0)
	for i := 0; i < len(objs); i += cols {
		row := objs[i:min(i+cols, len(objs))]
		h := float32(0)
		for _, o := range row {
			h = max(h, o.MinSize().Height)
		}
		for j, o := range row {
			o.Move(fyne.NewPos(float32(j)*(w+pad), y))
			o.Resize(fyne.NewSize(w, h))
		}
		y += h + pad
	}
}

// MinSize is one column's: the widest object, every object's height.
func (l *columnsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	objs = visibleObjects(objs)
	for i, o := range objs {
		m := o.MinSize()
		s.Width = max(s.Width, m.Width)
		s.Height += m.Height
		if i > 0 {
			s.Height += theme.Padding()
		}
	}
	return s
}

// sideLayout puts a side panel right of the main one in a wide window
// (wider than wideAt, taking sideShare of the width); in a narrow one the
// main panel has the whole area and the side panel is hidden. onWide hears
// of each change between the two.
type sideLayout struct {
	wideAt, sideShare float32
	onWide            func(wide bool)
	wide, known       bool
}

// NewSide lays main and side out with a sideLayout.
func NewSide(wideAt, sideShare float32, onWide func(bool), main, side fyne.CanvasObject) *fyne.Container {
	return container.New(&sideLayout{wideAt: wideAt, sideShare: sideShare, onWide: onWide}, main, side)
}

// Layout places objs[0] (main) and objs[1] (side).
func (l *sideLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	main, side, pad := objs[0], objs[1], theme.Padding()
	wide := size.Width >= l.wideAt
	if !l.known || wide != l.wide {
		l.known, l.wide = true, wide
		if wide {
			side.Show()
		} else {
			side.Hide()
		}
		if l.onWide != nil {
			l.onWide(wide)
		}
	}
	main.Move(fyne.NewPos(0, 0))
	if !wide {
		main.Resize(size)
		return
	}
	sw := size.Width * l.sideShare
	main.Resize(fyne.NewSize(size.Width-sw-pad, size.Height))
	side.Move(fyne.NewPos(size.Width-sw, 0))
	side.Resize(fyne.NewSize(sw, size.Height))
}

// MinSize is the main panel's: the side panel shows only when there is room.
func (l *sideLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

// ShareTop lays out two objects one above the other: the first (a scroll)
// as tall as natural asks, up to what leaves the second keep, and at least
// share of the height when there is less; the second under it in the rest.
// So a panel of figures over a log stays whole in a tall window, scrolls
// in a short one, and the log keeps the rest.
type ShareTop struct {
	Share   float32
	Keep    float32           // what the second object gets when the height allows
	Natural fyne.CanvasObject // what the first object scrolls
}

// Layout places the first object on top and the second under it.
func (l *ShareTop) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	top := min(l.Natural.MinSize().Height, max(size.Height*l.Share, size.Height-l.Keep))
	objects[0].Move(fyne.NewPos(0, 0))
	objects[0].Resize(fyne.NewSize(size.Width, top))
	objects[1].Move(fyne.NewPos(0, top))
	objects[1].Resize(fyne.NewSize(size.Width, size.Height-top))
}

// MinSize is as wide as either object, and as tall as the second needs.
func (l *ShareTop) MinSize(objects []fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(max(objects[0].MinSize().Width, objects[1].MinSize().Width), objects[1].MinSize().Height)
}

// SetOptional shows text in l, or hides l when text is "".
func SetOptional(l *widget.Label, text string) {
	l.SetText(text)
	if text == "" {
		l.Hide()
	} else {
		l.Show()
	}
}

// Sentence capitalises s and ends it with a full stop.
func Sentence(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + strings.TrimSuffix(s[1:], ".") + "."
}
