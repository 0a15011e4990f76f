package shell

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// onRename asks for a new name for the selected run.
func (h *historyTab) onRename() {
	i := h.selected
	if i < 0 || i >= len(h.entries) {
		return
	}
	e := h.entries[i]
	h.askName(e.name, func(name string) { h.rename(e.folder, name) })
}

// rename gives the run in folder a name; an empty name gives it back its
// model as title.
func (h *historyTab) rename(folder, name string) {
	name = strings.Join(strings.Fields(name), " ")
	path := filepath.Join(h.dir(), folder, nameFile)
	var err error
	if name == "" {
		if err = os.Remove(path); errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	} else {
		err = report.WriteFileAtomic(path, []byte(name+"\n"))
	}
	if err != nil {
		h.banner.Show(app.Notice{Message: "The run could not be renamed.", Action: "Check that " + filepath.Join(h.dir(), folder) + " is writable.", Detail: err.Error()})
		return
	}
	h.banner.Hide()
	delete(h.cache, folder)
	h.reload()
}

// onDelete asks, then deletes the selected run's folder.
func (h *historyTab) onDelete() {
	i := h.selected
	if i < 0 || i >= len(h.entries) {
		return
	}
	e := h.entries[i]
	dir := filepath.Join(h.dir(), e.folder)
	h.confirm("Delete this run?", fmt.Sprintf("%s\n%s\nIts folder %s and every file in it are deleted.", e.title(), e.detail(), dir),
		func() { h.remove(e.folder) })
}

// remove deletes the run in folder, a folder History lists.
func (h *historyTab) remove(folder string) {
	if h.index(folder) < 0 || folder == "" || filepath.Base(folder) != folder {
		return
	}
	if err := os.RemoveAll(filepath.Join(h.dir(), folder)); err != nil {
		h.banner.Show(app.Notice{Message: "The run could not be deleted.", Action: "Check that " + h.dir() + " is writable.", Detail: err.Error()})
	} else {
		h.banner.Hide()
	}
	delete(h.cache, folder)
	h.reload()
}

// onImport asks for a file to import.
func (h *historyTab) onImport() { h.pickFile(h.importData) }

// importData adds a run made elsewhere to History: a Speed Matrix
// report.json, or an llm-inference-bench results file, told apart by
// content (report.Decode). It is saved in a folder of its own and
// selected.
func (h *historyTab) importData(data []byte, name string) {
	rep, format, err := report.Decode(data, name)
	var fe *report.FormatError
	switch {
	case errors.As(err, &fe):
		h.banner.Show(app.Notice{Message: "This file is not a run Speed Matrix can import.",
			Action: "Choose a report.json saved by Speed Matrix, or the results file llm-inference-bench writes at the end of a run (benchmark_results.json unless it was told otherwise).", Detail: err.Error()})
		return
	case err != nil:
		h.banner.Show(app.Notice{Message: "This file could not be imported.", Action: "It may be damaged, or from a newer version of its tool.", Detail: err.Error()})
		return
	}
	folder := h.importFolder(rep)
	if err := h.u.Deps.Store.Save(filepath.Join(h.dir(), folder), rep); err != nil {
		h.banner.Show(app.Notice{Message: "The run was not imported.", Action: "Check that " + h.dir() + " is writable.", Detail: err.Error()})
		return
	}
	h.banner.Hide()
	h.forget(folder)
	h.reload()
	h.selectFolder(folder)
	msg := fmt.Sprintf("Imported %s (%s).", name, format)
	if imp := rep.Run.Imported; imp != nil {
		msg = fmt.Sprintf("Imported %s: %s measured these figures, not Speed Matrix, and the run says so wherever it is shown.", filepath.Base(name), imp.Label())
	}
	appwidget.SetOptional(h.note, msg) // by the list it was added to, not above a comparison
}

// importFolder is a new folder name for an imported run: <timestamp>-<model>,
// with the tool's name for another tool's run, and a number when taken.
func (h *historyTab) importFolder(rep engine.Report) string {
	if rep.Run.StartedAt.IsZero() {
		rep.Run.StartedAt = h.u.Deps.Now()
	}
	base := runs.Folder(rep)
	if imp := rep.Run.Imported; imp != nil {
		base += "-" + runs.SafeName(imp.Tool)
	}
	folder := base
	for n := 2; ; n++ {
		if _, err := os.Stat(filepath.Join(h.dir(), folder)); errors.Is(err, os.ErrNotExist) {
			return folder
		}
		folder = fmt.Sprintf("%s-%d", base, n)
	}
}

// confirmDialog asks whether to delete; ok runs on yes.
func (h *historyTab) confirmDialog(title, message string, ok func()) {
	h.u.Confirm(title, message, "Delete", "Cancel", func(yes bool) {
		if yes {
			ok()
		}
	})
}

// nameDialog asks for a run's name.
func (h *historyTab) nameDialog(current string, ok func(string)) {
	entry := widget.NewEntry()
	entry.SetText(current)
	entry.SetPlaceHolder("e.g. before the driver update")
	items := []*widget.FormItem{widget.NewFormItem("Name", entry)}
	d := dialog.NewForm("Rename run", "Rename", "Cancel", items, func(yes bool) {
		if yes {
			ok(entry.Text)
		}
	}, h.u.Win)
	d.Resize(fyne.NewSize(420, d.MinSize().Height))
	d.Show()
}

// fileDialog asks for a JSON file and hands over its content.
func (h *historyTab) fileDialog(ok func(data []byte, name string)) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			h.banner.Show(app.Notice{Message: "The file could not be opened.", Action: "Choose another file.", Detail: err.Error()})
			return
		}
		if r == nil {
			return // cancelled
		}
		defer r.Close()
		data, err := report.ReadData(r, r.URI().Name())
		if err != nil {
			h.banner.Show(app.Notice{Message: "The file could not be read.", Action: "Choose another file.", Detail: err.Error()})
			return
		}
		ok(data, r.URI().Name())
	}, h.u.Win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json"}))
	d.SetConfirmText("Import")
	d.Show()
}
