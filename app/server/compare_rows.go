package shell

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
)

// compareRow is one field of the dialog and the values it takes.
type compareRow struct {
	field  *appwidget.DropDown
	values *widget.Entry
	err    *widget.Label // why the values are not ones the field takes
	box    *fyne.Container
}

// addRow adds a field to fill in: the first of compareFields not chosen yet.
func (f *compareForm) addRow() {
	options := make([]string, len(compareFields))
	for i, c := range compareFields {
		options[i] = c.option()
	}
	r := &compareRow{values: widget.NewEntry(), err: widget.NewLabel("")}
	r.field = appwidget.NewDropDown(options, func(string) { f.onField(r) })
	r.err.Importance = widget.DangerImportance
	r.err.Wrapping = fyne.TextWrapWord
	r.err.Hide()
	r.values.OnChanged = func(string) { f.refresh() }
	remove := widget.NewButtonWithIcon("", theme.ContentRemoveIcon(), func() { f.removeRow(r) })
	r.box = container.NewVBox(container.NewBorder(nil, nil, container.New(&app.FixedWidth{Width: 300}, r.field), remove, r.values), r.err)
	f.rows = append(f.rows, r)
	f.rowsBox.Add(r.box)
	for _, c := range compareFields {
		if !slices.ContainsFunc(f.rows, func(o *compareRow) bool { return o.key() == c.key }) {
			r.field.SetSelected(c.option())
			break
		}
	}
}

func (f *compareForm) removeRow(r *compareRow) {
	f.rows = slices.DeleteFunc(f.rows, func(o *compareRow) bool { return o == r })
	f.rowsBox.Remove(r.box)
	f.refresh()
}

// onField shows the field's example values as the entry's placeholder.
func (f *compareForm) onField(r *compareRow) {
	if c, ok := r.compareField(); ok {
		r.values.SetPlaceHolder("e.g. " + c.example)
	}
	f.refresh()
}

// compareField is the field chosen in r.
func (r *compareRow) compareField() (compareField, bool) {
	i := slices.IndexFunc(compareFields, func(c compareField) bool { return c.option() == r.field.Selected })
	if i < 0 {
		return compareField{}, false
	}
	return compareFields[i], true
}

// key is the server.toml key of the field chosen in r; "" for none.
func (r *compareRow) key() string {
	c, _ := r.compareField()
	return c.key
}

// axes reads every row into the axes of a grid, showing under each row
// what is wrong with it, and the rows as --vary options (what the sweep
// records, to make its configurations again on resume); ok is false when a
// row has a problem or none has values.
func (f *compareForm) axes() (axes [][]sweep.Setting, vary []string, ok bool) {
	ok = true
	seen := map[string]bool{}
	for _, r := range f.rows {
		msg := ""
		key, text := r.key(), strings.TrimSpace(r.values.Text)
		switch {
		case key == "":
			msg = "Pick a field."
		case seen[key]:
			msg = key + " is listed above already: give all its values there."
		case text == "":
			ok = false // not wrong yet: not typed
		default:
			a, err := sweep.ParseVary([]string{key + "=" + text}, "")
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
	r.err.SetText(msg)
	showIf(r.err, msg != "")
}
