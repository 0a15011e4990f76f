package app

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/software"
	"fyne.io/fyne/v2/storage"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
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
	for _, name := range exportFileNames() {
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

// onExport asks for a folder and writes every file into it.
func (r *resultsTab) onExport() {
	if !r.has {
		return
	}
	d := dialog.NewFolderOpen(func(uri fyne.ListableURI, err error) {
		if err != nil || uri == nil {
			return
		}
		dir, rep, store, ch, dark := uri.Path(), r.report, r.u.deps.store, r.u.deps.charts, r.darkExport.Checked
		r.status.SetText("Exporting to " + dir + " …")
		go func() {
			err := exportReport(dir, rep, store, ch, dark)
			r.u.do(func() { r.finishExport(dir, err) })
		}()
	}, r.u.win)
	if start := r.u.exportDir(); start != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(start)); err == nil {
			d.SetLocation(l)
		}
	}
	d.Show()
}

func (r *resultsTab) finishExport(dir string, err error) {
	if err != nil {
		r.status.SetText("Some files were not written: " + err.Error())
		dialog.ShowError(fmt.Errorf("%w\nThe other files are in %s", err, dir), r.u.win)
		return
	}
	r.status.SetText(fmt.Sprintf("Exported %d files to %s.", len(exportFileNames()), dir))
}

// onSaveOne asks where to save one file and writes it.
func (r *resultsTab) onSaveOne(name string) {
	if name == "" || !r.has {
		return
	}
	r.saveOne.ClearSelected()
	data, err := fileBytes(name, r.report, r.u.deps.charts, r.darkExport.Checked)
	if err != nil {
		dialog.ShowError(fmt.Errorf("cannot make %s: %w", name, err), r.u.win)
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
			dialog.ShowError(fmt.Errorf("save %s: %w: choose another folder", name, werr), r.u.win)
			return
		}
		r.status.SetText("Saved " + w.URI().Path() + ".")
	}, r.u.win)
	d.SetFileName(name)
	d.Show()
}

// screenshot writes the window as it looks now into dir. It paints the
// window's content with Fyne's software painter: reading back the GL front
// buffer gives a blank image under Xvfb, where CI takes this screenshot.
func (r *resultsTab) screenshot(dir string) error {
	content, size := r.u.win.Content(), r.u.win.Canvas().Size()
	c := software.NewCanvas()
	c.SetPadded(false)
	c.SetContent(content)
	c.Resize(size)
	img := c.Capture()
	r.u.win.SetContent(content)
	if img == nil {
		return errors.New("screenshot: the window could not be captured")
	}
	f, err := os.Create(filepath.Join(dir, screenshotFile))
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("screenshot: %w", err)
	}
	return f.Close()
}
