package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/history"
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
func rowOf(t *testing.T, h *history.Tab, title string) *history.Row {
	t.Helper()
	h.List.Refresh()
	for _, r := range h.Rows {
		if r.Title.Text == title && r.Title.Visible() {
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
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the run")
	waitFor(t, u.results.Rendered, "the charts")
	if _, err := os.Stat(filepath.Join(d.RunsDir, "20260102-030405-tiny", "report.json")); err != nil {
		t.Fatalf("run not saved under <timestamp>-<model>: %v", err)
	}
	h := u.history
	if len(h.Entries) != 1 || h.Entries[0].Folder != "20260102-030405-tiny" {
		t.Fatalf("history lists %+v", h.Entries)
	}
	date := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Local().Format("2006-01-02 15:04")
	u.Show(app.TabHistory)
	row := rowOf(t, h, "tiny")
	// The fake engine ran 4 cells of the Standard plan's 45.
	if want := "4 of 45 cells · peak 316.5 tok/s · " + date; row.Detail.Text != want {
		t.Errorf("row detail %q, want %q", row.Detail.Text, want)
	}
	u.results.Has = false
	h.List.Select(0)
	h.OnOpen()
	if !u.results.Has || u.Tabs.Selected().Text != app.TabResults {
		t.Error("opening a saved run does not show it on Results")
	}
	if len(u.results.Report.Results) != 4 {
		t.Errorf("opened run has %d results, want 4", len(u.results.Report.Results))
	}
	waitFor(t, u.results.Rendered, "the charts of the opened run")
}

// TestHistoryBadges: a cancelled run reads Partial, a simulated one
// Simulated, an imported one names its tool; a complete measured run has
// none of them.
func TestHistoryBadges(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	complete := cannedReport("complete-model", 100)
	complete.Run.Complete, complete.Server.Simulated = true, false
	partial := cannedReport("partial-model", 100)
	partial.Run.StartedAt = partial.Run.StartedAt.Add(time.Hour)
	partial.Run.Incomplete = "interrupted"
	partial.Results[3].Status = engine.StatusCancelled
	partial.Plan = engine.Plan{PrefillContexts: []int{1024}, DecodeContexts: []int{1024, 2048}, Concurrency: []int{1, 2, 128}, MaxOutputTokens: 512}
	mustSave(t, h, complete)
	mustSave(t, h, partial)
	h.ImportData(readFixture(t, libFixture), "llm-inference-bench-0.4.18.json")
	if len(h.Entries) != 3 {
		t.Fatalf("history lists %d runs, want 3", len(h.Entries))
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
		if r.Partial.Visible() != tc.partial || r.Simulated.Visible() != tc.simulated || r.Imported.Visible() != tc.imported {
			t.Errorf("%s: badges partial %v, simulated %v, imported %v; want %v, %v, %v", tc.title,
				r.Partial.Visible(), r.Simulated.Visible(), r.Imported.Visible(), tc.partial, tc.simulated, tc.imported)
		}
		if !strings.HasPrefix(r.Detail.Text, tc.detail) {
			t.Errorf("%s: detail %q, want it to start %q", tc.title, r.Detail.Text, tc.detail)
		}
	}
	if !apptest.HasText(rowOf(t, h, "tiny").Imported, "Imported · llm-inference-bench 0.4.18") {
		t.Error("the imported badge does not name the tool")
	}
}

// TestHistoryTellsRunsApart: runs of one model against two simulator
// profiles and an endpoint each name their target, in the list and in the
// compare pickers, without the endpoint's password.
func TestHistoryTellsRunsApart(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	tiny, big, remote := cannedReport("tiny-sim", 100), cannedReport("tiny-sim", 100), cannedReport("tiny-sim", 100)
	big.Server.SimProfile = "big"
	big.Run.StartedAt = big.Run.StartedAt.Add(time.Hour)
	remote.Server.Simulated = false
	remote.Run.Endpoint = "http://bench:s3cret@gpu1:8000"
	remote.Run.StartedAt = remote.Run.StartedAt.Add(2 * time.Hour)
	for _, r := range []engine.Report{tiny, big, remote} {
		mustSave(t, h, r)
	}
	u.Show(app.TabHistory)
	h.List.Refresh()
	var targets []string
	for _, r := range h.Rows {
		if r.Title.Text == "tiny-sim" && r.Title.Visible() {
			targets = append(targets, r.Target.Text)
		}
	}
	slices.Sort(targets)
	if want := []string{"http://bench:<redacted>@gpu1:8000", "profile big", "profile tiny"}; !slices.Equal(targets, want) {
		t.Errorf("the rows name %q, want %q", targets, want)
	}
	date := func(r engine.Report) string { return r.Run.StartedAt.Local().Format("2006-01-02 15:04") }
	want := []string{date(remote) + " · tiny-sim · http://bench:<redacted>@gpu1:8000",
		date(big) + " · tiny-sim · profile big", date(tiny) + " · tiny-sim · profile tiny"}
	for _, s := range []*appwidget.DropDown{h.A, h.B} {
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
	h.List.Select(1) // newest first: run a
	h.AskName = func(current string, ok func(string)) { ok("  before the  driver update ") }
	h.OnRename()
	if got := h.Entries[1].Title(); got != "before the driver update" {
		t.Errorf("renamed run is titled %q", got)
	}
	if !strings.HasPrefix(h.Entries[1].Detail(), "a · ") || h.SelectedFolder() != h.Entries[1].Folder {
		t.Errorf("renamed run: detail %q, selected %q", h.Entries[1].Detail(), h.SelectedFolder())
	}
	h.Cache = map[string]history.Entry{} // as after a restart
	h.Reload()
	if got := h.Entries[1].Title(); got != "before the driver update" {
		t.Errorf("after a reload the run is titled %q", got)
	}
	h.AskName = func(current string, ok func(string)) {
		if current != "before the driver update" {
			t.Errorf("rename starts from %q", current)
		}
		ok("")
	}
	h.OnRename()
	if got := h.Entries[1].Title(); got != "a" {
		t.Errorf("an empty name gives back the model; title %q", got)
	}

	var asked string
	h.Confirm = func(title, message string, ok func()) { asked = message; ok() }
	h.List.Select(0)
	h.OnDelete()
	gone := filepath.Join(d.RunsDir, runs.Folder(b))
	if !strings.Contains(asked, gone) {
		t.Errorf("the question %q does not name the folder %s", asked, gone)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("run b's folder is still there: %v", err)
	}
	if len(h.Entries) != 1 || h.Entries[0].Title() != "a" || !h.OpenBtn.Disabled() {
		t.Errorf("after delete: %d runs, open enabled %v", len(h.Entries), !h.OpenBtn.Disabled())
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
	h.PickFile = func(ok func([]byte, string)) { ok(data, "llm-inference-bench-0.4.18.json") }
	h.OnImport()
	if len(h.Entries) != 1 || h.Entries[0].Sum.Imported != "llm-inference-bench 0.4.18" || h.Selected != 0 {
		t.Fatalf("after import: %+v, selected %d", h.Entries, h.Selected)
	}
	folder := h.Entries[0].Folder
	if !strings.HasSuffix(folder, "-tiny-llm-inference-bench") {
		t.Errorf("imported into %s", folder)
	}
	if !strings.Contains(h.Note.Text, "llm-inference-bench 0.4.18 measured these figures, not Speed Matrix") || !h.Note.Visible() {
		t.Errorf("the list's note %q (visible %v)", h.Note.Text, h.Note.Visible())
	}
	if h.Status.Text != "" {
		t.Errorf("the import speaks in the comparison's status: %q", h.Status.Text)
	}
	h.OnImport() // the same file again gets a folder of its own
	if len(h.Entries) != 2 || h.Entries[0].Folder == h.Entries[1].Folder {
		t.Fatalf("second import: %+v", h.Entries)
	}
	h.OnOpen()
	if got := u.results.Report; len(got.Results) != 8 || got.Run.Imported == nil {
		t.Errorf("opened import: %d results, imported %v", len(got.Results), got.Run.Imported)
	}
	if !apptest.HasText(u.results.BadgeBox, "Imported · llm-inference-bench 0.4.18") {
		t.Error("the Results screen does not say the run is imported")
	}
	waitFor(t, u.results.Rendered, "the charts of the import")

	ours := cannedReport("tiny", 195.7)
	ours.Run.BenchmarkTool = engine.BenchmarkTool("0.1.0")
	ours.Run.StartedAt = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	mustSave(t, h, ours)
	h.A.SetSelectedIndex(h.Index(folder))
	h.B.SetSelectedIndex(h.Index(runs.Folder(ours)))
	h.OnCompare()
	for _, want := range []string{"A: tiny · imported from llm-inference-bench 0.4.18", "B: tiny · simulated (profile tiny)",
		"benchmark tool: llm-inference-bench 0.4.18 → speedmatrix v0.1.0"} {
		if !strings.Contains(h.Status.Text, want) {
			t.Errorf("compare status lacks %q:\n%s", want, h.Status.Text)
		}
	}
	if strings.Contains(h.Status.Text, "Imported ") {
		t.Errorf("the import message sits above the comparison:\n%s", h.Status.Text)
	}
	// 1K × 1: 194.0 tok/s imported, 195.7 ours; the grid replaces the
	// chart once drawing it failed, in the background.
	waitUntil(t, func() bool { return apptest.HasText(h.CompareResult, "+0.9 %") }, "the compare grid with the +0.9 % change of the 1K × 1 cell")
}

func TestHistoryImportRejects(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	h.ImportData([]byte("not a results file"), "notes.txt")
	n := h.Banner.Current
	if !h.Banner.Visible() || n.Message != "This file is not a run Speed Matrix can import." ||
		!strings.Contains(n.Detail, "notes.txt is none of the formats Speed Matrix reads (a Speed Matrix report.json, an llm-inference-bench results file, ") ||
		strings.Contains(n.Message+n.Action, "--") {
		t.Errorf("banner %+v", n)
	}
	if len(h.Entries) != 0 {
		t.Errorf("a rejected file was listed: %+v", h.Entries)
	}
	// One that claims more levels than a run has is refused, saying so.
	huge := strings.Replace(string(readFixture(t, "../../engine/report/testdata/report.json")), `"concurrency": [`,
		`"concurrency": [`+strings.Repeat("7, ", 300), 1)
	h.ImportData([]byte(huge), "huge.json")
	if n := h.Banner.Current; !h.Banner.Visible() || n.Message != "This file could not be imported." ||
		!strings.Contains(n.Detail, "huge.json cannot hold a real run: its plan: 308 concurrency levels, more than the 256 a plan may have") || len(h.Entries) != 0 {
		t.Errorf("a file claiming 308 levels: banner %+v, entries %+v", n, h.Entries)
	}
	// A report.json saved elsewhere imports as one of ours.
	h.ImportData(readFixture(t, "../../engine/report/testdata/report.json"), "report.json")
	if h.Banner.Visible() || len(h.Entries) != 1 || h.Entries[0].Sum.Imported != "" {
		t.Errorf("report.json: banner %v, entries %+v", h.Banner.Visible(), h.Entries)
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
			if _, err := saveRun(h.U, a); err != nil {
				t.Fatal(err)
			}
			if _, err := saveRun(h.U, b); err != nil {
				t.Fatal(err)
			}
			if len(h.Entries) != 2 {
				t.Fatalf("history lists %d runs, want 2", len(h.Entries))
			}
			// By default A is the run before the newest, B the newest.
			if h.PickedFolder(h.A) != runs.Folder(a) || h.PickedFolder(h.B) != runs.Folder(b) {
				t.Errorf("picked A %s, B %s", h.PickedFolder(h.A), h.PickedFolder(h.B))
			}
			h.OnCompare()
			waitUntil(t, func() bool {
				img := chartImage(h.CompareResult.Objects[0])
				return img != nil && img.Image != nil || apptest.HasText(h.CompareResult, "+50.0 %")
			}, "the comparison")
			obj := h.CompareResult.Objects[0]
			if isImg := chartImage(obj) != nil; isImg != (tc.name == "chart image") {
				t.Errorf("compare shows %T", obj)
			}
			if tc.name == "fallback grid" && !apptest.HasText(obj, "+50.0 %") {
				t.Error("fallback grid lacks the +50.0 % change of the 1K × 1 cell")
			}
			if !strings.HasPrefix(h.Status.Text, "A: a · simulated (profile tiny)\nB: b · simulated") {
				t.Errorf("status %q", h.Status.Text)
			}
		})
	}
}

// TestHistoryWordsMatchTheChart: the pickers and the card say A and B, as
// the compare chart does ("B vs A").
func TestHistoryWordsMatchTheChart(t *testing.T) {
	uiOnly(t)
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
	if h := u.history; h.A.PlaceHolder != "Run A (the base)" || h.B.PlaceHolder != "Run B (compared with A)" {
		t.Errorf("placeholders %q, %q", h.A.PlaceHolder, h.B.PlaceHolder)
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
			if got := history.DeltaText(tc.base, tc.other, tc.okB, tc.okO); got != tc.want {
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
	if _, err := os.Stat(filepath.Join(dir, history.SummaryFile)); err != nil {
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
	h.Cache = map[string]history.Entry{}
	h.Reload()
	if got := h.Entries[0].Title(); got != "a-resumed" {
		t.Errorf("after report.json changed the run is titled %q", got)
	}
	// A damaged summary file is read past.
	if err := os.WriteFile(filepath.Join(dir, history.SummaryFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	newer := later.Add(time.Hour) // so that it counts as fresh
	if err := os.Chtimes(filepath.Join(dir, history.SummaryFile), newer, newer); err != nil {
		t.Fatal(err)
	}
	h.Cache = map[string]history.Entry{}
	h.Reload()
	if got := h.Entries[0].Sum.PeakTokPerSec; got != 316.5 {
		t.Errorf("with a damaged summary file the peak reads %v", got)
	}
	broken := filepath.Join(d.RunsDir, "20250101-000000-broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, report.JSONFile), []byte("{\"schema_version\": 99}"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Reload()
	i := h.Index("20250101-000000-broken")
	if i < 0 || h.Entries[i].Title() != "20250101-000000-broken" || !strings.Contains(h.Entries[i].Detail(), "cannot be read: ") ||
		!strings.Contains(h.Entries[i].Detail(), "update speedmatrix") {
		t.Errorf("damaged run listed as %+v", h.Entries)
	}
}

// mustSave saves rep in a new History folder.
func mustSave(t *testing.T, h *history.Tab, rep engine.Report) {
	t.Helper()
	if _, err := saveRun(h.U, rep); err != nil {
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
	h.List.Select(h.Index(runs.Folder(complete)))
	if !h.ResumeBtn.Disabled() {
		t.Error("a complete run offers Resume")
	}
	h.List.Select(h.Index(runs.Folder(partial)))
	if h.ResumeBtn.Disabled() {
		t.Fatal("a partial run does not offer Resume")
	}
	test.Tap(h.ResumeBtn)
	waitFor(t, u.run.UiDone, "the resumed run")
	if tgt := eng.lastTarget(); tgt.Resume == nil || tgt.Resume.Report.Run.ServedModel != "tiny" {
		t.Fatalf("the engine got Resume %+v, want the partial run", tgt.Resume)
	}
	if want := filepath.Join(h.Dir(), runs.Folder(partial)); u.run.Saver.Dir != want {
		t.Errorf("resumed into %q, want %q", u.run.Saver.Dir, want)
	}
}

// TestHistoryImportsPeers: another load-test tool's results file imports
// as a load test labelled with its tool, and two such imports compare
// row by row, matched by their concurrency.
func TestHistoryImportsPeers(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	for _, name := range []string{"guidellm-0.8.1.concurrency.json", "vllm-bench-0.32.0+cpu.concurrency.json"} {
		h.ImportData(readFixture(t, "../../engine/report/testdata/peers/"+name), name)
	}
	if len(h.Entries) != 2 || h.Banner.Visible() {
		t.Fatalf("after import: %+v, banner %+v", h.Entries, h.Banner.Current)
	}
	labels := []string{h.Entries[0].Sum.Imported, h.Entries[1].Sum.Imported}
	slices.Sort(labels)
	if labels[0] != "GuideLLM 0.8.1" || labels[1] != "vllm bench serve (version unknown)" {
		t.Errorf("imported as %q", labels)
	}
	h.A.SetSelectedIndex(0)
	h.B.SetSelectedIndex(1)
	h.OnCompare()
	for _, want := range []string{"imported from GuideLLM 0.8.1", "imported from vllm bench serve (version unknown)", "An imported run was measured by another tool"} {
		if !strings.Contains(h.Status.Text, want) {
			t.Errorf("compare status lacks %q:\n%s", want, h.Status.Text)
		}
	}
	table, ok := h.CompareResult.Objects[0].(*widget.Table)
	if !ok {
		t.Fatalf("comparison shows %T, want a table", h.CompareResult.Objects[0])
	}
	if rows, _ := table.Length(); rows != 1 { // both at 4 requests at once
		t.Errorf("comparison has %d rows, want 1", rows)
	}
}
