package shell

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
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// screenshotFile is the Results screen's capture written by --autorun --export.
const screenshotFile = "screenshot-results.png"

// exportFileNames lists every file Export writes, in the order offered.
func exportFileNames() []string {
	names := []string{report.JSONFile, report.CSVFile, report.MarkdownFile, charts.HTMLFile}
	for _, k := range charts.Kinds {
		names = append(names, string(k)+".png", string(k)+".svg")
	}
	return names
}

// exportFileNamesFor is exportFileNames plus the "% of roofline" heatmap
// when rep has a roofline, and telemetry.csv when its cells carry
// telemetry. A load test's are its own: load.csv for results.csv, and its
// pictures (charts.KindsFor).
func exportFileNamesFor(rep engine.Report) []string {
	names := exportFileNames()
	if rep.Load != nil {
		names = loadFileNames()
	}
	if charts.HasRoofline(rep) {
		names = append(names, rooflineFileNames()...)
	}
	if report.HasTelemetry(rep) {
		names = append(names, report.TelemetryCSVFile)
	}
	return names
}

// loadFileNames are the files of a load test's export.
func loadFileNames() []string {
	names := []string{report.JSONFile, report.LoadCSVFile, report.MarkdownFile, charts.HTMLFile}
	for _, k := range charts.LoadKinds {
		names = append(names, string(k)+".png", string(k)+".svg")
	}
	return names
}

// rooflineFileNames are the files of the "% of roofline" heatmap.
func rooflineFileNames() []string {
	return []string{string(charts.KindRoofline) + ".png", string(charts.KindRoofline) + ".svg"}
}

// fileBytes is the content of one export file of rep.
func fileBytes(name string, rep engine.Report, ch app.ChartDrawer, dark bool) ([]byte, error) {
	switch name {
	case report.JSONFile:
		return report.JSON(rep)
	case report.CSVFile:
		var b bytes.Buffer
		err := report.WriteCSV(&b, rep)
		return b.Bytes(), err
	case report.LoadCSVFile:
		var b bytes.Buffer
		err := report.WriteLoadCSV(&b, rep)
		return b.Bytes(), err
	case report.MarkdownFile:
		return []byte(report.Markdown(rep)), nil
	case charts.HTMLFile: // the page has its own light/dark switch
		return charts.HTML(rep)
	case report.TelemetryCSVFile:
		var b bytes.Buffer
		err := report.WriteTelemetryCSV(&b, rep)
		return b.Bytes(), err
	}
	base, format, _ := strings.Cut(name, ".")
	return ch.Render(charts.Kind(base), format, rep, dark)
}

// exportAll writes every export file of the shown report into dir.
func (r *resultsTab) exportAll(dir string) error {
	if !r.has {
		return errors.New("export: there is no report yet: run the matrix first")
	}
	out := exportReport(dir, r.report, r.u.Deps.Charts, r.darkExport.Checked)
	if !out.made {
		return fmt.Errorf("%w: choose a folder you can write to", out.err)
	}
	return out.err
}

// exportOutcome is what an export did: the files it wrote into dir, those
// it did not, and why (every failure, joined; nil when all were written).
// made is false when dir itself could not be made: then nothing is there.
type exportOutcome struct {
	dir             string
	made            bool
	written, failed []string
	err             error
}

// exportReport writes every export file of rep into dir, carrying on past
// a failed file; dark draws the charts in the dark theme. Safe off the UI
// goroutine.
func exportReport(dir string, rep engine.Report, ch app.ChartDrawer, dark bool) exportOutcome {
	out := exportOutcome{dir: dir}
	names := exportFileNamesFor(rep)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		out.failed = names
		out.err = fmt.Errorf("export: %w", err)
		return out
	}
	out.made = true
	var errs []error
	for _, name := range names {
		data, err := fileBytes(name, rep, ch, dark)
		if err == nil {
			err = report.WriteFileAtomic(filepath.Join(dir, name), data)
		}
		if err != nil {
			out.failed = append(out.failed, name)
			errs = append(errs, fmt.Errorf("export %s: %w", name, err))
			continue
		}
		out.written = append(out.written, name)
	}
	out.err = errors.Join(errs...)
	return out
}

// notice says what a failed export wrote, and where, and what it did not.
func (o exportOutcome) notice() app.Notice {
	n := app.Notice{Action: "Choose a folder you can write to (or free some disk space) and export again.", Detail: o.err.Error()}
	switch {
	case !o.made:
		n.Message = "Nothing was exported: the folder " + o.dir + " could not be made."
		n.Action = "Choose a folder you can write to and export again."
	case len(o.written) == 0:
		n.Message = fmt.Sprintf("Nothing was exported: none of the %d files could be written to %s.", len(o.failed), o.dir)
	default:
		n.Message = fmt.Sprintf("%s of %d were exported to %s; %s not: %s.", engine.Count(len(o.written), "file", "files"),
			len(o.written)+len(o.failed), o.dir, engine.Plural(len(o.failed), "this one was", "these were"), strings.Join(o.failed, ", "))
	}
	return n
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

// exportInto exports the shown report into parent/RUN-FOLDER, asking first
// when that folder already holds an export.
func (r *resultsTab) exportInto(parent string) {
	dir := filepath.Join(parent, runs.Folder(r.report))
	if !holdsExport(dir) {
		r.startExport(dir)
		return
	}
	r.u.Choose("Replace the earlier export?",
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
	for _, name := range append(append(exportFileNames(), rooflineFileNames()...), loadFileNames()...) {
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
	rep, ch, dark := r.report, r.u.Deps.Charts, r.darkExport.Checked
	r.banner.Hide()
	r.status.SetText("Exporting to " + dir + " …")
	r.exported = make(chan struct{})
	done := r.exported
	go func() {
		out := exportReport(dir, rep, ch, dark)
		r.u.Do(func() {
			r.finishExport(out)
			close(done)
		})
	}()
}

// finishExport says where the files went, with a way to open the folder,
// or which files were written where and which were not.
func (r *resultsTab) finishExport(out exportOutcome) {
	r.exportedHTML(htmlWritten(out))
	if out.err != nil {
		r.status.SetText("")
		n := out.notice()
		n.Button, n.OnPress = "Export again", r.onExport
		r.banner.Show(n)
		return
	}
	n := len(out.written)
	r.status.SetText(fmt.Sprintf("Exported %d files to %s.", n, out.dir))
	r.u.Confirm("Export done", fmt.Sprintf("%d files are in\n%s", n, out.dir), "Open folder", "Close", func(open bool) {
		if open {
			r.u.OpenFolder(out.dir)
		}
	})
}

// onSaveMenu opens saveMenu upward from its button, which sits at the
// window's bottom: the menu stays inside the window.
func (r *resultsTab) onSaveMenu() {
	if !r.has {
		return
	}
	c := r.u.Win.Canvas()
	m := widget.NewPopUpMenu(r.saveMenu(), c)
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(r.saveOne)
	m.ShowAtPosition(fyne.NewPos(at.X, max(0, at.Y-m.MinSize().Height)))
}

// saveMenu offers every export file of the shown report: the data files,
// then each chart under one item that opens its PNG and SVG, so that the
// menu is short enough for a small window.
func (r *resultsTab) saveMenu() *fyne.Menu {
	var data, pictures []*fyne.MenuItem
	byChart := map[string]*fyne.MenuItem{}
	for _, name := range exportFileNamesFor(r.report) {
		item := fyne.NewMenuItem(name, func() { r.onSaveOne(name) })
		base, format, _ := strings.Cut(name, ".")
		if format != "png" && format != "svg" {
			data = append(data, item)
			continue
		}
		chart := byChart[base]
		if chart == nil {
			chart = fyne.NewMenuItem(base+".png / .svg", nil)
			chart.ChildMenu = fyne.NewMenu("")
			byChart[base] = chart
			pictures = append(pictures, chart)
		}
		chart.ChildMenu.Items = append(chart.ChildMenu.Items, item)
	}
	return fyne.NewMenu("", append(append(data, fyne.NewMenuItemSeparator()), pictures...)...)
}

// onSaveOne asks where to save one file of the shown report, then makes
// and writes it in the background: a picture of the report sheet takes
// long enough to freeze the window if drawn in the menu's callback.
func (r *resultsTab) onSaveOne(name string) {
	if name == "" || !r.has {
		return
	}
	rep, ch, dark := r.report, r.u.Deps.Charts, r.darkExport.Checked
	r.saveAs(name, func(w io.WriteCloser, path string) {
		r.status.SetText("Saving " + path + " …")
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
func (r *resultsTab) savedOne(name, path string, err error) {
	if err != nil {
		r.status.SetText("")
		r.banner.Show(app.Notice{Message: "The file " + name + " was not saved.", Action: "Choose a folder you can write to.", Detail: err.Error()})
		return
	}
	r.status.SetText("Saved " + path + ".")
}

// saveDialog asks where to save name and hands over the file chosen and
// its path; nothing when cancelled.
func (r *resultsTab) saveDialog(name string, ok func(w io.WriteCloser, path string)) {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		ok(w, w.URI().Path())
	}, r.u.Win)
	d.SetFileName(name)
	d.Show()
}

// screenshot writes the window as it looks now into dir.
func (r *resultsTab) screenshot(dir string) error {
	img := captureWindow(r.u.Win)
	if img == nil {
		return errors.New("screenshot: the window could not be captured")
	}
	if err := writePNG(filepath.Join(dir, screenshotFile), img); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return nil
}
