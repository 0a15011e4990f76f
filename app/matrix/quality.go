package matrix

import (
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/runs"
)

// qualitySettings is the Quality field remembered between launches.
type qualitySettings struct {
	Mode string `json:"mode,omitempty"`
	Path string `json:"path,omitempty"`
}

// referenceName is the name Save as… offers for a new reference.
const referenceName = "reference.quality.json"

// qualityForm is the Matrix screen's Quality field: off, record a
// reference after the matrix, or compare the server with one after it.
type qualityForm struct {
	Mode   *appwidget.DropDown
	file   *widget.Label  // the reference's name, or what to choose
	choose *widget.Button // Choose… (compare) or Save as… (record)
	Row    *fyne.Container
	path   string
	// Pick asks for a reference to compare with, save where to record
	// one; tests replace them.
	Pick, Save func(ok func(path string))
	changed    func()
	// checked is the field as last checked, and ref the reference it
	// read: it is read once when chosen, not at every edit of the form
	// (the run reads it again).
	checked app.QualityInfo
	ref     *quality.Reference
}

// newQualityForm builds the field from what was remembered; changed hears
// every edit.
func (m *Tab) newQualityForm(saved qualitySettings) *widget.FormItem {
	q := &qualityForm{changed: func() {}, path: saved.Path}
	m.Quality = q
	q.Pick, q.Save = m.referenceDialog(false), m.referenceDialog(true)
	q.file = widget.NewLabel("")
	q.file.Truncation = fyne.TextTruncateEllipsis
	q.choose = widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), q.OnChoose)
	q.Mode = appwidget.NewDropDown([]string{app.QualityOff, app.QualityRecord, app.QualityCompare}, func(string) { q.Show(); q.changed() })
	q.Row = container.NewBorder(nil, nil, nil, q.choose, q.file)
	q.Mode.SetSelected(app.QualityOff)
	if saved.Mode == app.QualityRecord || saved.Mode == app.QualityCompare {
		q.Mode.SetSelected(saved.Mode)
	}
	q.Show()
	q.changed = m.RefreshCapacity
	return appwidget.HintedItem(app.QualityField, container.NewVBox(q.Mode, q.Row), "measured after the cells")
}

// info is the field as the state keeps it, checked (checkQuality).
func (q *qualityForm) info() app.QualityInfo {
	i := app.QualityInfo{Mode: q.Mode.Selected, Path: q.path}
	if i.Mode == app.QualityOff {
		i.Path = ""
	}
	if i.Mode == app.QualityCompare && q.checked.Mode == i.Mode && q.checked.Path == i.Path {
		return q.checked
	}
	ref, err := app.CheckQuality(i)
	i.Err, q.checked, q.ref = err, i, nil
	if err == nil && i.Mode == app.QualityCompare {
		q.ref = &ref
	}
	return i
}

// Settings is what the screen remembers of the field.
func (q *qualityForm) Settings() qualitySettings {
	return qualitySettings{Mode: q.Mode.Selected, Path: q.path}
}

// Show shows the file row of the mode chosen: the reference to compare
// with, or the file to record into.
func (q *qualityForm) Show() {
	switch q.Mode.Selected {
	case app.QualityCompare:
		q.choose.SetText("Choose…")
		q.choose.SetIcon(theme.FolderOpenIcon())
		q.file.SetText(fileOr(q.path, "no reference chosen"))
	case app.QualityRecord:
		q.choose.SetText("Save as…")
		q.choose.SetIcon(theme.DocumentSaveIcon())
		q.file.SetText(fileOr(q.path, "choose where to save the reference"))
	default:
		q.Row.Hide()
		return
	}
	q.Row.Show()
}

// fileOr is path's name, or none when there is no path.
func fileOr(path, none string) string {
	if path == "" {
		return none
	}
	return filepath.Base(path)
}

// OnChoose asks for the reference (compare) or where to save it (record).
func (q *qualityForm) OnChoose() {
	ask := q.Pick
	if q.Mode.Selected == app.QualityRecord {
		ask = q.Save
	}
	ask(func(path string) {
		q.path, q.checked = path, app.QualityInfo{} // read it again, even where it was chosen before
		q.Show()
		q.changed()
	})
}

// referenceDialog asks for a reference file: one to open, or (save) where
// to write one.
func (m *Tab) referenceDialog(save bool) func(ok func(path string)) {
	return func(ok func(path string)) {
		filter := storage.NewExtensionFileFilter([]string{".json"})
		if save {
			d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
				if err != nil || w == nil {
					return
				}
				path := w.URI().Path()
				_ = w.Close()
				_ = removeEmpty(path) // the dialog made it; the run writes it when the matrix is done
				ok(path)
			}, m.u.Win)
			d.SetFileName(referenceName)
			d.SetFilter(filter)
			d.Show()
			return
		}
		d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
			if err != nil || r == nil {
				return
			}
			_ = r.Close() // read when chosen and again at Start
			ok(r.URI().Path())
		}, m.u.Win)
		d.SetFilter(filter)
		d.SetConfirmText("Use")
		d.Show()
	}
}

// removeEmpty removes the empty file the save dialog made at path, so that
// the field does not find its own file taken; a file with anything in it
// stays.
func removeEmpty(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > 0 {
		return err
	}
	return os.Remove(path)
}

// pushQuality gives the state the field as it is now, and shows its
// problem when the plan has none.
func (m *Tab) pushQuality(planOK bool) {
	q := m.Quality.info()
	m.u.State.SetQuality(q)
	if planOK && q.Err != nil {
		m.Banner.Show(matrixNotice(q.Err))
	}
}

// qualityEstimate is what the estimate line adds for the phase: its
// time at the priors' rates (runs.Quality.Estimate) when comparing, "" when
// off.
func (m *Tab) qualityEstimate() string {
	switch q := m.Quality; {
	case q.Mode.Selected == app.QualityCompare && q.ref != nil:
		phase := runs.Quality{Reference: *q.ref, NeedleTrials: probe.DefaultNeedleTrials}
		return " · then quality " + app.FormatAbout(phase.Estimate(nil, runs.Rates{}))
	case q.Mode.Selected == app.QualityRecord:
		return " · then a quality reference is recorded"
	}
	return ""
}
