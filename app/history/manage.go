package history

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

// OnRename asks for a new name for the selected run.
func (h *Tab) OnRename() {
	i := h.Selected
	if i < 0 || i >= len(h.Entries) {
		return
	}
	e := h.Entries[i]
	h.AskName(e.name, func(name string) { h.rename(e.Folder, name) })
}

// rename gives the run in folder a name; an empty name gives it back its
// model as title.
func (h *Tab) rename(folder, name string) {
	name = strings.Join(strings.Fields(name), " ")
	path := filepath.Join(h.Dir(), folder, nameFile)
	var err error
	if name == "" {
		if err = os.Remove(path); errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	} else {
		err = report.WriteFileAtomic(path, []byte(name+"\n"))
	}
	if err != nil {
		h.Banner.Show(app.Notice{Message: "The run could not be renamed.", Action: "Check that " + filepath.Join(h.Dir(), folder) + " is writable.", Detail: err.Error()})
		return
	}
	h.Banner.Hide()
	delete(h.Cache, folder)
	h.Reload()
}

// OnDelete asks, then deletes the selected run's folder.
func (h *Tab) OnDelete() {
	i := h.Selected
	if i < 0 || i >= len(h.Entries) {
		return
	}
	e := h.Entries[i]
	dir := filepath.Join(h.Dir(), e.Folder)
	h.Confirm("Delete this run?", fmt.Sprintf("%s\n%s\nIts folder %s and every file in it are deleted.", e.Title(), e.Detail(), dir),
		func() { h.remove(e.Folder) })
}

// remove deletes the run in folder, a folder History lists.
func (h *Tab) remove(folder string) {
	if h.Index(folder) < 0 || folder == "" || filepath.Base(folder) != folder {
		return
	}
	if err := os.RemoveAll(filepath.Join(h.Dir(), folder)); err != nil {
		h.Banner.Show(app.Notice{Message: "The run could not be deleted.", Action: "Check that " + h.Dir() + " is writable.", Detail: err.Error()})
	} else {
		h.Banner.Hide()
	}
	delete(h.Cache, folder)
	h.Reload()
}

// OnImport asks for a file to import.
func (h *Tab) OnImport() { h.PickFile(h.ImportData) }

// ImportData adds a run made elsewhere to History: a Speed Matrix
// report.json, or another tool's results file, told apart by
// content (report.Decode). It is saved in a folder of its own and
// selected.
func (h *Tab) ImportData(data []byte, name string) {
	rep, format, err := report.Decode(data, name)
	var fe *report.FormatError
	switch {
	case errors.As(err, &fe):
		h.Banner.Show(app.Notice{Message: "This file is not a run Speed Matrix can import.",
			Action: "Choose a report.json saved by Speed Matrix, or another tool's results file: llm-inference-bench's (benchmark_results.json unless told otherwise), the results JSON vllm bench serve saves, GuideLLM's benchmarks.json, AIPerf's profile_export_aiperf.json, or one of inference-perf's stage_N_lifecycle_metrics.json.", Detail: err.Error()})
		return
	case err != nil:
		h.Banner.Show(app.Notice{Message: "This file could not be imported.", Action: "It may be damaged, or from a newer version of its tool.", Detail: err.Error()})
		return
	}
	folder := h.importFolder(rep)
	if err := h.U.Deps.Store.Save(filepath.Join(h.Dir(), folder), rep); err != nil {
		h.Banner.Show(app.Notice{Message: "The run was not imported.", Action: "Check that " + h.Dir() + " is writable.", Detail: err.Error()})
		return
	}
	h.Banner.Hide()
	h.forget(folder)
	h.Reload()
	h.selectFolder(folder)
	msg := fmt.Sprintf("Imported %s (%s).", name, format)
	if imp := rep.Run.Imported; imp != nil {
		msg = fmt.Sprintf("Imported %s: %s measured these figures, not Speed Matrix, and the run says so wherever it is shown.", filepath.Base(name), imp.Label())
	}
	appwidget.SetOptional(h.Note, msg) // by the list it was added to, not above a comparison
}

// importFolder is a new folder name for an imported run: <timestamp>-<model>,
// with the tool's name for another tool's run, and a number when taken.
func (h *Tab) importFolder(rep engine.Report) string {
	if rep.Run.StartedAt.IsZero() {
		rep.Run.StartedAt = h.U.Deps.Now()
	}
	base := runs.Folder(rep)
	if imp := rep.Run.Imported; imp != nil {
		base += "-" + runs.SafeName(imp.Tool)
	}
	folder := base
	for n := 2; ; n++ {
		if _, err := os.Stat(filepath.Join(h.Dir(), folder)); errors.Is(err, os.ErrNotExist) {
			return folder
		}
		folder = fmt.Sprintf("%s-%d", base, n)
	}
}

// confirmDialog asks whether to delete; ok runs on yes.
func (h *Tab) confirmDialog(title, message string, ok func()) {
	h.U.Confirm(title, message, "Delete", "Cancel", func(yes bool) {
		if yes {
			ok()
		}
	})
}

// nameDialog asks for a run's name.
func (h *Tab) nameDialog(current string, ok func(string)) {
	entry := widget.NewEntry()
	entry.SetText(current)
	entry.SetPlaceHolder("e.g. before the driver update")
	items := []*widget.FormItem{widget.NewFormItem("Name", entry)}
	d := dialog.NewForm("Rename run", "Rename", "Cancel", items, func(yes bool) {
		if yes {
			ok(entry.Text)
		}
	}, h.U.Win)
	d.Resize(fyne.NewSize(420, d.MinSize().Height))
	d.Show()
}

// fileDialog asks for a JSON file and hands over its content.
func (h *Tab) fileDialog(ok func(data []byte, name string)) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			h.Banner.Show(app.Notice{Message: "The file could not be opened.", Action: "Choose another file.", Detail: err.Error()})
			return
		}
		if r == nil {
			return // cancelled
		}
		defer r.Close()
		data, err := report.ReadData(r, r.URI().Name())
		if err != nil {
			h.Banner.Show(app.Notice{Message: "The file could not be read.", Action: "Choose another file.", Detail: err.Error()})
			return
		}
		ok(data, r.URI().Name())
	}, h.U.Win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json"}))
	d.SetConfirmText("Import")
	d.Show()
}
