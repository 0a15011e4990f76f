package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// screenshotFile is the Results screen's capture written by --autorun --export.
const screenshotFile = "screenshot-results.png"

// exportFileNames lists every file Export writes, in the order offered.
func exportFileNames() []string {
	names := []string{report.JSONFile, report.CSVFile, report.MarkdownFile}
	for _, k := range charts.Kinds {
		names = append(names, string(k)+".png", string(k)+".svg")
	}
	return names
}

// exportFileNamesFor is exportFileNames plus the "% of roofline" heatmap
// when rep has a roofline.
func exportFileNamesFor(rep engine.Report) []string {
	names := exportFileNames()
	if charts.HasRoofline(rep) {
		names = append(names, rooflineFileNames()...)
	}
	return names
}

// rooflineFileNames are the files of the "% of roofline" heatmap.
func rooflineFileNames() []string {
	return []string{string(charts.KindRoofline) + ".png", string(charts.KindRoofline) + ".svg"}
}

// fileBytes is the content of one export file of rep.
func fileBytes(name string, rep engine.Report, ch chartDrawer, dark bool) ([]byte, error) {
	switch name {
	case report.JSONFile:
		return report.JSON(rep)
	case report.CSVFile:
		var b bytes.Buffer
		err := report.WriteCSV(&b, rep)
		return b.Bytes(), err
	case report.MarkdownFile:
		return []byte(report.Markdown(rep)), nil
	}
	base, format, _ := strings.Cut(name, ".")
	return ch.Render(charts.Kind(base), format, rep, dark)
}

// exportAll writes every export file of the shown report into dir.
func (r *resultsTab) exportAll(dir string) error {
	if !r.has {
		return errors.New("export: there is no report yet: run the matrix first")
	}
	return exportReport(dir, r.report, r.u.deps.store, r.u.deps.charts, r.darkExport.Checked)
}

// exportReport writes every export file of rep into dir, carrying on past a
// failed file; the error lists every file that failed; dark draws the
// charts in the dark theme. Safe off the UI goroutine.
func exportReport(dir string, rep engine.Report, store runStore, ch chartDrawer, dark bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: %w: choose a folder you can write to", err)
	}
	var errs []error
	if store != nil {
		if err := store.Save(dir, rep); err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range exportFileNamesFor(rep) {
		if store != nil && (name == report.JSONFile || name == report.CSVFile || name == report.MarkdownFile) {
			continue
		}
		data, err := fileBytes(name, rep, ch, dark)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("export %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// onExport asks for a folder and exports into a new subfolder of it named
// after the run; an earlier export there is replaced only when the user
// says so.
func (r *resultsTab) onExport() {
	if !r.has {
		return
	}
	d := dialog.NewFolderOpen(func(uri fyne.ListableURI, err error) {
		if err != nil || uri == nil {
			return
		}
		r.exportInto(uri.Path())
	}, r.u.win)
	d.SetTitleText("Export every file of this run into a new folder in …")
	d.SetConfirmText("Choose folder")
	if l, err := storage.ListerForURI(storage.NewFileURI(exportStart(r.u.state.settings))); err == nil {
		d.SetLocation(l)
	}
	d.Show()
}

// exportStart is the folder Export all opens in: the default export
// folder of the settings, or the home folder when there is none (or it is
// gone). Always a folder of ours: else Fyne opens the folder its last
// dialog showed, the Import one's.
func exportStart(c appSettings) string {
	if st, err := os.Stat(c.ExportDir); c.ExportDir != "" && err == nil && st.IsDir() {
		return c.ExportDir
	}
	if home, err := os.UserHomeDir(); err == nil {
		return home
	}
	return string(filepath.Separator)
}

// exportInto exports the shown report into parent/RUN-FOLDER, asking first
// when that folder already holds an export.
func (r *resultsTab) exportInto(parent string) {
	dir := filepath.Join(parent, runs.Folder(r.report))
	if !holdsExport(dir) {
		r.startExport(dir)
		return
	}
	r.u.choose("Replace the earlier export?",
		fmt.Sprintf("%s already holds an export of this run. Replace its files, or export into a new folder next to it?", dir),
		[]string{"Replace", "New folder", "Cancel"}, func(i int) {
			switch i {
			case 0:
				r.startExport(dir)
			case 1:
				r.startExport(freeFolder(dir))
			}
		})
}

// holdsExport reports whether dir has any file an export writes.
func holdsExport(dir string) bool {
	for _, name := range append(exportFileNames(), rooflineFileNames()...) {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// freeFolder is dir, or dir-2, dir-3 … the first that does not exist.
func freeFolder(dir string) string {
	for i := 2; ; i++ {
		next := fmt.Sprintf("%s-%d", dir, i)
		if _, err := os.Stat(next); errors.Is(err, os.ErrNotExist) {
			return next
		}
	}
}

// startExport writes every file into dir in the background.
func (r *resultsTab) startExport(dir string) {
	rep, store, ch, dark := r.report, r.u.deps.store, r.u.deps.charts, r.darkExport.Checked
	r.banner.hide()
	r.status.SetText("Exporting to " + dir + " …")
	r.exported = make(chan struct{})
	done := r.exported
	go func() {
		err := exportReport(dir, rep, store, ch, dark)
		r.u.do(func() {
			r.finishExport(dir, err)
			close(done)
		})
	}()
}

// finishExport says where the files went, with a way to open the folder,
// or which files failed.
func (r *resultsTab) finishExport(dir string, err error) {
	if err != nil {
		r.status.SetText("")
		r.banner.show(notice{Message: "Some files of the export were not written.",
			Action: "Choose a folder you can write to (or free some disk space) and export again; the other files are in " + dir + ".",
			Button: "Export again", OnPress: r.onExport, Detail: err.Error()})
		return
	}
	n := len(exportFileNamesFor(r.report))
	r.status.SetText(fmt.Sprintf("Exported %d files to %s.", n, dir))
	r.u.confirm("Export done", fmt.Sprintf("%d files are in\n%s", n, dir), "Open folder", "Close", func(open bool) {
		if open {
			r.u.openFolder(dir)
		}
	})
}

// onSaveOne asks where to save one file and writes it.
func (r *resultsTab) onSaveOne(name string) {
	if name == "" || !r.has {
		return
	}
	r.saveOne.ClearSelected()
	data, err := fileBytes(name, r.report, r.u.deps.charts, r.darkExport.Checked)
	if err != nil {
		r.banner.show(notice{Message: "The file " + name + " could not be made.", Detail: err.Error()})
		return
	}
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		_, werr := io.Copy(w, bytes.NewReader(data))
		if cerr := w.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			r.banner.show(notice{Message: "The file " + name + " was not saved.", Action: "Choose a folder you can write to.", Detail: werr.Error()})
			return
		}
		r.status.SetText("Saved " + w.URI().Path() + ".")
	}, r.u.win)
	d.SetFileName(name)
	d.Show()
}

// screenshot writes the window as it looks now into dir.
func (r *resultsTab) screenshot(dir string) error {
	img := r.u.capture()
	if img == nil {
		return errors.New("screenshot: the window could not be captured")
	}
	if err := writePNG(filepath.Join(dir, screenshotFile), img); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return nil
}
