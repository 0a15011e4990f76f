package results

import (
	"fmt"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/runs"
)

// newOpenHTMLButton is "Open in browser", beside Export all: it opens the
// shown report's report.html. Disabled while it has none (pageOf).
func (r *Tab) newOpenHTMLButton() *widget.Button {
	b := widget.NewButtonWithIcon("Open in browser", theme.ComputerIcon(), r.onOpenHTML)
	b.Disable()
	return b
}

// exportedHTML remembers the report.html an export of the shown report
// wrote ("" for none), for as long as the app runs: the run opened again
// from History finds it. Open in browser opens the page the report has.
func (r *Tab) exportedHTML(path string) {
	if path != "" {
		r.pages[runs.Folder(r.Report)] = path
	}
	r.showPage(r.pageOf(r.Report, r.Source))
}

// showPage enables Open in browser for the page at path, or disables it.
func (r *Tab) showPage(path string) {
	r.HtmlPath = path
	if path == "" {
		r.OpenHTML.Disable()
		return
	}
	r.OpenHTML.Enable()
}

// pageOf is the report.html of rep that exists, "" for none: the one its
// last export wrote, the one in its own folder (source; a sweep's runs have
// one), or the one an export into the default export folder left.
func (r *Tab) pageOf(rep engine.Report, source string) string {
	folder := runs.Folder(rep)
	candidates := []string{r.pages[folder], filepath.Join(exportStart(r.u.State.Settings), folder, charts.HTMLFile)}
	if source != "" {
		candidates = append(candidates, filepath.Join(source, charts.HTMLFile))
	}
	for _, page := range candidates {
		if st, err := os.Stat(page); page != "" && err == nil && st.Mode().IsRegular() {
			return page
		}
	}
	return ""
}

// htmlWritten is the report.html an export wrote, or "".
func htmlWritten(out ExportOutcome) string {
	for _, name := range out.Written {
		if name == charts.HTMLFile {
			return filepath.Join(out.Dir, name)
		}
	}
	return ""
}

// onOpenHTML opens the shown report's page in the desktop's browser; when
// the browser can't, one line says so with the page's path, to open by hand.
func (r *Tab) onOpenHTML() {
	page := r.HtmlPath
	if page == "" {
		return
	}
	r.u.OpenPath(page, func(err error) {
		r.u.CannotOpen("Open in browser", fmt.Sprintf("The browser did not open the page (%v): open %s in a web browser yourself.", err, page))
	})
}
