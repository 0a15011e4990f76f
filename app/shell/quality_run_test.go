package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/app/results"
	"speedmatrix/app/run"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/sim/simtest"
)

// logprobSim is fakeSim whose target is the real simulator (tiny, fast
// clock) with numerics n, which serves logprobs: the quality phase runs
// against it while the matrix is the fake engine's.
type logprobSim struct {
	fakeSim
	url string
}

func newLogprobSim(t *testing.T, n sim.Numerics) *logprobSim {
	return &logprobSim{url: simtest.URL(t, "tiny", sim.Options{Numerics: n})}
}

func (s *logprobSim) Start(profile, eng string) (measure.Subject, func(), error) {
	t, stop, err := s.fakeSim.Start(profile, eng)
	t.BaseURL = s.url
	return t, stop, err
}

// qualityUI is the app with eng for the matrix and the simulator with
// numerics n as its target, the Matrix screen's plan one decode context
// and its Quality field set to mode and path.
func qualityUI(t *testing.T, eng *fakeEngine, n sim.Numerics, mode, path string) *ui {
	t.Helper()
	d := testDeps(t, eng)
	d.Sim = newLogprobSim(t, n)
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	u.matrix.Decode.SetText("1K")
	q := u.matrix.Quality
	q.Pick = func(ok func(string)) { ok(path) }
	q.Save = q.Pick
	q.Mode.SetSelected(mode)
	q.OnChoose()
	return u
}

// runWithQuality runs the Matrix screen's plan (one decode context) on
// the simulator with the Quality field set to mode and path, and returns
// the report Results shows.
func runWithQuality(t *testing.T, n sim.Numerics, mode, path string) (*ui, engine.Report) {
	t.Helper()
	u := qualityUI(t, &fakeEngine{events: cannedEvents()}, n, mode, path)
	if err := u.State.Quality.Err; err != nil {
		t.Fatalf("Quality field: %v", err)
	}
	u.run.OnStart()
	if u.run.UiDone == nil {
		t.Fatalf("the run did not start: %s", u.run.Banner.Current.Message)
	}
	waitFor(t, u.run.UiDone, "the run and its quality phase")
	if u.run.Banner.Visible() {
		t.Fatalf("the run ended with %q (%s)", u.run.Banner.Current.Message, u.run.Banner.Current.Detail)
	}
	return u, u.results.Report
}

// TestRunRecordsThenComparesQuality: Record a reference saves one after
// the matrix, from the server the run measured; Compare with it then adds
// the quality section to the next run's report (drift at the noise floor
// against the same server, simulated), which Results shows in its
// Quality tab.
func TestRunRecordsThenComparesQuality(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref.quality.json")
	u, rep := runWithQuality(t, sim.Numerics{}, app.QualityRecord, ref)
	fh, err := os.Open(ref)
	if err != nil {
		t.Fatalf("no reference recorded: %v", err)
	}
	r, err := quality.ReadReference(fh)
	fh.Close()
	if err != nil || len(r.Probes) == 0 || len(r.Needle) == 0 || !r.Server.Simulated {
		t.Fatalf("the reference: %v, %d probes, %d needle contexts, simulated %v", err, len(r.Probes), len(r.Needle), r.Server.Simulated)
	}
	if rep.Quality != nil || !rep.Run.Complete {
		t.Errorf("a recording run's report: quality %v, complete %v", rep.Quality, rep.Run.Complete)
	}
	if log := u.run.Log.Text(); !strings.Contains(log, "quality: reference saved") || !strings.Contains(log, "(simulated)") {
		t.Errorf("the log does not say the reference was saved, simulated:\n%s", log)
	}

	u, rep = runWithQuality(t, sim.Numerics{}, app.QualityCompare, ref)
	q := rep.Quality
	if q == nil || len(q.Contexts) == 0 || !rep.Run.Complete || !q.Server.Server.Simulated {
		t.Fatalf("the comparing run's report: quality %+v, complete %v", q, rep.Run.Complete)
	}
	if c := q.Contexts[0]; c.Positions == 0 || c.Top1Pct < 90 {
		t.Errorf("the same server against its own reference: %+v", c)
	}
	if len(q.Needle) == 0 || q.Needle[0].Reference == nil {
		t.Errorf("the needle task is not paired with the reference's: %+v", q.Needle)
	}
	if !strings.Contains(u.matrix.Estimate.Text, " · then quality about") || !strings.Contains(u.run.Log.Text(), "then the quality phase, estimated about") {
		t.Errorf("the estimates leave the phase out: Matrix %q; Run's log:\n%s", u.matrix.Estimate.Text, u.run.Log.Text())
	}
	if !results.ContainsTab(u.results.Views, u.results.Quality.Tab) || !strings.Contains(u.results.Quality.Title.Text, "simulated") {
		t.Errorf("Results: Quality tab %v, title %q", results.ContainsTab(u.results.Views, u.results.Quality.Tab), u.results.Quality.Title.Text)
	}
	saved, err := u.Deps.Store.Load(filepath.Join(u.run.Saver.Kept(), "report.json"))
	if err != nil || saved.Quality == nil {
		t.Errorf("report.json in History: %v, quality %v", err, saved.Quality)
	}
}

// TestRunRefusesAnotherTokenizersReference: a reference recorded with
// another tokenizer is refused before any cell is measured, in the
// Quality field's words, naming both models in its detail.
func TestRunRefusesAnotherTokenizersReference(t *testing.T) {
	ref := writeReference(t, t.TempDir(), "Qwen/Qwen3-0.6B")
	eng := &fakeEngine{events: cannedEvents()}
	u := qualityUI(t, eng, sim.Numerics{}, app.QualityCompare, ref)
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the run to be refused")
	n := u.run.Banner.Current
	if !strings.HasPrefix(n.Message, "Quality: the reference's model and the server's use different tokenizers") ||
		!strings.Contains(n.Detail, "Qwen/Qwen3-0.6B") || !strings.Contains(n.Detail, "tiny") || n.Button != "Open Matrix screen" {
		t.Errorf("banner %q, detail %q, button %q", n.Message, n.Detail, n.Button)
	}
	eng.mu.Lock()
	defer eng.mu.Unlock()
	if len(eng.plans) != 0 {
		t.Error("the matrix ran before the tokenizer was checked")
	}
}

// TestRunCutShortBeforeItsQualityPhase: a comparing run cancelled in its
// cells names its reference in the report saved from the first cell on, is
// not complete, and its Resume asks for the reference again, in the
// Quality field's words, before anything runs; given it, Resume finishes
// the run with its phase.
func TestRunCutShortBeforeItsQualityPhase(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref.quality.json")
	runWithQuality(t, sim.Numerics{}, app.QualityRecord, ref)

	eng := &fakeEngine{events: cannedEvents(), hold: true}
	u := qualityUI(t, eng, sim.Numerics{}, app.QualityCompare, ref)
	q := u.matrix.Quality
	u.run.OnStart()
	waitUntil(t, func() bool { return u.run.Saver.Kept() != "" }, "a cell saved")
	u.run.CancelNow()
	waitFor(t, u.run.UiDone, "the cancelled run")
	rep, dir := u.results.Report, u.run.Saver.Kept()
	if rep.Run.Complete || rep.Quality == nil || rep.Quality.ReferenceFile != "ref.quality.json" || !runs.Pending(rep) {
		t.Fatalf("the cut-short run: complete %v, quality %+v", rep.Run.Complete, rep.Quality)
	}
	saved, err := u.Deps.Store.Load(filepath.Join(dir, "report.json"))
	if err != nil || !runs.Pending(saved) {
		t.Errorf("report.json: %v; pending %v", err, runs.Pending(saved))
	}
	q.Mode.SetSelected(app.QualityOff)
	u.run.ResumeRun(rep, dir)
	if n := u.run.Banner.Current; n.Message != "Quality: this run's quality phase is unfinished." || !strings.Contains(n.Action, "Compare with a reference") {
		t.Errorf("Resume with Quality off: %q (%q)", n.Message, n.Action)
	}
	eng.mu.Lock()
	runsSoFar := len(eng.plans)
	eng.hold = false
	eng.mu.Unlock()
	if runsSoFar != 1 {
		t.Errorf("the engine ran %d times; want once, Resume refused", runsSoFar)
	}
	// With the reference again, Resume finishes the cells and the phase.
	q.Mode.SetSelected(app.QualityCompare)
	u.run.ResumeRun(rep, dir)
	waitFor(t, u.run.UiDone, "the resumed run")
	if got := u.results.Report; !got.Run.Complete || got.Quality == nil || len(got.Quality.Contexts) == 0 {
		t.Errorf("the resumed run: complete %v (%q), quality %+v; banner %q", got.Run.Complete, got.Run.Incomplete, got.Quality, u.run.Banner.Current.Message)
	}
}

// TestQualityPhaseProgress: during the phase the Run screen says what it
// does and what is left, instead of the last cell's line.
func TestQualityPhaseProgress(t *testing.T) {
	cells := engine.Report{Results: make([]engine.Result, 5)}
	if run.PhaseProgress(probe.Event{Phase: probe.PhaseContext}, cells, 0, 0) != nil {
		t.Error("a context's end is no step of progress")
	}
	p := run.PhaseProgress(probe.Event{Phase: probe.PhaseCompare, ContextTokens: 8192, Done: 2, Of: 8}, cells, 10*time.Second, 30*time.Second)
	if p == nil || p.CellIndex != 5 || p.CellCount != 5 || p.ETA != 20*time.Second || p.Quality == nil {
		t.Fatalf("progress %+v: want cell 5 of 5, 20 s left, the phase's step", p)
	}
	if got, want := run.QualityNow(*p.Quality), "Now: quality, comparing with the reference · 8K context · probe 3 of 8"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if got := run.QualityNow(engine.QualityProgress{Step: "needle", ContextTokens: 512, Done: 0, Of: 20}); got != "Now: quality, needle trials · 512 context · trial 1 of 20" {
		t.Errorf("needle line %q", got)
	}
	if p := run.PhaseProgress(probe.Event{Phase: probe.PhaseNeedle}, cells, time.Minute, 30*time.Second); p.ETA != 0 {
		t.Errorf("past the estimate: %v left, want 0", p.ETA)
	}
}
