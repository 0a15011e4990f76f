package server

import (
	"errors"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
)

// compareRow is one field of the dialog and the values it takes.
type compareRow struct {
	Field  *appwidget.DropDown
	Values *widget.Entry
	Err    *widget.Label // why the values are not ones the field takes
	box    *fyne.Container
}

// AddRow adds a field to fill in: the first of compareFields not chosen yet.
func (f *CompareForm) AddRow() {
	options := make([]string, len(app.CompareFields))
	for i, c := range app.CompareFields {
		options[i] = c.Option()
	}
	r := &compareRow{Values: widget.NewEntry(), Err: widget.NewLabel("")}
	r.Field = appwidget.NewDropDown(options, func(string) { f.onField(r) })
	r.Err.Importance = widget.DangerImportance
	r.Err.Wrapping = fyne.TextWrapWord
	r.Err.Hide()
	r.Values.OnChanged = func(string) { f.Refresh() }
	remove := widget.NewButtonWithIcon("", theme.ContentRemoveIcon(), func() { f.RemoveRow(r) })
	r.box = container.NewVBox(container.NewBorder(nil, nil, container.New(&app.FixedWidth{Width: 300}, r.Field), remove, r.Values), r.Err)
	f.Rows = append(f.Rows, r)
	f.rowsBox.Add(r.box)
	for _, c := range app.CompareFields {
		if !slices.ContainsFunc(f.Rows, func(o *compareRow) bool { return o.key() == c.Key }) {
			r.Field.SetSelected(c.Option())
			break
		}
	}
}

// RemoveRow takes r, a field to vary, off the form.
func (f *CompareForm) RemoveRow(r *compareRow) {
	f.Rows = slices.DeleteFunc(f.Rows, func(o *compareRow) bool { return o == r })
	f.rowsBox.Remove(r.box)
	f.Refresh()
}

// onField shows the field's example values as the entry's placeholder.
func (f *CompareForm) onField(r *compareRow) {
	if c, ok := r.compareField(); ok {
		r.Values.SetPlaceHolder("e.g. " + c.Example)
	}
	f.Refresh()
}

// compareField is the field chosen in r.
func (r *compareRow) compareField() (app.CompareField, bool) {
	i := slices.IndexFunc(app.CompareFields, func(c app.CompareField) bool { return c.Option() == r.Field.Selected })
	if i < 0 {
		return app.CompareField{}, false
	}
	return app.CompareFields[i], true
}

// key is the server.toml key of the field chosen in r; "" for none.
func (r *compareRow) key() string {
	c, _ := r.compareField()
	return c.Key
}

// axes reads every row into the axes of a grid, showing under each row
// what is wrong with it, and the rows as --vary options (what the sweep
// records, to make its configurations again on resume); ok is false when a
// row has a problem or none has values.
func (f *CompareForm) axes() (axes [][]sweep.Setting, vary []string, ok bool) {
	ok = true
	seen := map[string]bool{}
	for _, r := range f.Rows {
		msg := ""
		key, text := r.key(), strings.TrimSpace(r.Values.Text)
		switch {
		case key == "":
			msg = "Pick a field."
		case seen[key]:
			msg = key + " is listed above already: give all its values there."
		case text == "":
			ok = false // not wrong yet: not typed
		default:
			a, err := runner.ParseVary([]string{key + "=" + text}, "")
			if err != nil {
				msg = varyWords(err)
			} else {
				axes, vary = append(axes, a...), append(vary, key+"="+text)
			}
		}
		seen[key] = true
		r.showErr(msg)
		ok = ok && msg == ""
	}
	return axes, vary, ok && len(axes) > 0
}

// varyWords is a ParseVary error as the dialog says it: without the
// option it names (the field shows it), as a sentence.
func varyWords(err error) string {
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	// Not sentence(): most begin with the key, which keeps its case.
	return strings.TrimSuffix(formWords.Replace(strings.TrimSpace(err.Error())), ".") + "."
}

func (r *compareRow) showErr(msg string) {
	r.Err.SetText(msg)
	appwidget.ShowIf(r.Err, msg != "")
}
