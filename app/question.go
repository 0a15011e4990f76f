package app

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// questionWidth is how wide a question's text wraps: a few lines rather
// than one long one, or one word a line.
const questionWidth = 440

// showQuestion asks a question in a dialog over win: its title, the
// message, and one button per answer, in words, without icons. answers
// run from the main one (highlighted, rightmost) to the one that leaves
// things as they are (leftmost): "Replace", "New folder", "Cancel". pick
// gets the index of the answer chosen.
func showQuestion(win fyne.Window, title, message string, answers []string, pick func(int)) {
	text := widget.NewLabel(message)
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomWithoutButtons(title, container.New(&FixedWidth{Width: questionWidth}, text), win)
	buttons := make([]fyne.CanvasObject, len(answers))
	for i, a := range answers {
		b := widget.NewButton(a, func() {
			d.Hide()
			pick(i)
		})
		if i == 0 {
			b.Importance = widget.HighImportance
		}
		buttons[i] = b
	}
	slices.Reverse(buttons)
	d.SetButtons(buttons)
	d.Show()
}

// FixedWidth lays its one object out at width, as tall as it then needs:
// a wrapped label wraps at width instead of at its longest word.
type FixedWidth struct{ Width float32 }

// Layout gives every object the whole size.
func (f *FixedWidth) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Resize(size)
	}
}

// MinSize is width wide, and as tall as the objects are at that width.
func (f *FixedWidth) MinSize(objects []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objects {
		if o.Size().Width != f.Width {
			o.Resize(fyne.NewSize(f.Width, o.MinSize().Height))
		}
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(f.Width, h)
}
