package shell

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/results"
	"speedmatrix/charts"
	"speedmatrix/engine"
)

// cannedReport is a finished simulated run holding the canned results.
func cannedReport(served string, decodeTokPerSec float64) engine.Report {
	rep := engine.Report{SchemaVersion: engine.SchemaVersion,
		Server: engine.ServerInfo{Name: "vllm", Simulated: true, SimProfile: "tiny"},
		Run:    engine.RunInfo{ServedModel: served, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	for _, ev := range cannedEvents() {
		if ev.Result != nil {
			r := *ev.Result
			if r.Phase == engine.PhaseDecode && r.Concurrency == 1 {
				r.TotalTokPerSec = decodeTokPerSec
			}
			rep.Results = append(rep.Results, r)
		}
	}
	return rep
}

func TestResultsShowsChartsTableAndBadge(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	r := u.results
	r.Show(cannedReport("tiny", 195.7), "")
	waitFor(t, r.Rendered, "the charts")
	if chartImage(r.Charts[charts.KindPrefill].Objects[0]) == nil {
		t.Errorf("prefill view holds %T, want the chart image", r.Charts[charts.KindPrefill].Objects[0])
	}
	if !apptest.HasText(r.BadgeBox, "simulated (profile tiny)") {
		t.Error("Results does not label a simulated run")
	}
	if got := len(r.Table.Cells); got != 4 {
		t.Fatalf("table has %d rows, want 4", got)
	}
	r.Table.SortBy(4) // Total tok/s, ascending: unmeasured first, then 195.7
	if got := r.Table.Cells[1][4]; got != "195.7" {
		t.Errorf("second row by total tok/s ascending = %q, want 195.7", got)
	}
	r.Table.SortBy(4) // tapping again reverses
	if got := r.Table.Cells[0][4]; got != "20K" {
		t.Errorf("first row by total tok/s descending = %q, want the prefill's 20K", got)
	}
	if got := r.Table.HeaderText(4); !strings.HasSuffix(got, "▼") {
		t.Errorf("sorted header = %q, want a ▼", got)
	}
}

func TestResultsFallsBackWithoutCharts(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Charts = fakeCharts{err: errBoom}
	u := newTestUI(t, d, app.Options{})
	u.results.Show(cannedReport("tiny", 195.7), "")
	waitFor(t, u.results.Rendered, "the charts")
	if u.results.Charts[charts.KindHeatmap].Objects[0] != u.results.Heat.Object() {
		t.Error("without charts the decode view does not fall back to the live heatmap")
	}
	if c := u.results.Heat.Cell(1024, 128); c == nil || c.Label() != "Over capacity" {
		t.Error("fallback heatmap misses the Over capacity cell")
	}
	if !apptest.HasText(u.results.Charts[charts.KindPrefill], "boom") {
		t.Error("the prefill view does not say why the chart is missing")
	}
}

func TestExportWritesEveryFile(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	dir := filepath.Join(t.TempDir(), "out")
	if err := u.results.ExportAll(dir); err == nil {
		t.Error("export without a report did not fail")
	}
	u.results.Show(cannedReport("tiny", 195.7), "")
	if err := u.results.ExportAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range exportFileNames() {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %v, %d bytes", name, err, len(b))
		}
		if strings.HasSuffix(name, ".png") && !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", name)
		}
	}
	js, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if !bytes.Contains(js, []byte(`"schema_version"`)) || !bytes.Contains(js, []byte(`"simulated": true`)) {
		t.Error("report.json lacks the schema version or the simulated flag")
	}
}

func TestCopyMarkdown(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.results.Show(cannedReport("tiny", 195.7), "")
	u.results.OnCopyMarkdown()
	got := u.App.Clipboard().Content()
	if !strings.HasPrefix(got, "# Speed test matrix") || !strings.Contains(got, "simulated (profile tiny)") {
		t.Errorf("clipboard holds %.80q…, want the report's Markdown", got)
	}
}

func TestScreenshotOfResults(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.results.Show(cannedReport("tiny", 195.7), "")
	waitFor(t, u.results.Rendered, "the charts")
	dir := t.TempDir()
	if err := u.results.Screenshot(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, results.ScreenshotFile))
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("screenshot: %v, PNG %v", err, bytes.HasPrefix(b, []byte("\x89PNG")))
	}
}

// TestMeasurementsHeadersShowWhole: every column of All measurements is
// wide enough for its header, sort arrow included ("Measured for" was cut
// to "Measured fo…").
func TestMeasurementsHeadersShowWhole(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.Win.Resize(fyne.NewSize(2400, 800)) // every column on screen
	r := u.results
	r.Show(cannedReport("tiny", 195.7), "")
	u.Show(app.TabResults)
	r.Views.SelectIndex(4)
	r.Table.SortBy(len(r.Table.Columns) - 1) // the last column carries the arrow
	seen := 0
	apptest.Walk(r.Table.Table, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*widget.Button); ok && b.Visible() && b.Text != "" {
			seen++
			if b.Size().Width < b.MinSize().Width {
				t.Errorf("header %q is %.0f px wide, needs %.0f", b.Text, b.Size().Width, b.MinSize().Width)
			}
		}
		return false
	})
	if seen != len(r.Table.Columns) {
		t.Errorf("found %d headers, want %d", seen, len(r.Table.Columns))
	}
}

// TestResultsBannerLeavesTheCharts: at 1024×700 a failed export's banner,
// its details open, sits above the chart tabs, not over them, and leaves
// the charts most of their height.
func TestResultsBannerLeavesTheCharts(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.Win.Resize(fyne.NewSize(1024, 700))
	r := u.results
	r.Show(cannedReport("tiny", 195.7), "")
	u.Show(app.TabResults)
	dir := "/nonexistent-parent/" + strings.Repeat("a-long-folder-name/", 4) + "20260102-030405-tiny"
	r.FinishExport(results.ExportOutcome{Dir: dir, Failed: exportFileNames(), Err: errors.New("export: mkdir " + dir + ": permission denied")})
	r.Banner.OnToggle()
	u.Win.Content().Refresh()
	pos := func(o fyne.CanvasObject) fyne.Position {
		return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
	}
	bannerBottom := pos(r.Banner.Object()).Y + r.Banner.Object().Size().Height
	if tabs := pos(r.Views).Y; tabs < bannerBottom {
		t.Errorf("the chart tabs start at y %.0f, inside the banner (to %.0f)", tabs, bannerBottom)
	}
	if h := r.Views.Size().Height; h < 250 {
		t.Errorf("the charts keep %.0f px of 700", h)
	}
}

// TestResultsShowsTheLatestSavedRunAtStart: an app started again shows the
// newest saved run in Results, saying where it is kept, without leaving the
// screen it opens on; a scripted run (--autorun) shows only its own.
func TestResultsShowsTheLatestSavedRunAtStart(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	u := newTestUI(t, d, app.Options{})
	older, newer := cannedReport("older", 120), cannedReport("newer", 195.7)
	newer.Run.StartedAt = older.Run.StartedAt.Add(time.Hour)
	for _, rep := range []engine.Report{newer, older} {
		if _, err := saveRun(u.UI, rep); err != nil {
			t.Fatal(err)
		}
	}
	if u.results.Has {
		t.Fatal("saving runs filled Results")
	}

	again := newTestUI(t, d, app.Options{})
	r := again.results
	if !r.Has || r.Report.Run.ServedModel != "newer" || !strings.Contains(r.Subtitle.Text, "Saved in "+d.RunsDir) {
		t.Fatalf("after a restart Results shows %v %q, subtitle %q; want the newest saved run", r.Has, r.Report.Run.ServedModel, r.Subtitle.Text)
	}
	if got := again.Tabs.Selected().Text; got != app.TabHardware {
		t.Errorf("the app opened on %s, want the Hardware screen as ever", got)
	}
	waitFor(t, r.Rendered, "the charts of the saved run")

	if scripted := newTestUI(t, d, app.Options{Autorun: true}); scripted.results.Has {
		t.Error("--autorun shows a saved run before its own")
	}
}

// TestRemoteEndpointIsNotThisMachine: a run against a remote endpoint
// does not name this machine's CPU as the server's hardware, in Results'
// title, the report's Hardware section or History; it says the server's
// hardware is unknown.
func TestRemoteEndpointIsNotThisMachine(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "http://192.0.2.10:8000"})
	u.server.Model.SetText("tiny")
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the run")
	h := eng.lastTarget().Header.Hardware
	if h.Whose != engine.HardwareOfRemote || h.CPU != "" || eng.lastTarget().SimulatorFor == nil {
		t.Errorf("run header Hardware %+v (simulator recognised %v): want a remote server's, without this machine's CPU", h, eng.lastTarget().SimulatorFor != nil)
	}
	if got, want := u.results.Title.Text, "tiny · remote server, hardware unknown"; got != want {
		t.Errorf("Results title %q, want %q", got, want)
	}
	if strings.Contains(u.results.Title.Text, "Test CPU") {
		t.Error("the title names the client's CPU")
	}
	u.history.Reload()
	if e := u.history.Entries; len(e) != 1 || e[0].Sum.GPU != "remote server, hardware unknown" {
		t.Errorf("History lists %+v", e)
	}
}
