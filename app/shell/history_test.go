package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// libFixture is a real llm-inference-bench 0.4.18 results file (see
// engine/report/testdata/README.md).
const libFixture = "../../engine/report/testdata/llm-inference-bench-0.4.18.json"

func readFixture(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// rowOf is the list row showing title, after the list drew its rows.
func rowOf(t *testing.T, h *historyTab, title string) *historyRow {
	t.Helper()
	h.list.Refresh()
	for _, r := range h.rows {
		if r.title.Text == title && r.title.Visible() {
			return r
		}
	}
	t.Fatalf("no row titled %q in the list", title)
	return nil
}

func TestHistorySavesEveryRunAndOpensIt(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	d := testDeps(t, eng)
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	u.run.onStart()
	waitFor(t, u.run.uiDone, "the run")
	waitFor(t, u.results.rendered, "the charts")
	if _, err := os.Stat(filepath.Join(d.RunsDir, "20260102-030405-tiny", "report.json")); err != nil {
		t.Fatalf("run not saved under <timestamp>-<model>: %v", err)
	}
	h := u.history
	if len(h.entries) != 1 || h.entries[0].folder != "20260102-030405-tiny" {
		t.Fatalf("history lists %+v", h.entries)
	}
	date := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Local().Format("2006-01-02 15:04")
	u.Show(app.TabHistory)
	row := rowOf(t, h, "tiny")
	// The fake engine ran 4 cells of the Standard plan's 45.
	if want := "4 of 45 cells · peak 316.5 tok/s · " + date; row.detail.Text != want {
		t.Errorf("row detail %q, want %q", row.detail.Text, want)
	}
	u.results.has = false
	h.list.Select(0)
	h.onOpen()
	if !u.results.has || u.Tabs.Selected().Text != app.TabResults {
		t.Error("opening a saved run does not show it on Results")
	}
	if len(u.results.report.Results) != 4 {
		t.Errorf("opened run has %d results, want 4", len(u.results.report.Results))
	}
	waitFor(t, u.results.rendered, "the charts of the opened run")
}

// TestHistoryBadges: a cancelled run reads Partial, a simulated one
// Simulated, an imported one names its tool; a complete measured run has
// none of them.
func TestHistoryBadges(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	complete := cannedReport("complete-model", 100)
	complete.Run.Complete, complete.Engine.Simulated = true, false
	partial := cannedReport("partial-model", 100)
	partial.Run.StartedAt = partial.Run.StartedAt.Add(time.Hour)
	partial.Run.Incomplete = "interrupted"
	partial.Results[3].Status = engine.StatusCancelled
	partial.Plan = engine.Plan{PrefillContexts: []int{1024}, DecodeContexts: []int{1024, 2048}, Concurrency: []int{1, 2, 128}, MaxOutputTokens: 512}
	mustSave(t, h, complete)
	mustSave(t, h, partial)
	h.importData(readFixture(t, libFixture), "llm-inference-bench-0.4.18.json")
	if len(h.entries) != 3 {
		t.Fatalf("history lists %d runs, want 3", len(h.entries))
	}
	u.Show(app.TabHistory)
	for _, tc := range []struct {
		title                        string
		partial, simulated, imported bool
		detail                       string
	}{
		{"complete-model", false, false, false, "4 cells · peak 316.5 tok/s"},
		{"partial-model", true, true, false, "4 of 7 cells · peak 316.5 tok/s"},
		{"tiny", false, false, true, "8 cells · peak 4,863.4 tok/s"},
	} {
		r := rowOf(t, h, tc.title)
		if r.partial.Visible() != tc.partial || r.simulated.Visible() != tc.simulated || r.imported.Visible() != tc.imported {
			t.Errorf("%s: badges partial %v, simulated %v, imported %v; want %v, %v, %v", tc.title,
				r.partial.Visible(), r.simulated.Visible(), r.imported.Visible(), tc.partial, tc.simulated, tc.imported)
		}
		if !strings.HasPrefix(r.detail.Text, tc.detail) {
			t.Errorf("%s: detail %q, want it to start %q", tc.title, r.detail.Text, tc.detail)
		}
	}
	if !apptest.HasText(rowOf(t, h, "tiny").imported, "Imported · llm-inference-bench 0.4.18") {
		t.Error("the imported badge does not name the tool")
	}
}

// TestHistoryTellsRunsApart: runs of one model against two simulator
// profiles and an endpoint each name their target, in the list and in the
// compare pickers, without the endpoint's password.
func TestHistoryTellsRunsApart(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	tiny, big, remote := cannedReport("tiny-sim", 100), cannedReport("tiny-sim", 100), cannedReport("tiny-sim", 100)
	big.Engine.SimProfile = "big"
	big.Run.StartedAt = big.Run.StartedAt.Add(time.Hour)
	remote.Engine.Simulated = false
	remote.Run.Endpoint = "http://bench:s3cret@gpu1:8000"
	remote.Run.StartedAt = remote.Run.StartedAt.Add(2 * time.Hour)
	for _, r := range []engine.Report{tiny, big, remote} {
		mustSave(t, h, r)
	}
	u.Show(app.TabHistory)
	h.list.Refresh()
	var targets []string
	for _, r := range h.rows {
		if r.title.Text == "tiny-sim" && r.title.Visible() {
			targets = append(targets, r.target.Text)
		}
	}
	slices.Sort(targets)
	if want := []string{"http://bench:<redacted>@gpu1:8000", "profile big", "profile tiny"}; !slices.Equal(targets, want) {
		t.Errorf("the rows name %q, want %q", targets, want)
	}
	date := func(r engine.Report) string { return r.Run.StartedAt.Local().Format("2006-01-02 15:04") }
	want := []string{date(remote) + " · tiny-sim · http://bench:<redacted>@gpu1:8000",
		date(big) + " · tiny-sim · profile big", date(tiny) + " · tiny-sim · profile tiny"}
	for _, s := range []*appwidget.DropDown{h.a, h.b} {
		if !slices.Equal(s.Options, want) {
			t.Errorf("picker options %q, want %q", s.Options, want)
		}
	}
}

func TestHistoryRenameAndDelete(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	u := newTestUI(t, d, app.Options{})
	h := u.history
	a, b := cannedReport("a", 100), cannedReport("b", 150)
	b.Run.StartedAt = b.Run.StartedAt.Add(time.Hour)
	mustSave(t, h, a)
	mustSave(t, h, b)
	h.list.Select(1) // newest first: run a
	h.askName = func(current string, ok func(string)) { ok("  before the  driver update ") }
	h.onRename()
	if got := h.entries[1].title(); got != "before the driver update" {
		t.Errorf("renamed run is titled %q", got)
	}
	if !strings.HasPrefix(h.entries[1].detail(), "a · ") || h.selectedFolder() != h.entries[1].folder {
		t.Errorf("renamed run: detail %q, selected %q", h.entries[1].detail(), h.selectedFolder())
	}
	h.cache = map[string]historyEntry{} // as after a restart
	h.reload()
	if got := h.entries[1].title(); got != "before the driver update" {
		t.Errorf("after a reload the run is titled %q", got)
	}
	h.askName = func(current string, ok func(string)) {
		if current != "before the driver update" {
			t.Errorf("rename starts from %q", current)
		}
		ok("")
	}
	h.onRename()
	if got := h.entries[1].title(); got != "a" {
		t.Errorf("an empty name gives back the model; title %q", got)
	}

	var asked string
	h.confirm = func(title, message string, ok func()) { asked = message; ok() }
	h.list.Select(0)
	h.onDelete()
	gone := filepath.Join(d.RunsDir, runs.Folder(b))
	if !strings.Contains(asked, gone) {
		t.Errorf("the question %q does not name the folder %s", asked, gone)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("run b's folder is still there: %v", err)
	}
	if len(h.entries) != 1 || h.entries[0].title() != "a" || !h.openBtn.Disabled() {
		t.Errorf("after delete: %d runs, open enabled %v", len(h.entries), !h.openBtn.Disabled())
	}
}

// TestHistoryImport imports the llm-inference-bench file, opens it on
// Results, and compares it with a run of ours.
func TestHistoryImport(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Charts = fakeCharts{err: errBoom} // the compare falls back to the grid, which the test reads
	u := newTestUI(t, d, app.Options{})
	h := u.history
	data := readFixture(t, libFixture)
	h.pickFile = func(ok func([]byte, string)) { ok(data, "llm-inference-bench-0.4.18.json") }
	h.onImport()
	if len(h.entries) != 1 || h.entries[0].sum.Imported != "llm-inference-bench 0.4.18" || h.selected != 0 {
		t.Fatalf("after import: %+v, selected %d", h.entries, h.selected)
	}
	folder := h.entries[0].folder
	if !strings.HasSuffix(folder, "-tiny-llm-inference-bench") {
		t.Errorf("imported into %s", folder)
	}
	if !strings.Contains(h.note.Text, "llm-inference-bench 0.4.18 measured these figures, not Speed Matrix") || !h.note.Visible() {
		t.Errorf("the list's note %q (visible %v)", h.note.Text, h.note.Visible())
	}
	if h.status.Text != "" {
		t.Errorf("the import speaks in the comparison's status: %q", h.status.Text)
	}
	h.onImport() // the same file again gets a folder of its own
	if len(h.entries) != 2 || h.entries[0].folder == h.entries[1].folder {
		t.Fatalf("second import: %+v", h.entries)
	}
	h.onOpen()
	if got := u.results.report; len(got.Results) != 8 || got.Run.Imported == nil {
		t.Errorf("opened import: %d results, imported %v", len(got.Results), got.Run.Imported)
	}
	if !apptest.HasText(u.results.badgeBox, "Imported · llm-inference-bench 0.4.18") {
		t.Error("the Results screen does not say the run is imported")
	}
	waitFor(t, u.results.rendered, "the charts of the import")

	ours := cannedReport("tiny", 195.7)
	ours.Run.BenchmarkTool = engine.BenchmarkTool("0.1.0")
	ours.Run.StartedAt = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	mustSave(t, h, ours)
	h.a.SetSelectedIndex(h.index(folder))
	h.b.SetSelectedIndex(h.index(runs.Folder(ours)))
	h.onCompare()
	for _, want := range []string{"A: tiny · imported from llm-inference-bench 0.4.18", "B: tiny · simulated (profile tiny)",
		"benchmark tool: llm-inference-bench 0.4.18 → speedmatrix v0.1.0"} {
		if !strings.Contains(h.status.Text, want) {
			t.Errorf("compare status lacks %q:\n%s", want, h.status.Text)
		}
	}
	if strings.Contains(h.status.Text, "Imported ") {
		t.Errorf("the import message sits above the comparison:\n%s", h.status.Text)
	}
	// 1K × 1: 194.0 tok/s imported, 195.7 ours; the grid replaces the
	// chart once drawing it failed, in the background.
	waitUntil(t, func() bool { return apptest.HasText(h.compareResult, "+0.9 %") }, "the compare grid with the +0.9 % change of the 1K × 1 cell")
}

func TestHistoryImportRejects(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	h.importData([]byte("not a results file"), "notes.txt")
	n := h.banner.Current
	if !h.banner.Visible() || n.Message != "This file is not a run Speed Matrix can import." ||
		!strings.Contains(n.Detail, "notes.txt is neither a Speed Matrix report.json nor an llm-inference-bench results file") ||
		strings.Contains(n.Message+n.Action, "--") {
		t.Errorf("banner %+v", n)
	}
	if len(h.entries) != 0 {
		t.Errorf("a rejected file was listed: %+v", h.entries)
	}
	// One that claims more levels than a run has is refused, saying so.
	huge := strings.Replace(string(readFixture(t, "../../engine/report/testdata/report.json")), `"concurrency": [`,
		`"concurrency": [`+strings.Repeat("7, ", 300), 1)
	h.importData([]byte(huge), "huge.json")
	if n := h.banner.Current; !h.banner.Visible() || n.Message != "This file could not be imported." ||
		!strings.Contains(n.Detail, "huge.json cannot hold a real run: its plan: 308 concurrency levels, more than the 256 a plan may have") || len(h.entries) != 0 {
		t.Errorf("a file claiming 308 levels: banner %+v, entries %+v", n, h.entries)
	}
	// A report.json saved elsewhere imports as one of ours.
	h.importData(readFixture(t, "../../engine/report/testdata/report.json"), "report.json")
	if h.banner.Visible() || len(h.entries) != 1 || h.entries[0].sum.Imported != "" {
		t.Errorf("report.json: banner %v, entries %+v", h.banner.Visible(), h.entries)
	}
}

func TestHistoryCompare(t *testing.T) {
	for _, tc := range []struct {
		name   string
		charts app.ChartDrawer
	}{{"chart image", fakeCharts{}}, {"fallback grid", fakeCharts{err: errBoom}}} {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, &fakeEngine{})
			d.Charts = tc.charts
			u := newTestUI(t, d, app.Options{})
			h := u.history
			a, b := cannedReport("a", 100), cannedReport("b", 150)
			b.Run.StartedAt = b.Run.StartedAt.Add(time.Hour)
			if _, err := saveRun(h.u, a); err != nil {
				t.Fatal(err)
			}
			if _, err := saveRun(h.u, b); err != nil {
				t.Fatal(err)
			}
			if len(h.entries) != 2 {
				t.Fatalf("history lists %d runs, want 2", len(h.entries))
			}
			// By default A is the run before the newest, B the newest.
			if h.pickedFolder(h.a) != runs.Folder(a) || h.pickedFolder(h.b) != runs.Folder(b) {
				t.Errorf("picked A %s, B %s", h.pickedFolder(h.a), h.pickedFolder(h.b))
			}
			h.onCompare()
			waitUntil(t, func() bool {
				img := chartImage(h.compareResult.Objects[0])
				return img != nil && img.Image != nil || apptest.HasText(h.compareResult, "+50.0 %")
			}, "the comparison")
			obj := h.compareResult.Objects[0]
			if isImg := chartImage(obj) != nil; isImg != (tc.name == "chart image") {
				t.Errorf("compare shows %T", obj)
			}
			if tc.name == "fallback grid" && !apptest.HasText(obj, "+50.0 %") {
				t.Error("fallback grid lacks the +50.0 % change of the 1K × 1 cell")
			}
			if !strings.HasPrefix(h.status.Text, "A: a · simulated (profile tiny)\nB: b · simulated") {
				t.Errorf("status %q", h.status.Text)
			}
		})
	}
}

// TestHistoryWordsMatchTheChart: the pickers and the card say A and B, as
// the compare chart does ("B vs A").
func TestHistoryWordsMatchTheChart(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.Show(app.TabHistory)
	content := u.Win.Canvas().Content()
	for _, want := range []string{"from A to B"} {
		if !apptest.HasText(content, want) {
			t.Errorf("History lacks %q", want)
		}
	}
	for _, gone := range []string{"Base", "Compared"} {
		if apptest.HasText(content, gone) {
			t.Errorf("History still says %q", gone)
		}
	}
	if h := u.history; h.a.PlaceHolder != "Run A (the base)" || h.b.PlaceHolder != "Run B (compared with A)" {
		t.Errorf("placeholders %q, %q", h.a.PlaceHolder, h.b.PlaceHolder)
	}
}

func TestDeltaText(t *testing.T) {
	valid := func(v float64) engine.Result { return engine.Result{Status: engine.StatusValid, TotalTokPerSec: v} }
	over := engine.Result{Status: engine.StatusOverCapacity}
	for _, tc := range []struct {
		name        string
		base, other engine.Result
		okB, okO    bool
		want        string
	}{
		{"faster", valid(100), valid(125), true, true, "+25.0 %"},
		{"slower", valid(200), valid(150), true, true, "-25.0 %"},
		{"now over capacity", valid(200), over, true, true, "Valid → Over capacity"},
		{"missing", valid(200), engine.Result{}, true, false, "—"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := deltaText(tc.base, tc.other, tc.okB, tc.okO); got != tc.want {
				t.Errorf("deltaText = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHistorySummaryFiles: the list reads a run's summary file while it is
// newer than its report.json, reads the report again when it changed, and
// lists a damaged run with the reason.
func TestHistorySummaryFiles(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	u := newTestUI(t, d, app.Options{})
	h := u.history
	a := cannedReport("a", 100)
	mustSave(t, h, a)
	dir := filepath.Join(d.RunsDir, runs.Folder(a))
	if _, err := os.Stat(filepath.Join(dir, summaryFile)); err != nil {
		t.Fatalf("no summary file after listing: %v", err)
	}
	// Another program rewrites the run (a resume from the CLI, say).
	changed := cannedReport("a-resumed", 300)
	if err := report.Save(dir, changed); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, report.JSONFile), later, later); err != nil {
		t.Fatal(err)
	}
	h.cache = map[string]historyEntry{}
	h.reload()
	if got := h.entries[0].title(); got != "a-resumed" {
		t.Errorf("after report.json changed the run is titled %q", got)
	}
	// A damaged summary file is read past.
	if err := os.WriteFile(filepath.Join(dir, summaryFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	newer := later.Add(time.Hour) // so that it counts as fresh
	if err := os.Chtimes(filepath.Join(dir, summaryFile), newer, newer); err != nil {
		t.Fatal(err)
	}
	h.cache = map[string]historyEntry{}
	h.reload()
	if got := h.entries[0].sum.PeakTokPerSec; got != 316.5 {
		t.Errorf("with a damaged summary file the peak reads %v", got)
	}
	broken := filepath.Join(d.RunsDir, "20250101-000000-broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, report.JSONFile), []byte("{\"schema_version\": 99}"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.reload()
	i := h.index("20250101-000000-broken")
	if i < 0 || h.entries[i].title() != "20250101-000000-broken" || !strings.Contains(h.entries[i].detail(), "cannot be read: ") ||
		!strings.Contains(h.entries[i].detail(), "update speedmatrix") {
		t.Errorf("damaged run listed as %+v", h.entries)
	}
}

// mustSave saves rep in a new History folder.
func mustSave(t *testing.T, h *historyTab, rep engine.Report) {
	t.Helper()
	if _, err := saveRun(h.u, rep); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryResumesAPartialRun: a partial run of ours offers Resume, which
// finishes it in its own folder; a complete one does not.
func TestHistoryResumesAPartialRun(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	h := u.history
	partial := cannedReport("tiny", 100)
	partial.Plan = engine.DefaultPlan()
	partial.Run.Complete = false
	complete := cannedReport("done", 120)
	complete.Plan, complete.Run.Complete = engine.DefaultPlan(), true
	complete.Run.StartedAt = complete.Run.StartedAt.Add(time.Hour)
	mustSave(t, h, partial)
	mustSave(t, h, complete)
	h.list.Select(h.index(runs.Folder(complete)))
	if !h.resumeBtn.Disabled() {
		t.Error("a complete run offers Resume")
	}
	h.list.Select(h.index(runs.Folder(partial)))
	if h.resumeBtn.Disabled() {
		t.Fatal("a partial run does not offer Resume")
	}
	test.Tap(h.resumeBtn)
	waitFor(t, u.run.uiDone, "the resumed run")
	if tgt := eng.lastTarget(); tgt.Resume == nil || tgt.Resume.Report.Run.ServedModel != "tiny" {
		t.Fatalf("the engine got Resume %+v, want the partial run", tgt.Resume)
	}
	if want := filepath.Join(h.dir(), runs.Folder(partial)); u.run.saver.Dir != want {
		t.Errorf("resumed into %q, want %q", u.run.saver.Dir, want)
	}
}
