package shell

import (
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/app/history"
	"speedmatrix/app/results"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/quality"
)

// writeReference writes a small, valid reference of model into dir and
// returns its path.
func writeReference(t *testing.T, dir, model string) string {
	t.Helper()
	top := quality.NewTopK(map[int]float64{5: -0.1, 6: -3})
	ref := quality.Reference{Header: quality.Header{FormatVersion: quality.FormatVersion, Model: model, Tokenizer: "sha256:" + strings.Repeat("ab", 32),
		K: 2, ContinuationTokens: 2, Contexts: []int{512}, RecordedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)},
		Probes: []quality.Probe{{ContextTokens: 512, Prompt: []int{1, 2, 3}, Continuation: []int{5, 5}, TopK: []quality.TopK{top, top}}}}
	data, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ref.quality.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestQualityFieldStates: the Matrix screen's Quality field, in each
// state, gives the state what the Run screen starts, and a file it can't
// use is one line in the field's words, shown on the Matrix screen and
// refused by Start before anything runs.
func TestQualityFieldStates(t *testing.T) {
	uiOnly(t)
	dir := t.TempDir()
	good := writeReference(t, dir, "Qwen/Qwen3-0.6B")
	notRef := filepath.Join(dir, "results.json")
	if err := os.WriteFile(notRef, []byte(`{"schema_version": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	taken := filepath.Join(dir, "taken.quality.json")
	if err := os.WriteFile(taken, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, mode, path string
		want             string // the problem's line; "" for none
	}{
		{"off", app.QualityOff, "", ""},
		{"compare, nothing chosen", app.QualityCompare, "", "Quality: no reference chosen."},
		{"compare, a missing file", app.QualityCompare, filepath.Join(dir, "gone.json"), "Quality: gone.json cannot be read (no such file or directory)."},
		{"compare, not a reference", app.QualityCompare, notRef, "Quality: results.json is not a quality reference: it has no format_version."},
		{"compare, a reference", app.QualityCompare, good, ""},
		{"record, nothing chosen", app.QualityRecord, "", "Quality: no file to record the reference into."},
		{"record over a file", app.QualityRecord, taken, "Quality: taken.quality.json already exists, and a reference is recorded once."},
		{"record, a new file", app.QualityRecord, filepath.Join(dir, "new.quality.json"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng := &fakeEngine{events: cannedEvents()}
			u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
			m := u.matrix
			q := m.Quality
			q.Pick = func(ok func(string)) { ok(c.path) }
			q.Save = q.Pick
			q.Mode.SetSelected(c.mode)
			if c.path != "" {
				q.OnChoose()
			}
			st := u.State.Quality
			if st.Mode != c.mode || (c.mode != app.QualityOff && st.Path != c.path) {
				t.Errorf("state has %q %q; want %q %q", st.Mode, st.Path, c.mode, c.path)
			}
			if got := m.Settings().Quality; got.Mode != c.mode || got.Path != c.path {
				t.Errorf("remembered %+v; want %q %q", got, c.mode, c.path)
			}
			if q.Row.Visible() != (c.mode != app.QualityOff) {
				t.Errorf("the file row shown %v with %s", q.Row.Visible(), c.mode)
			}
			if c.want == "" {
				if st.Err != nil || m.Banner.Visible() {
					t.Fatalf("a usable field: error %v, banner %v %q", st.Err, m.Banner.Visible(), m.Banner.Current.Message)
				}
				return
			}
			if n := m.Banner.Current; !m.Banner.Visible() || n.Message != c.want || n.Action == "" {
				t.Errorf("Matrix banner %v %q (%q); want %q with what to do", m.Banner.Visible(), n.Message, n.Action, c.want)
			}
			u.run.OnStart()
			if u.run.Running() || len(eng.plans) != 0 {
				t.Fatalf("a run started with Quality: %v", st.Err)
			}
			if n := u.run.Banner.Current; n.Message != c.want || n.Button != "Open Matrix screen" {
				t.Errorf("Run banner %q (button %q); want %q", n.Message, n.Button, c.want)
			}
		})
	}
}

// TestHistoryComparesQuality: two runs measured against the same reference
// show, under the A/B chart, each side's drift per context both measured
// and the needle McNemar test of the trials both ran; runs against
// different references (or none) show none.
func TestHistoryComparesQuality(t *testing.T) {
	head := engine.QualityHeader{Model: "m", Tokenizer: "sha256:x", RecordedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	right := func(n, of int) []bool {
		c := make([]bool, of)
		for i := range n {
			c[i] = true
		}
		return c
	}
	with := func(rep engine.Report, h engine.QualityHeader, top1, kld float64, needle []bool) engine.Report {
		rep.Quality = &engine.QualityReport{Reference: h,
			Contexts: []engine.ContextDrift{{ContextTokens: 8192, Positions: 1024, Top1Pct: top1, KLDMean: kld}},
			Needle:   []engine.NeedleContext{{ContextTokens: 8192, Seed: 7, Correct: needle}}}
		return rep
	}
	a := with(cannedReport("a", 100), head, 99.5, 0.0012, right(19, 20))
	b := with(cannedReport("b", 120), head, 93.1, 0.034, right(12, 20))
	got := strings.Join(history.QualityLines(a, b), "\n")
	for _, want := range []string{"8K: top-1 99.50 % → 93.10 %, KLD mean 0.0012 → 0.034", "needle 8K: 19/20 → 12/20, p = 0.0156"} {
		if !strings.Contains(got, want) {
			t.Errorf("lines lack %q:\n%s", want, got)
		}
	}
	other := head
	other.RecordedAt = other.RecordedAt.Add(time.Hour)
	if l := history.QualityLines(a, with(b, other, 93.1, 0.034, right(12, 20))); l != nil {
		t.Errorf("another reference's run compared: %q", l)
	}
	if l := history.QualityLines(a, cannedReport("c", 1)); l != nil {
		t.Errorf("a run without quality compared: %q", l)
	}

	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	b.Run.StartedAt = b.Run.StartedAt.Add(time.Hour)
	mustSave(t, h, a)
	mustSave(t, h, b)
	h.Reload()
	h.OnCompare()
	if !strings.Contains(h.Status.Text, "8K: top-1 99.50 % → 93.10 %") || !strings.Contains(h.Status.Text, "needle 8K: 19/20 → 12/20") {
		t.Errorf("History's A/B status lacks the drift:\n%s", h.Status.Text)
	}
}

// kindsAsked is fakeCharts that records the kinds of picture asked for.
type kindsAsked struct {
	fakeCharts
	mu    sync.Mutex
	kinds []charts.Kind
}

func (k *kindsAsked) Picture(kind charts.Kind, r engine.Report, p charts.Pane, dark bool) (image.Image, error) {
	k.mu.Lock()
	k.kinds = append(k.kinds, kind)
	k.mu.Unlock()
	return k.fakeCharts.Picture(kind, r, p, dark)
}

// qualityReport is a simulated run with a quality section: drift over the
// budget at 8K, the needle task paired with the reference's, and a task
// run with a flipped item.
func qualityReport() engine.Report {
	rep := cannedReport("tiny", 195.7)
	ci := func(lo, hi float64) engine.QualityInterval { return engine.QualityInterval{Lo: lo, Hi: hi} }
	rep.Quality = &engine.QualityReport{
		Reference: engine.QualityHeader{Model: "tiny", Tokenizer: "sha256:x", RecordedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)},
		Server:    engine.QualityServer{Model: "tiny", Server: rep.Server},
		Contexts: []engine.ContextDrift{
			{ContextTokens: 1024, Probes: 8, Positions: 1024, Top1Pct: 99.5, KLDMean: 0.0012, KLDP99: 0.02, CI: engine.QualityIntervals{Top1Pct: ci(99.1, 99.8)}},
			{ContextTokens: 8192, Probes: 8, Positions: 1024, Top1Pct: 93.1, KLDMean: 0.034, KLDP99: 0.4, CI: engine.QualityIntervals{Top1Pct: ci(92.0, 94.2)}},
		},
		Needle: []engine.NeedleContext{{ContextTokens: 8192, Seed: 7, Correct: make([]bool, 20), AccuracyPct: 60,
			Reference: &engine.PairedRuns{Items: 20, Before: 19, After: 12, BeforeOnly: 7, P: 0.016}}},
		Tasks: &engine.TaskRun{File: "gsm8k.jsonl", Items: 2, Correct: []bool{true, false}, AccuracyPct: 50,
			Reference: &engine.PairedRuns{Items: 2, Before: 2, After: 1, BeforeOnly: 1, P: 1},
			Flipped:   []engine.TaskFlip{{Line: 2, Prompt: "What is 6 × 7?", Now: false}}},
		Budget:   "kld=0.01,top1=98%",
		Verdicts: []engine.QualityJudged{{ContextTokens: 1024, Floor: true}, {ContextTokens: 8192, Floor: true, Real: true, OverBudget: true}},
	}
	return rep
}

// TestResultsQualityTab: a report with a quality section gets a Quality
// tab with its drift chart drawn as the other charts are, and the tables
// of its figures: drift per context, the needle McNemar line, the task run
// and its flipped item, all saying simulated where the server was; a
// report without one has no Quality tab.
func TestResultsQualityTab(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	asked := &kindsAsked{}
	d.Charts = asked
	u := newTestUI(t, d, app.Options{})
	r := u.results
	r.Show(qualityReport(), "")
	waitFor(t, r.Rendered, "the charts")
	if !results.ContainsTab(r.Views, r.Quality.Tab) {
		t.Fatal("no Quality tab for a report with a quality section")
	}
	asked.mu.Lock()
	drawn := slices.Contains(asked.kinds, charts.KindQuality)
	asked.mu.Unlock()
	if !drawn || len(r.Charts[charts.KindQuality].Objects) == 0 {
		t.Errorf("the drift chart was not drawn: asked %v", asked.kinds)
	}
	var cells []string
	for _, tbl := range []charts.Table{r.Quality.Model.Drift, r.Quality.Model.Needle, r.Quality.Model.Tasks} {
		for _, row := range tbl.Rows {
			cells = append(cells, strings.Join(row.Cells, " | "))
		}
	}
	shown := strings.Join(cells, "\n") + "\n" + r.Quality.Title.Text + "\n" + strings.Join(r.Quality.Model.Flipped, "\n")
	for _, want := range []string{"(simulated)", "93.1 %", "99.5 %", "19/20 → 12/20, p = 0.016", "gsm8k.jsonl", "line 2, now wrong", "over the budget"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the Quality tab lacks %q:\n%s", want, shown)
		}
	}
	if len(r.Quality.Tables.Objects) < 6 {
		t.Errorf("the tab shows %d tables and notes; want the three tables with their titles", len(r.Quality.Tables.Objects))
	}
	r.Show(cannedReport("plain", 100), "")
	waitFor(t, r.Rendered, "the charts")
	if results.ContainsTab(r.Views, r.Quality.Tab) {
		t.Error("a report without a quality section has a Quality tab")
	}
}

// TestCompareSettingsQualityBudget: Compare settings… measures quality
// when asked, at the default budget, and a budget field that does not read
// is one line in its words that keeps Start sweep off.
func TestCompareSettingsQualityBudget(t *testing.T) {
	uiOnly(t)
	u := sweepUI(t, &simLauncher{t: t})
	u.server.Launch.OnCompare()
	f := u.server.Launch.Compare
	setRow(f, 0, "kv_cache_dtype", "fp8")
	q := f.Quality
	if q.Fields.Visible() || q.Setup != nil || f.StartBtn.Disabled() {
		t.Fatalf("quality off: fields shown %v, setup %v, Start off %v", q.Fields.Visible(), q.Setup, f.StartBtn.Disabled())
	}
	for _, c := range []struct {
		name, kld, top1 string
		budget          string // the sweep's; "" when refused
		problem         string
	}{
		{"the default", "0.01", "98 %", "kld=0.01,top1=98%", ""},
		{"top-1 alone", "", "99.5", "top1=99.5%", ""},
		{"a negative KLD", "-1", "98", "", "KLD mean at most: write a KL divergence in nats, a positive number such as 0.01."},
		{"a KLD in percent", "1%", "98", "", "KLD mean at most: write a KL divergence in nats, a positive number such as 0.01."},
		{"top-1 over 100", "0.01", "120 %", "", "Top-1 agreement at least: write a percentage above 0 and at most 100, such as 98 %."},
		{"top-1 two numbers", "0.01", "98, 99", "", "Top-1 agreement at least: write a percentage above 0 and at most 100, such as 98 %."},
		{"nothing bounded", " ", "", "", "Quality budget: write a KLD mean at most (e.g. 0.01) or a Top-1 agreement at least (e.g. 98 %)."},
	} {
		t.Run(c.name, func(t *testing.T) {
			q.On.SetChecked(true)
			q.Kld.SetText(c.kld)
			q.Top1.SetText(c.top1)
			if !q.Fields.Visible() {
				t.Error("the budget fields are hidden with quality on")
			}
			if c.budget != "" {
				if q.Setup == nil || q.Setup.Budget != c.budget || q.Problem.Visible() || f.StartBtn.Disabled() {
					t.Errorf("setup %+v, problem %q, Start off %v; want budget %q", q.Setup, q.Problem.Text, f.StartBtn.Disabled(), c.budget)
				}
				return
			}
			if q.Setup != nil || !q.Problem.Visible() || q.Problem.Text != c.problem || !f.StartBtn.Disabled() {
				t.Errorf("setup %+v, problem %v %q, Start off %v; want %q", q.Setup, q.Problem.Visible(), q.Problem.Text, f.StartBtn.Disabled(), c.problem)
			}
		})
	}
	// Start sweep runs the budget the fields write.
	q.Kld.SetText("0.02")
	q.Top1.SetText("97")
	var job *app.SweepJob
	u.server.Runs = sweepCatcher{&job}
	f.OnStart()
	u.run.Stop(10 * time.Second)
	if job == nil || job.S.Quality == nil || job.S.Quality.Budget != "kld=0.02,top1=97%" || job.S.Quality.NeedleTrials == 0 {
		t.Errorf("Start sweep ran %+v; want quality at budget kld=0.02,top1=97%% with the needle task", job)
	}
}

// sweepCatcher stands in for the Run screen: it keeps the sweep it is
// asked to run.
type sweepCatcher struct{ job **app.SweepJob }

func (c sweepCatcher) ResumeRun(engine.Report, string) {}
func (c sweepCatcher) StartSweep(job *app.SweepJob)    { *c.job = job }
