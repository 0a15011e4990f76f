package results

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// ScreenshotFile is the Results screen's capture written by --autorun --export.
const ScreenshotFile = "screenshot-results.png"

// ExportFiles is every file Export writes of rep, in the order written:
// the one list of a run's files (charts.Artifacts), its pictures drawn by
// ch in the dark theme when dark is set.
func ExportFiles(rep engine.Report, ch app.ChartDrawer, dark bool) []report.Artifact {
	return charts.Artifacts(rep, chartPainter{ch: ch, rep: rep, dark: dark})
}

// chartPainter draws an export's pictures with the app's ChartDrawer.
type chartPainter struct {
	ch   app.ChartDrawer
	rep  engine.Report
	dark bool
}

func (p chartPainter) Paint(_ context.Context, kind charts.Kind, format string) ([]byte, error) {
	return p.ch.Render(kind, format, p.rep, p.dark)
}

// ExportFileNamesFor lists the name of every file Export writes of rep.
func ExportFileNamesFor(rep engine.Report) []string {
	var names []string
	for _, a := range ExportFiles(rep, nil, false) {
		names = append(names, a.Name)
	}
	return names
}

// fileBytes is the content of one export file of rep.
func fileBytes(name string, rep engine.Report, ch app.ChartDrawer, dark bool) ([]byte, error) {
	for _, a := range ExportFiles(rep, ch, dark) {
		if a.Name == name {
			return a.Bytes(context.Background())
		}
	}
	return nil, fmt.Errorf("%s is not a file of this run's export", name)
}

// ExportAll writes every export file of the shown report into dir.
func (r *Tab) ExportAll(dir string) error {
	if !r.Has {
		return errors.New("export: there is no report yet: run the matrix first")
	}
	out := ExportReport(dir, r.Report, r.u.Deps.Charts, r.darkExport.Checked)
	if !out.made {
		return fmt.Errorf("%w: choose a folder you can write to", out.Err)
	}
	return out.Err
}

// ExportOutcome is what an export did: the files it wrote into dir, those
// it did not, and why (every failure, joined; nil when all were written).
// made is false when dir itself could not be made: then nothing is there.
type ExportOutcome struct {
	Dir             string
	made            bool
	Written, Failed []string
	Err             error
}

// ExportReport writes every export file of rep into dir, carrying on past
// a failed file; dark draws the charts in the dark theme. Safe off the UI
// goroutine.
func ExportReport(dir string, rep engine.Report, ch app.ChartDrawer, dark bool) ExportOutcome {
	out := ExportOutcome{Dir: dir}
	files := ExportFiles(rep, ch, dark)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		for _, a := range files {
			out.Failed = append(out.Failed, a.Name)
		}
		out.Err = fmt.Errorf("export: %w", err)
		return out
	}
	out.made = true
	var errs []error
	for _, a := range files {
		if err := a.Write(context.Background(), dir); err != nil {
			out.Failed = append(out.Failed, a.Name)
			errs = append(errs, fmt.Errorf("export %s: %w", a.Name, err))
			continue
		}
		out.Written = append(out.Written, a.Name)
	}
	out.Err = errors.Join(errs...)
	return out
}

// notice says what a failed export wrote, and where, and what it did not.
func (o ExportOutcome) notice() app.Notice {
	n := app.Notice{Action: "Choose a folder you can write to (or free some disk space) and export again.", Detail: o.Err.Error()}
	switch {
	case !o.made:
		n.Message = "Nothing was exported: the folder " + o.Dir + " could not be made."
		n.Action = "Choose a folder you can write to and export again."
	case len(o.Written) == 0:
		n.Message = fmt.Sprintf("Nothing was exported: none of the %d files could be written to %s.", len(o.Failed), o.Dir)
	default:
		n.Message = fmt.Sprintf("%s of %d were exported to %s; %s not: %s.", engine.Count(len(o.Written), "file", "files"),
			len(o.Written)+len(o.Failed), o.Dir, engine.Plural(len(o.Failed), "this one was", "these were"), strings.Join(o.Failed, ", "))
	}
	return n
}

// OnExport asks for a folder and exports into a new subfolder of it named
// after the run; an earlier export there is replaced only when the user
// says so.
func (r *Tab) OnExport() {
	if !r.Has {
		return
	}
	d := dialog.NewFolderOpen(func(uri fyne.ListableURI, err error) {
		if err != nil || uri == nil {
			return
		}
		r.ExportInto(uri.Path())
	}, r.u.Win)
	d.SetTitleText("Export every file of this run into a new folder in …")
	d.SetConfirmText("Choose folder")
	if l, err := storage.ListerForURI(storage.NewFileURI(exportStart(r.u.State.Settings))); err == nil {
		d.SetLocation(l)
	}
	d.Show()
}

// exportStart is the folder Export all opens in: the default export
// folder of the settings, or the home folder when there is none (or it is
// gone). Always a folder of ours: else Fyne opens the folder its last
// dialog showed, the Import one's.
func exportStart(c app.Settings) string {
	if st, err := os.Stat(c.ExportDir); c.ExportDir != "" && err == nil && st.IsDir() {
		return c.ExportDir
	}
	if home, err := os.UserHomeDir(); err == nil {
		return home
	}
	return string(filepath.Separator)
}

// ExportInto exports the shown report into parent/RUN-FOLDER, asking first
// when that folder already holds an export.
func (r *Tab) ExportInto(parent string) {
	dir := filepath.Join(parent, runs.Folder(r.Report))
	if !HoldsExport(dir, r.Report) {
		r.StartExport(dir)
		return
	}
	r.u.Choose("Replace the earlier export?",
		fmt.Sprintf("%s already holds an export of this run. Replace its files, or export into a new folder next to it?", dir),
		[]string{"Replace", "New folder", "Cancel"}, func(i int) {
			switch i {
			case 0:
				r.StartExport(dir)
			case 1:
				r.StartExport(freeFolder(dir))
			}
		})
}

// HoldsExport reports whether dir has any file an export of rep writes.
func HoldsExport(dir string, rep engine.Report) bool {
	for _, name := range ExportFileNamesFor(rep) {
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

// StartExport writes every file into dir in the background.
func (r *Tab) StartExport(dir string) {
	rep, ch, dark := r.Report, r.u.Deps.Charts, r.darkExport.Checked
	r.Banner.Hide()
	r.Status.SetText("Exporting to " + dir + " …")
	r.Exported = make(chan struct{})
	done := r.Exported
	go func() {
		out := ExportReport(dir, rep, ch, dark)
		r.u.Do(func() {
			r.FinishExport(out)
			close(done)
		})
	}()
}

// FinishExport says where the files went, with a way to open the folder,
// or which files were written where and which were not.
func (r *Tab) FinishExport(out ExportOutcome) {
	r.exportedHTML(htmlWritten(out))
	if out.Err != nil {
		r.Status.SetText("")
		n := out.notice()
		n.Button, n.OnPress = "Export again", r.OnExport
		r.Banner.Show(n)
		return
	}
	n := len(out.Written)
	r.Status.SetText(fmt.Sprintf("Exported %d files to %s.", n, out.Dir))
	r.u.Confirm("Export done", fmt.Sprintf("%d files are in\n%s", n, out.Dir), "Open folder", "Close", func(open bool) {
		if open {
			r.u.OpenFolder(out.Dir)
		}
	})
}

// OnSaveMenu opens saveMenu upward from its button, which sits at the
// window's bottom: the menu stays inside the window.
func (r *Tab) OnSaveMenu() {
	if !r.Has {
		return
	}
	c := r.u.Win.Canvas()
	m := widget.NewPopUpMenu(r.SaveMenu(), c)
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(r.saveOne)
	m.ShowAtPosition(fyne.NewPos(at.X, max(0, at.Y-m.MinSize().Height)))
}

// SaveMenu offers every export file of the shown report: the data files,
// then each chart under one item that opens its PNG and SVG, so that the
// menu is short enough for a small window.
func (r *Tab) SaveMenu() *fyne.Menu {
	var data, pictures []*fyne.MenuItem
	byChart := map[string]*fyne.MenuItem{}
	for _, a := range ExportFiles(r.Report, nil, false) {
		item := fyne.NewMenuItem(a.Name, func() { r.OnSaveOne(a.Name) })
		if a.Picture == "" {
			data = append(data, item)
			continue
		}
		chart := byChart[a.Picture]
		if chart == nil { // its label names every format: "report.png / .svg"
			chart = fyne.NewMenuItem(a.Name, nil)
			chart.ChildMenu = fyne.NewMenu("")
			byChart[a.Picture] = chart
			pictures = append(pictures, chart)
		} else {
			chart.Label += " / " + strings.TrimPrefix(a.Name, a.Picture)
		}
		chart.ChildMenu.Items = append(chart.ChildMenu.Items, item)
	}
	return fyne.NewMenu("", append(append(data, fyne.NewMenuItemSeparator()), pictures...)...)
}

// OnSaveOne asks where to save one file of the shown report, then makes
// and writes it in the background: a picture of the report sheet takes
// long enough to freeze the window if drawn in the menu's callback.
func (r *Tab) OnSaveOne(name string) {
	if name == "" || !r.Has {
		return
	}
	rep, ch, dark := r.Report, r.u.Deps.Charts, r.darkExport.Checked
	r.SaveAs(name, func(w io.WriteCloser, path string) {
		r.Status.SetText("Saving " + path + " …")
		go func() {
			var data []byte
			var err error
			appwidget.Drawing(func() { data, err = fileBytes(name, rep, ch, dark) }, r.u.Deps.FreeMemory)
			if err == nil {
				_, err = io.Copy(w, bytes.NewReader(data))
			}
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			r.u.Do(func() { r.savedOne(name, path, err) })
		}()
	})
}

// savedOne says where the file went, or why it was not saved.
func (r *Tab) savedOne(name, path string, err error) {
	if err != nil {
		r.Status.SetText("")
		r.Banner.Show(app.Notice{Message: "The file " + name + " was not saved.", Action: "Choose a folder you can write to.", Detail: err.Error()})
		return
	}
	r.Status.SetText("Saved " + path + ".")
}

// saveDialog asks where to save name and hands over the file chosen and
// its path; nothing when cancelled.
func (r *Tab) saveDialog(name string, ok func(w io.WriteCloser, path string)) {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		ok(w, w.URI().Path())
	}, r.u.Win)
	d.SetFileName(name)
	d.Show()
}

// Screenshot writes the window as it looks now into dir.
func (r *Tab) Screenshot(dir string) error {
	img := appwidget.CaptureWindow(r.u.Win)
	if img == nil {
		return errors.New("screenshot: the window could not be captured")
	}
	if err := appwidget.WritePNG(filepath.Join(dir, ScreenshotFile), img); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return nil
}
