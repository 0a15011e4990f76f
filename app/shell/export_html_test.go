package shell

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/runs"
)

// TestExportWritesHTMLAndOpensIt: Export all writes report.html, which
// says the run is simulated; Open in browser, disabled until then, opens
// that file's file:// URL, and is disabled again for another report.
func TestExportWritesHTMLAndOpensIt(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	var links []*url.URL
	d.OpenURL = func(link *url.URL, _ func(error)) error { links = append(links, link); return nil }
	u := newTestUI(t, d, app.Options{})
	u.Ask = func(_, _ string, _ []string, pick func(int)) { pick(1) } // "Close"
	rep := cannedReport("tiny", 195.7)
	rep.Server.Simulated, rep.Server.SimProfile = true, "tiny"
	u.results.Show(rep, "")
	if !u.results.OpenHTML.Disabled() {
		t.Fatal("Open in browser is enabled before any export")
	}
	page := exportPage(t, u, rep)
	b, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(b), `class="banner banner-simulated"`) {
		t.Fatalf("report.html: %v, simulated banner %v", err, strings.Contains(string(b), "banner-simulated"))
	}
	test.Tap(u.results.OpenHTML)
	if len(links) != 1 || links[0].Scheme != "file" || links[0].Path != filepath.ToSlash(page) {
		t.Errorf("opened %v, want file://%s", links, page)
	}
	u.results.Show(cannedReport("other", 100), "")
	if !u.results.OpenHTML.Disabled() {
		t.Error("Open in browser still opens the previous report's page")
	}
}

// TestOpenInBrowserSaysWhenTheBrowserDoesNot: when the opener can't start,
// or ends in failure later (xdg-open exits 4 when Chromium refuses to run as
// root), one line says so with the page's path, to open it by hand.
func TestOpenInBrowserSaysWhenTheBrowserDoesNot(t *testing.T) {
	for _, tc := range []struct {
		name         string
		start, ended error
		want         string
	}{
		{"cannot start", errors.New(`exec: "xdg-open": executable file not found in $PATH`), nil, "executable file not found"},
		{"ends in failure", nil, errors.New("xdg-open: exit status 4"), "(xdg-open: exit status 4)"},
		{"opened", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, &fakeEngine{})
			gone := make(chan struct{})
			d.OpenURL = func(_ *url.URL, exited func(error)) error {
				if tc.start != nil {
					close(gone)
					return tc.start
				}
				go func() { exited(tc.ended); close(gone) }() // as the opener's Wait returns
				return nil
			}
			u := newTestUI(t, d, app.Options{})
			rep := cannedReport("tiny", 195.7)
			dir := t.TempDir()
			page := writePage(t, filepath.Join(dir, charts.HTMLFile))
			u.results.Show(rep, dir)
			test.Tap(u.results.OpenHTML)
			waitFor(t, gone, "the opener to end")
			top := u.Win.Canvas().Overlays().Top()
			if tc.want == "" {
				if top != nil {
					t.Fatal("a page that opened shows a dialog")
				}
				return
			}
			if top == nil || !apptest.HasText(top, tc.want) || !apptest.HasText(top, "open "+page+" in a web browser yourself") {
				t.Fatalf("no line says the page did not open, with %q and its path %s", tc.want, page)
			}
			if !apptest.Walk(top, func(o fyne.CanvasObject) bool {
				l, ok := o.(*widget.Label)
				return ok && l.Selectable && strings.Contains(l.Text, page)
			}) {
				t.Error("the path cannot be selected and copied")
			}
		})
	}
}

// TestOpenInBrowserForEveryReportWithAPage: Open in browser is enabled
// whenever the shown report has a page: one exported earlier and opened
// again from History, one in its own folder (a sweep's run), one that an
// export into the default export folder left in an earlier session; and
// disabled for a report without one.
func TestOpenInBrowserForEveryReportWithAPage(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.Ask = func(_, _ string, _ []string, pick func(int)) { pick(1) } // "Close"
	rep := cannedReport("tiny", 195.7)
	history := t.TempDir()
	u.results.Show(rep, history)
	if !u.results.OpenHTML.Disabled() {
		t.Fatal("Open in browser is enabled for a report without a page")
	}
	exported := exportPage(t, u, rep)
	u.results.Show(cannedReport("other", 100), "")
	u.results.Show(rep, history) // History: Open in Results
	if u.results.OpenHTML.Disabled() || u.results.HtmlPath != exported {
		t.Errorf("the exported run opened again from History: page %q, enabled %v; want %s", u.results.HtmlPath, !u.results.OpenHTML.Disabled(), exported)
	}

	own := t.TempDir()
	writePage(t, filepath.Join(own, charts.HTMLFile))
	u.results.Show(cannedReport("sweep-run", 90), own)
	if u.results.OpenHTML.Disabled() || u.results.HtmlPath != filepath.Join(own, charts.HTMLFile) {
		t.Errorf("a run with a page in its own folder: page %q", u.results.HtmlPath)
	}

	u.State.Settings.ExportDir = t.TempDir()
	earlier := cannedReport("earlier", 80)
	page := writePage(t, filepath.Join(u.State.Settings.ExportDir, runs.Folder(earlier), charts.HTMLFile))
	u.results.Show(earlier, t.TempDir())
	if u.results.OpenHTML.Disabled() || u.results.HtmlPath != page {
		t.Errorf("a run exported into the default export folder: page %q, want %s", u.results.HtmlPath, page)
	}
}

// exportPage exports the shown report, rep, into a new folder and returns
// the path of the report.html it wrote.
func exportPage(t *testing.T, u *ui, rep engine.Report) string {
	t.Helper()
	parent := t.TempDir()
	u.results.ExportInto(parent)
	waitFor(t, u.results.Exported, "the export")
	return filepath.Join(parent, runs.Folder(rep), charts.HTMLFile)
}

// writePage writes a stand-in report.html at path, and returns path.
func writePage(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("<html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenWithDesktopWaitsForTheOpener: the real opener waits for the
// program it starts, so no defunct child is left behind, and passes on how
// it ended: xdg-open's exit status 4 reaches the app.
func TestOpenWithDesktopWaitsForTheOpener(t *testing.T) {
	if name, _ := app.DesktopOpener(runtime.GOOS); name != "xdg-open" {
		t.Skip("the stand-in opener is a shell script named xdg-open")
	}
	bin := t.TempDir()
	pidFile := filepath.Join(bin, "pid")
	script := "#!/bin/sh\necho $$ > " + pidFile + "\nexit 4\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	ended := make(chan error, 1)
	if err := app.OpenWithDesktop(app.FileURL("/nowhere/report.html"), func(err error) { ended <- err }); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the opener's end was never told")
	}
	if err == nil || !strings.Contains(err.Error(), "xdg-open: exit status 4") {
		t.Errorf("the opener ended with %v, want xdg-open: exit status 4", err)
	}
	pid, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if _, err := os.Stat("/proc/" + strings.TrimSpace(string(pid))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the opener (pid %s) is still a child of ours: %v", strings.TrimSpace(string(pid)), err)
	}
}
