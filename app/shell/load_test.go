package shell

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/history"
	"speedmatrix/app/matrix"
	"speedmatrix/app/run"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
)

// loadUI is the app on the simulator's tiny profile (model length 8,192,
// 64 sequences at once) with the Matrix screen set to a load test.
func loadUI(t *testing.T, ld *fakeLoad) (*ui, *matrix.LoadForm) {
	t.Helper()
	d := testDeps(t, &fakeEngine{})
	d.Load = ld
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	f := u.matrix.Load
	f.Kind.SetSelected(matrix.KindLoad)
	return u, f
}

// TestLoadFormRefusesBadInput: each bad field gets one message in the
// screen's words, and Start run is off until it is fixed.
func TestLoadFormRefusesBadInput(t *testing.T) {
	uiOnly(t)
	missing := filepath.Join(t.TempDir(), "prompts.jsonl")
	notJSONL := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notJSONL, []byte("just some notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(f *matrix.LoadForm)
		want string // in the error; "" for none
	}{
		{"defaults", func(f *matrix.LoadForm) {}, ""},
		{"rate of 0", func(f *matrix.LoadForm) { f.Rates.SetText("1, 0") }, `Rates: "0" is not a request rate`},
		{"negative rate", func(f *matrix.LoadForm) { f.Rates.SetText("-2") }, `Rates: "-2" is not a request rate`},
		{"no rate", func(f *matrix.LoadForm) { f.Rates.SetText("") }, "Rates: write at least one rate"},
		{"no rate with a burst", func(f *matrix.LoadForm) { f.Rates.SetText(""); f.Burst.SetText("64") }, ""},
		{"requests", func(f *matrix.LoadForm) { f.Requests.SetText("many") }, "Requests per rate: write a whole number of requests"},
		{"no request", func(f *matrix.LoadForm) { f.Requests.SetText("0") }, "Requests per rate: 0 requests per rate: use 1 to"},
		{"short prompts", func(f *matrix.LoadForm) { f.Input.SetText("8") }, "Input tokens: 8 tokens: use at least 32"},
		{"input range backwards", func(f *matrix.LoadForm) { f.Input.SetText("2048:512") }, "Input tokens: \"2048:512\" goes from more tokens to fewer"},
		{"output of 0", func(f *matrix.LoadForm) { f.Output.SetText("0") }, "Output tokens: \"0\" is not a length in tokens"},
		{"longer than the model", func(f *matrix.LoadForm) { f.Input.SetText("512:8000") }, "Input tokens: 8000 prompt and 256 output tokens do not fit the model's max_model_len 8192"},
		{"max concurrency of 0", func(f *matrix.LoadForm) { f.MaxConc.SetText("0") }, "Max concurrency: write most requests open at once"},
		{"burst", func(f *matrix.LoadForm) { f.Burst.SetText("lots") }, "Burst: write requests at once"},
		{"seed", func(f *matrix.LoadForm) { f.Seed.SetText("1.5") }, "Seed: write a whole number"},
		{"TTFT without unit", func(f *matrix.LoadForm) { f.Slo.Ttft.SetText("2") }, `TTFT bound: "2" has no unit: write it like 2s or 500ms`},
		{"dataset gone", func(f *matrix.LoadForm) { f.SetDataset(missing) }, "dataset: prompts.jsonl cannot be used"},
		{"dataset not JSONL", func(f *matrix.LoadForm) { f.SetDataset(notJSONL) }, "dataset: notes.txt cannot be used (notes.txt line 1: "},
		{"two at once", func(f *matrix.LoadForm) { f.Rates.SetText("x"); f.Seed.SetText("y") }, `Rates: "x" is not a request rate: write requests per second above 0, e.g. 1, 2, 4, 8, or sweep; Seed:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, f := loadUI(t, &fakeLoad{})
			tc.edit(f)
			err := u.State.Load.Err
			if tc.want == "" {
				if err != nil || f.Banner.Visible() || u.run.StartBtn.Disabled() {
					t.Fatalf("error %v, banner %v, Start off %v; want a plan and Start on", err, f.Banner.Visible(), u.run.StartBtn.Disabled())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to say %q", err, tc.want)
			}
			if !f.Banner.Visible() || !u.run.StartBtn.Disabled() {
				t.Errorf("banner shown %v, Start off %v; want both", f.Banner.Visible(), u.run.StartBtn.Disabled())
			}
			if !strings.Contains(u.run.ProgressLine.Text, "fix it on the Matrix screen") {
				t.Errorf("Run screen says %q", u.run.ProgressLine.Text)
			}
		})
	}
}

// TestLoadFormPlan: the plan built from the form is the engine.LoadPlan
// the fields say, for rates, a burst and a sweep; the estimate comes from
// measure.EstimateLoad; the form is remembered whole.
func TestLoadFormPlan(t *testing.T) {
	uiOnly(t)
	dataset := filepath.Join(t.TempDir(), "prompts.jsonl")
	if err := os.WriteFile(dataset, []byte(`{"prompt": "hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	slo := engine.SLO{TTFT: 2 * time.Second, ITL: 50 * time.Millisecond, Percentile: 90}
	for _, tc := range []struct {
		name string
		edit func(f *matrix.LoadForm)
		want engine.LoadPlan
	}{
		{"rates", func(f *matrix.LoadForm) {
			f.Rates.SetText("2, 0.5 1")
			f.Arrivals.SetSelected(matrix.ArrivalsConstant)
			f.Requests.SetText("50")
			f.Input.SetText("512:2K")
			f.Output.SetText("128")
			f.MaxConc.SetText("16")
			f.Seed.SetText("7")
			f.Api.SetSelected(string(engine.APICompletions))
			f.Slo.Ttft.SetText("2s")
			f.Slo.Itl.SetText("50ms")
			f.Slo.Pct.SetSelected("p90")
		}, engine.LoadPlan{RatesRPS: []float64{0.5, 1, 2}, Arrivals: engine.ArrivalsConstant, Requests: 50, MaxConcurrency: 16,
			InputTokens: engine.TokenRange{Min: 512, Max: 2048}, OutputTokens: engine.TokenRange{Min: 128, Max: 128}, Seed: 7,
			API: engine.APICompletions, SLO: slo}},
		{"burst", func(f *matrix.LoadForm) { f.Burst.SetText("64") }, engine.LoadPlan{Burst: 64, Requests: 64, Arrivals: engine.ArrivalsBurst,
			InputTokens: engine.TokenRange{Min: 1024, Max: 1024}, OutputTokens: engine.TokenRange{Min: 256, Max: 256}, API: engine.APIChat}},
		{"sweep with a dataset", func(f *matrix.LoadForm) { f.Rates.SetText("sweep"); f.SetDataset(dataset) }, engine.LoadPlan{Sweep: true, SweepRates: engine.DefaultSweepRates,
			Requests: 200, Arrivals: engine.ArrivalsPoisson, Dataset: dataset,
			OutputTokens: engine.TokenRange{Min: 256, Max: 256}, API: engine.APIChat}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, f := loadUI(t, &fakeLoad{})
			tc.edit(f)
			l := u.State.Load
			if l.Err != nil || !l.On || !reflect.DeepEqual(l.Plan, tc.want) {
				t.Fatalf("state's load test: on %v, error %v\nplan %+v\nwant %+v", l.On, l.Err, l.Plan, tc.want)
			}
			if want := "Estimated total: " + app.LoadAbout(tc.want) + " · " + app.LoadWhat(tc.want); f.Estimate.Text != want {
				t.Errorf("estimate %q, want %q", f.Estimate.Text, want)
			}
			back := u.matrix.Settings().Load
			f.Apply(matrix.LoadSettings{Plan: engine.LoadPlan{Requests: 1, RatesRPS: []float64{9}}})
			f.Apply(back)
			f.Refresh()
			if got := u.State.Load.Plan; !back.On || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("remembered (on %v) and shown again, the form reads %+v", back.On, got)
			}
		})
	}
	u, f := loadUI(t, &fakeLoad{})
	f.Rates.SetText("1, 2")
	f.Requests.SetText("60")
	if want := "Estimated total: " + app.FormatAbout(measure.EstimateLoad(u.State.Load.Plan)) + " · 2 rates × 60 requests"; f.Estimate.Text != want {
		t.Errorf("estimate %q, want %q", f.Estimate.Text, want)
	}
	f.Burst.SetText("100")
	if !strings.Contains(f.Warnings.Text, "⚠ Burst: 100 requests at once are more than the server runs (max_num_seqs 64)") {
		t.Errorf("burst above max_num_seqs warns %q", f.Warnings.Text)
	}
	if !f.Rates.Disabled() || !f.Requests.Disabled() {
		t.Error("with a burst, Rates and Requests per rate still take input")
	}
	f.Slo.Ttft.SetText("1.5s")
	if got := u.State.Settings.SLO.TTFT; got != 1500*time.Millisecond {
		t.Errorf("the load form's TTFT bound did not become the SLO in use: %v", got)
	}
	if got := u.matrix.Slo.Ttft.Text; got != "1.5s" {
		t.Errorf("the Matrix form's TTFT bound shows %q, want the load form's 1.5s (one SLO)", got)
	}
	u.matrix.Slo.Itl.SetText("40ms")
	if got := f.Slo.Itl.Text; got != "40ms" || u.State.Load.Plan.SLO.ITL != 40*time.Millisecond {
		t.Errorf("after the Matrix form's ITL bound, the load form shows %q, plans %v", got, u.State.Load.Plan.SLO)
	}
	f.Kind.SetSelected(matrix.KindMatrix)
	if u.State.Load.On || u.run.Load.On {
		t.Error("back on Matrix, Run would still start the load test")
	}
}

// TestLoadRunFillsTheRates: the runner's events fill the Run screen's
// table rate by rate; the finished load test is saved, shown on Results
// and listed in History.
func TestLoadRunFillsTheRates(t *testing.T) {
	ld := &fakeLoad{events: cannedLoadEvents()}
	u, f := loadUI(t, ld)
	f.Rates.SetText("1, 2")
	if got := u.run.LoadView().Cells; len(got) != 2 || got[0][1] != "will run" {
		t.Fatalf("Run screen's planned rates %v", got)
	}
	u.run.OnStart()
	if u.run.UiDone == nil {
		t.Fatalf("load test did not start: %s", u.run.ProgressLine.Text)
	}
	waitFor(t, u.run.UiDone, "the load test to finish")
	waitFor(t, u.results.Rendered, "the curves")
	if got := ld.lastPlan(); !reflect.DeepEqual(got, u.State.Load.Plan) {
		t.Errorf("runner got %+v, want the form's %+v", got, u.State.Load.Plan)
	}
	cells := u.run.LoadView().Cells
	want := [][]string{
		{"1 req/s", "Valid", "198 / 2", "0.98 req/s", "250.0", "40.0 ms", "100 ms", "1,500 ms", "0.90 req/s"},
		{"2 req/s", "Valid", "198 / 2", "1.96 req/s", "500.0", "80.0 ms", "200 ms", "3,000 ms", "1.80 req/s"},
	}
	if !reflect.DeepEqual(cells, want) {
		t.Errorf("Run table\n%v\nwant\n%v", cells, want)
	}
	if got := u.run.ProgressLine.Text; got != "Finished in 0:00: 2 rates." {
		t.Errorf("progress line %q", got)
	}
	if log := u.run.Log.Text(); !strings.Contains(log, "2 req/s: Valid · 1.96 req/s · 500.0 tok/s · TTFT p99 200 ms · E2E p99 3,000 ms · 2 failed") {
		t.Errorf("event log lacks the finished rate:\n%s", log)
	}
	if u.Tabs.Selected().Text != app.TabResults || !u.results.Load.Views.Visible() || u.results.Views.Visible() {
		t.Errorf("after the load test the app shows %q; load views shown %v", u.Tabs.Selected().Text, u.results.Load.Views.Visible())
	}
	if got := u.history.Entries; len(got) != 1 || got[0].Sum.Rates != 2 {
		t.Fatalf("History lists %+v, want the load test", got)
	}
	if got := u.history.Entries[0].Detail(); !strings.HasPrefix(got, "load test · 2 rates (1, 2 req/s) · peak 500.0 tok/s") {
		t.Errorf("History's line %q", got)
	}
}

// TestLoadRunProgress: the current rate's requests, in flight, and the
// client's lag once it is large enough to matter.
func TestLoadRunProgress(t *testing.T) {
	u, f := loadUI(t, &fakeLoad{})
	f.Rates.SetText("1, 2, 4, 8")
	for _, tc := range []struct {
		behindMs float64
		want     string
	}{
		{10, "Now: 4 req/s · sent 124 of 200 · done 120 (3 failed) · 4 in flight"},
		{120, "Now: 4 req/s · sent 124 of 200 · done 120 (3 failed) · 4 in flight · client 120 ms behind schedule"},
	} {
		p := &engine.Progress{CellIndex: 3, CellCount: 4, Elapsed: 65 * time.Second, ETA: 130 * time.Second,
			Load: &engine.LoadProgress{RateRPS: 4, Sent: 124, Done: 120, Requests: 200, InFlight: 4, BehindMs: tc.behindMs, Completed: 117, Failed: 3}}
		u.run.Apply(run.RunUpdate{Progress: p})
		if got := u.run.Current.Text; got != tc.want {
			t.Errorf("behind %v ms: current line %q, want %q", tc.behindMs, got, tc.want)
		}
	}
	if got := u.run.ProgressLine.Text; got != "Rate 3 of 4 · elapsed 1:05 · about 2:10 left" {
		t.Errorf("progress line %q", got)
	}
	if got, want := u.run.Progress.Value, (2+0.6)/4; got != want {
		t.Errorf("progress bar %v, want %v (two rates and 60 %% of the third)", got, want)
	}
	if got := u.run.LoadView().Cells[2][1]; got != "120/200 done" {
		t.Errorf("the current rate's row says %q", got)
	}
}

// TestLoadStopKeepsFinishedRates: Esc stops the load test; the rate that
// finished is kept in its History folder and shown on Results.
func TestLoadStopKeepsFinishedRates(t *testing.T) {
	ld := &fakeLoad{events: cannedLoadEvents()[:2], hold: true}
	u, _ := loadUI(t, ld)
	u.run.OnStart()
	waitUntil(t, func() bool { return u.State.Saved != "" }, "the first rate saved")
	u.Win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	waitFor(t, ld.cancelled, "the runner to see the stop")
	waitFor(t, u.run.UiDone, "the load test to end")
	if got := u.run.ProgressLine.Text; got != "Stopped after 0:00: the finished rates are kept." {
		t.Errorf("progress line %q", got)
	}
	rep, err := u.Deps.Store.Load(u.State.Saved)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Load == nil || len(rep.Load.Results) != 1 || rep.Load.Results[0].RateRPS != 1 || len(rep.Results) != 0 || rep.Run.Complete {
		t.Errorf("saved report: load %+v, %d cells, complete %v; want the 1 req/s rate, no cell, partial", rep.Load, len(rep.Results), rep.Run.Complete)
	}
	if !u.results.Has || len(u.results.Load.Table.Cells) != 1 {
		t.Error("Results does not show the stopped load test's finished rate")
	}
	if u.history.Resumable(u.history.Entries[0]) {
		t.Error("History offers to resume a load test")
	}
}

// TestResultsShowsALoadTest: a load test's report shows its curves and its
// table instead of the heatmaps; a curve that cannot be drawn (an error or
// a panic) says so in its pane.
func TestResultsShowsALoadTest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		charts app.ChartDrawer
		drawn  bool
	}{{"drawn", fakeCharts{}, true}, {"error", fakeCharts{err: errBoom}, false}, {"panic", panickyCharts{}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, &fakeEngine{})
			d.Charts = tc.charts
			u := newTestUI(t, d, app.Options{})
			r := u.results
			r.Show(cannedLoadReport("tiny", 1, 2, 4), "")
			waitFor(t, r.Rendered, "the curves")
			if !r.Load.Views.Visible() || r.Views.Visible() {
				t.Fatal("Results shows the matrix's views for a load test")
			}
			if got := len(r.Load.Table.Cells); got != 3 {
				t.Errorf("per-rate table has %d rows, want 3", got)
			}
			if !strings.Contains(r.Subtitle.Text, "load test · 3 rates (1–4 req/s) · Poisson arrivals · 200 requests per rate") ||
				!strings.Contains(r.Subtitle.Text, "\nseed 0 · input 1,024 tokens · output 256 tokens") ||
				strings.Count(r.Subtitle.Text, "Poisson arrivals") != 1 {
				t.Errorf("subtitle %q", r.Subtitle.Text)
			}
			for _, k := range charts.LoadKinds {
				pane := r.Load.Charts[k]
				img := chartImage(pane.Objects[0])
				said := apptest.HasText(pane, "chart could not be drawn")
				if tc.drawn && (said || img == nil || img.Image == nil) || !tc.drawn && !said {
					t.Errorf("%s pane: says it could not be drawn %v, holds a picture %v; want a picture %v", k, said, img != nil && img.Image != nil, tc.drawn)
				}
			}
			r.Show(cannedReport("tiny", 195.7), "")
			waitFor(t, r.Rendered, "the matrix's charts")
			if r.Load.Views.Visible() || !r.Views.Visible() {
				t.Error("a matrix run after a load test keeps the load views")
			}
		})
	}
}

// TestHistoryComparesLoadTests: two load tests compare rate by rate,
// matched by value; a load test and a matrix do not compare.
func TestHistoryComparesLoadTests(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	a, b := cannedLoadReport("a", 1, 2, 4), cannedLoadReport("b", 2, 4, 8)
	b.Run.StartedAt = b.Run.StartedAt.Add(time.Hour)
	b.Load.Results[0].RequestThroughputRPS = 2.94 // +50 % at 2 req/s
	mustSave(t, h, a)
	mustSave(t, h, b)
	if got := h.Entries[0].Label(); !strings.HasSuffix(got, "b · profile tiny · load test") {
		t.Errorf("picker label %q", got)
	}
	h.OnCompare()
	table, ok := h.CompareResult.Objects[0].(*widget.Table)
	if !ok {
		t.Fatalf("comparison shows %T, want a table", h.CompareResult.Objects[0])
	}
	rows, _ := table.Length()
	if rows != 4 {
		t.Errorf("comparison has %d rows, want 4 (1, 2, 4, 8 req/s)", rows)
	}
	if !strings.HasPrefix(h.Status.Text, "A: a · simulated (profile tiny)\nB: b · simulated (profile tiny)") {
		t.Errorf("status %q", h.Status.Text)
	}
	cmp := report.LoadComparison(a, b)
	if got := cmp[1].Cells()[1]; got != "1.96 req/s → 2.94 req/s (+50.0%)" {
		t.Errorf("requests/s at 2 req/s = %q", got)
	}
	if got := cmp[0].Cells()[1]; got != "0.98 req/s → not measured" {
		t.Errorf("requests/s at 1 req/s, which B did not measure = %q", got)
	}
	if h.CompareCard.Subtitle != history.CompareRates {
		t.Errorf("compare card says %q", h.CompareCard.Subtitle)
	}
	mustSave(t, h, cannedReport("m", 100))
	h.A.SetSelectedIndex(h.Index(runsFolderOf(t, h, "m")))
	h.OnCompare()
	if !strings.HasPrefix(h.Status.Text, "A load test compares only with another load test") || len(h.CompareResult.Objects) != 0 {
		t.Errorf("a matrix against a load test: status %q, %d objects", h.Status.Text, len(h.CompareResult.Objects))
	}
}

// runsFolderOf is the folder of the listed run titled title.
func runsFolderOf(t *testing.T, h *history.Tab, title string) string {
	t.Helper()
	for _, e := range h.Entries {
		if e.Title() == title {
			return e.Folder
		}
	}
	t.Fatalf("no run titled %q in %+v", title, h.Entries)
	return ""
}
