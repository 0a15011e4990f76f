package app

import (
	"net/url"
	"path/filepath"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/charts"
)

// newOpenHTMLButton is "Open in browser", beside Export all: it opens the
// report.html the last export wrote. Disabled until an export of the shown
// report wrote one.
func (r *resultsTab) newOpenHTMLButton() *widget.Button {
	b := widget.NewButtonWithIcon("Open in browser", theme.ComputerIcon(), r.onOpenHTML)
	b.Disable()
	return b
}

// exportedHTML remembers the report.html an export of the shown report
// wrote ("" for none) and enables Open in browser when there is one.
func (r *resultsTab) exportedHTML(path string) {
	r.htmlPath = path
	if path == "" {
		r.openHTML.Disable()
		return
	}
	r.openHTML.Enable()
}

// htmlWritten is the report.html an export wrote, or "".
func htmlWritten(out exportOutcome) string {
	for _, name := range out.written {
		if name == charts.HTMLFile {
			return filepath.Join(out.dir, name)
		}
	}
	return ""
}

// onOpenHTML opens the exported report.html in the desktop's browser.
func (r *resultsTab) onOpenHTML() {
	if r.htmlPath == "" {
		return
	}
	if err := r.u.openURL(fileURL(r.htmlPath)); err != nil {
		dialog.ShowInformation("Open in browser", "The page could not be opened: open "+r.htmlPath+" in a web browser.", r.u.win)
	}
}

// fileURL is the file:// URL of an absolute path.
func fileURL(path string) *url.URL {
	return &url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
}

// openURL opens u with the desktop (deps.openURL in tests).
func (u *ui) openURL(link *url.URL) error {
	if u.deps.openURL != nil {
		return u.deps.openURL(link)
	}
	return u.app.OpenURL(link)
}
