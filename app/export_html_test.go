package app

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"speedmatrix/charts"
	"speedmatrix/engine/runs"
)

// TestExportWritesHTMLAndOpensIt: Export all writes report.html, which
// says the run is simulated; Open in browser, disabled until then, opens
// that file's file:// URL, and is disabled again for another report.
func TestExportWritesHTMLAndOpensIt(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	var links []*url.URL
	d.openURL = func(link *url.URL) error { links = append(links, link); return nil }
	u := newTestUI(t, d, Options{})
	u.ask = func(_, _ string, _ []string, pick func(int)) { pick(1) } // "Close"
	rep := cannedReport("tiny", 195.7)
	rep.Engine.Simulated, rep.Engine.SimProfile = true, "tiny"
	u.results.show(rep, "")
	if !u.results.openHTML.Disabled() {
		t.Fatal("Open in browser is enabled before any export")
	}
	parent := t.TempDir()
	u.results.exportInto(parent)
	waitFor(t, u.results.exported, "the export")
	page := filepath.Join(parent, runs.Folder(rep), charts.HTMLFile)
	b, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(b), `class="banner banner-simulated"`) {
		t.Fatalf("report.html: %v, simulated banner %v", err, strings.Contains(string(b), "banner-simulated"))
	}
	test.Tap(u.results.openHTML)
	if len(links) != 1 || links[0].Scheme != "file" || links[0].Path != filepath.ToSlash(page) {
		t.Errorf("opened %v, want file://%s", links, page)
	}
	u.results.show(cannedReport("other", 100), "")
	if !u.results.openHTML.Disabled() {
		t.Error("Open in browser still opens the previous report's page")
	}
}
