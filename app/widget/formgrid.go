package widget

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// FormRow is one row of a form: a label, its field, and an optional hint
// under the field.
type FormRow struct {
	Label string
	Field fyne.CanvasObject
	Hint  string
}

// FormColumn is the label column shared by several forms of one screen:
// every label takes the width of the widest, so the fields of all the forms
// line up (each widget.Form sizes its own column, and sections of
// different forms then zigzag).
type FormColumn struct {
	labels []*widget.Label
}

// Form lays rows out as label, field and hint, in this column.
func (c *FormColumn) Form(rows ...FormRow) *fyne.Container {
	objs := make([]fyne.CanvasObject, 0, 3*len(rows))
	for _, r := range rows {
		l := widget.NewLabelWithStyle(r.Label, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
		c.labels = append(c.labels, l)
		hint := widget.NewRichText(&widget.TextSegment{Text: r.Hint, Style: hintStyle})
		hint.Wrapping = fyne.TextWrapWord
		if r.Hint == "" {
			hint.Hide()
		}
		objs = append(objs, l, r.Field, hint)
	}
	return container.New(&formLayout{col: c}, objs...)
}

// hintStyle is a hint's text: small, in the placeholder colour (as
// widget.Form writes its hints).
var hintStyle = widget.RichTextStyle{ColorName: theme.ColorNamePlaceHolder, SizeName: theme.SizeNameCaptionText, Inline: true}

// width is the width of the widest label.
func (c *FormColumn) width() float32 {
	var w float32
	for _, l := range c.labels {
		w = max(w, l.MinSize().Width)
	}
	return w
}

// formLayout places objects in threes: label, field (the rest of the
// width) and hint (under the field, when visible).
type formLayout struct {
	col *FormColumn
}

func (l *formLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	pad := theme.Padding()
	var fieldW, h float32
	for i := 0; i+2 < len(objs); i += 3 {
		label, field, hint := objs[i], objs[i+1], objs[i+2]
		fieldW = max(fieldW, field.MinSize().Width)
		h += max(label.MinSize().Height, field.MinSize().Height)
		if hint.Visible() {
			h += hint.MinSize().Height - pad // tucked under the field (see Layout)
		}
		if i > 0 {
			h += pad
		}
	}
	return fyne.NewSize(l.col.width()+pad+fieldW, h)
}

func (l *formLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	labelW := l.col.width()
	fieldX := labelW + pad
	fieldW := max(0, size.Width-fieldX)
	var y float32
	for i := 0; i+2 < len(objs); i += 3 {
		label, field, hint := objs[i], objs[i+1], objs[i+2]
		rowH := max(label.MinSize().Height, field.MinSize().Height)
		label.Move(fyne.NewPos(0, y))
		label.Resize(fyne.NewSize(labelW, label.MinSize().Height))
		field.Move(fyne.NewPos(fieldX, y))
		field.Resize(fyne.NewSize(fieldW, rowH))
		y += rowH
		if hint.Visible() {
			// A wrapped label knows its height once it has its width.
			hint.Resize(fyne.NewSize(fieldW, hint.MinSize().Height))
			hint.Resize(fyne.NewSize(fieldW, hint.MinSize().Height))
			hint.Move(fyne.NewPos(fieldX, y-pad))
			y += hint.Size().Height - pad
		}
		y += pad
	}
}

// HintedItem is a row of a widget.Form with its hint. A hint must be on
// its item before the form first draws: widget.Form makes room for a hint
// only under an item that has one when it builds its renderer, and builds
// it again when Fyne drops the renderer of a form hidden for a minute (the
// Matrix form behind a load test). A hint set later appeared only then, and
// its row's field was left where the old layout had put it, over other rows.
func HintedItem(label string, field fyne.CanvasObject, hint string) *widget.FormItem {
	return &widget.FormItem{Text: label, Widget: field, HintText: hint}
}

// FormProblems lists the fields of a shown form that are not where a form
// puts them: each inside the form, with a size, below the one before it.
func FormProblems(form *widget.Form) []string {
	d := fyne.CurrentApp().Driver()
	origin, size := d.AbsolutePositionForObject(form), form.Size()
	var problems []string
	var prevBottom float32
	for _, it := range form.Items {
		if it.Widget == nil || !it.Widget.Visible() {
			continue
		}
		pos, s := d.AbsolutePositionForObject(it.Widget).Subtract(origin), it.Widget.Size()
		const slack = 0.5 // rounding
		switch {
		case s.Width <= 0 || s.Height <= 0:
			problems = append(problems, fmt.Sprintf("%s: the field has no size", it.Text))
		case pos.X < -slack || pos.Y < -slack || pos.X+s.Width > size.Width+slack || pos.Y+s.Height > size.Height+slack:
			problems = append(problems, fmt.Sprintf("%s: the field lies outside its form", it.Text))
		case pos.Y < prevBottom-slack:
			problems = append(problems, fmt.Sprintf("%s: the field overlaps the row above", it.Text))
		}
		prevBottom = max(prevBottom, pos.Y+s.Height)
	}
	return problems
}

// WithHintRoom holds a widget.Form with the width its hints take: the form
// draws a hint an inner padding in from its field but leaves that padding
// out of its width, so the widest hint was cut at the edge of a pane only
// as wide as the form (the Matrix screen at 1,024 px).
func WithHintRoom(form *widget.Form) fyne.CanvasObject {
	return container.New(hintRoom{}, form)
}

// hintRoom lays its one object over its size less a scroll bar's width at
// the right (the pane's scroll bar is drawn over its content, and covered
// the widest hint's last letters), and asks for an inner padding and that
// bar more than the object's width.
type hintRoom struct{}

func (hintRoom) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size.SubtractWidthHeight(theme.ScrollBarSize(), 0))
}

func (hintRoom) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return objs[0].MinSize().AddWidthHeight(theme.InnerPadding()+theme.ScrollBarSize(), 0)
}
