package runner

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/sweep"
)

// qualityBudget is met by an fp8 KV cache at 512 and 4K tokens and by an
// int4 one at 512, not at 4K: the simulator's calibration
// (engine/sim/drift_test.go, METHODOLOGY's table) puts fp8 at top-1 ≥ 96.5 %
// and a KLD ≤ 0.02 up to 8K, int4 at top-1 96 to 98 % and a KLD ≤ 0.02 at
// 512, its KLD growing to 0.09 to 0.16 at 8K (0.066 at 4K here).
const qualityBudget = "kld=0.03,top1=94%"

// qualitySweep is a sweep of kv_cache_dtype auto (the baseline), fp8 and
// int4_per_token_head with a quality phase, saved in a new folder with
// its server.toml.
func qualitySweep(t *testing.T) (s sweep.Sweep, dir, server string) {
	t.Helper()
	o := sweep.Origin{Vary: []string{"kv_cache_dtype=fp8,int4_per_token_head"}}
	dir, server = savedSweep(t, o, "")
	s, err := sweep.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Plan.DecodeContexts = []int{512, 4096}
	s.Quality = &sweep.QualitySetup{Budget: qualityBudget, NeedleTrials: 2, Probes: 3, ContinuationTokens: 24}
	if err := sweep.Save(dir, s); err != nil {
		t.Fatal(err)
	}
	return s, dir, server
}

// qualityRunner serves every configuration by the simulator with its KV
// cache dtype (drift calibrated, engine/sim/drift.go), and measures it
// with fixed figures: int4 is the fastest everywhere (+30 %), fp8 next
// (+10 %). notes gets every Progress note.
func qualityRunner(t *testing.T, dir string, notes *[]string, onNote func(string), noLogprobs ...string) *Runner {
	return qualityFakes{notes: notes, onNote: onNote, noLogprobs: noLogprobs}.runner(t, dir)
}

// qualityFakes are what qualityRunner's servers do: each Progress note
// goes to notes and onNote, the configurations of kv_cache_dtype
// noLogprobs answer without logprobs, the names in failLaunch fail to
// start, and measured lists the runs measured.
type qualityFakes struct {
	notes      *[]string
	onNote     func(string)
	noLogprobs []string
	failLaunch map[string]bool
	measured   *[]string
}

func (f qualityFakes) runner(t *testing.T, dir string) *Runner {
	notes, onNote, noLogprobs := f.notes, f.onNote, f.noLogprobs
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	speed := map[string]float64{"": 100, "fp8": 110, "int4_per_token_head": 130}
	return &Runner{Dir: dir, Server: "server.toml", Base: baseTOML, Hooks: Hooks{
		Launch: func(ctx context.Context, c sweep.Config, cfg launch.ServerConfig) (measure.Subject, func(), error) {
			if f.failLaunch[c.Name] {
				return measure.Subject{}, nil, errors.New("CUDA out of memory")
			}
			srv, err := sim.New(sim.Options{Profile: p, TimeScale: 1000, Numerics: sim.Numerics{KVCacheDType: cfg.KVCacheDType}})
			if err != nil {
				return measure.Subject{}, nil, err
			}
			var handler http.Handler = srv
			if slices.Contains(noLogprobs, cfg.KVCacheDType) {
				handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/v1/completions" {
						w.Header().Set("Content-Type", "application/json")
						_, _ = w.Write([]byte(`{"choices":[{"index":0,"text":"x","logprobs":null}]}`))
						return
					}
					srv.ServeHTTP(w, r)
				})
			}
			h := httptest.NewServer(handler)
			return measure.Subject{Target: measure.Target{BaseURL: h.URL}}, func() { h.Close(); srv.Close() }, nil
		},
		Measure: func(ctx context.Context, c sweep.Config, target measure.Subject, dir string, prev *engine.Report) (engine.Report, error) {
			if f.measured != nil {
				*f.measured = append(*f.measured, c.Name)
			}
			kv := ""
			for _, st := range c.Settings {
				kv = strings.Trim(st.Value, `"`)
			}
			r := engine.Report{Plan: engine.Plan{DecodeContexts: []int{512, 4096}, Concurrency: []int{1}}}
			r.Server.Simulated = true
			r.Results = []engine.Result{decodeCell(512, 1, engine.StatusValid, speed[kv], 0.01), decodeCell(4096, 1, engine.StatusValid, speed[kv], 0.01)}
			r.Run.Complete = true
			return r, report.Save(dir, r)
		},
		Progress: func(s sweep.Sweep, i int, note string) {
			if note != "" {
				*notes = append(*notes, s.Configs[i].Name+": "+note)
				if onNote != nil {
					onNote(s.Configs[i].Name + ": " + note)
				}
			}
		},
	}}
}

// TestSweepQualityBestWithinBudget: a sweep with a quality phase over
// kv_cache_dtype auto, fp8 and int4_per_token_head records the baseline
// as the reference, measures the others against it, and answers each
// cell with the fastest configuration within the budget: int4 where its
// drift is within (512), fp8 where int4's is not (4K), int4 named there
// with its figure.
func TestSweepQualityBestWithinBudget(t *testing.T) {
	s, dir, _ := qualitySweep(t)
	var notes []string
	if err := qualityRunner(t, dir, &notes, nil).Run(t.Context(), &s); err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(notes, "\n"))
	}
	const fp8, int4 = "kv_cache_dtype=fp8", "kv_cache_dtype=int4_per_token_head"
	for i, c := range s.Configs {
		if c.Status != sweep.StatusDone || c.Quality == nil || c.Quality.State != sweep.QualityMeasured || c.Quality.Reference != (i == 0) || (i > 0) != (len(c.Quality.Contexts) == 2) {
			t.Fatalf("%s: %s, quality %+v", c.Name, c.Status, c.Quality)
		}
		t.Logf("%s: %s", c.Name, sweep.QualityText(c))
	}
	if s.Answer == nil || s.Answer.Budget != qualityBudget || len(s.Answer.Cells) != 2 {
		t.Fatalf("answer %+v", s.Answer)
	}
	want := map[int]string{512: int4, 4096: fp8}
	for _, ca := range s.Answer.Cells {
		line := sweep.CellLine(ca)
		t.Log(line)
		if ca.Best != int4 || ca.WithinBudget != want[ca.ContextTokens] || ca.BudgetMissed != (ca.ContextTokens == 4096) {
			t.Errorf("%s: best %q, within budget %q (want %q), missed %v", ca.Label, ca.Best, ca.WithinBudget, want[ca.ContextTokens], ca.BudgetMissed)
		}
		if ca.ContextTokens == 4096 && (ca.BestDrift == nil || !ca.BestDrift.KLDOver || !strings.HasPrefix(line,
			"4K × 1: "+int4+" is fastest here (+30.0% over baseline), but drifts: KLD 0.0") ||
			!strings.HasSuffix(line, " at 4K, over the budget; best within budget: "+fp8+", +10.0% over baseline")) {
			t.Errorf("%s: %q, best's drift %+v", ca.Label, line, ca.BestDrift)
		}
		if ca.ContextTokens == 512 && line != "512 × 1: "+int4+", +30.0% over baseline, +18.2% over "+fp8 {
			t.Errorf("%s: %q", ca.Label, line)
		}
		if slices.ContainsFunc(ca.Entries[1:], func(e sweep.Entry) bool { return e.Drift == nil }) {
			t.Errorf("%s: an entry lacks its drift: %+v", ca.Label, ca.Entries)
		}
	}
	// The report of each run carries its quality section; the reference
	// is in the folder, as sweep.json's digest says.
	for _, c := range s.Configs {
		r, err := report.Load(filepath.Join(sweep.RunDir(dir, c), report.JSONFile))
		if err != nil || r.Quality == nil || (!c.Baseline && len(r.Quality.Contexts) != 2) || len(r.Quality.Needle) != 2 {
			t.Errorf("%s's report.json: quality %+v, %v", c.Name, r.Quality, err)
		}
	}
	if _, _, err := LoadReference(dir, s); err != nil {
		t.Errorf("reference: %v", err)
	}
	md := sweep.Markdown(s, nil, EstimateBasis(s))
	for _, w := range []string{"## Quality budget", "Budget: " + qualityBudget, "| " + int4 + " | Done |", "over budget: KLD 0.0", "within budget: top-1 "} {
		if !strings.Contains(md, w) {
			t.Errorf("sweep.md lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(md, "†") {
		t.Errorf("sweep.md keeps the † where a drift was measured:\n%s", md)
	}
	// sweep.csv gives each cell its configuration's drift at the cell's
	// context: int4 is over the budget at 4K only, the baseline blank.
	var csvBuf bytes.Buffer
	all, _ := sweep.LoadRuns(dir, s)
	if err := sweep.WriteCSV(&csvBuf, s, all); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(&csvBuf).ReadAll()
	qualityCSVHeader := []string{"quality_context_tokens", "quality_top1_pct", "quality_kld_mean", "quality_over_budget"}
	col := len(rows[0]) - len(qualityCSVHeader)
	if !slices.Equal(rows[0][col:], qualityCSVHeader) {
		t.Fatalf("sweep.csv header %v", rows[0])
	}
	for _, row := range rows[1:] {
		over, name, ctx := row[len(row)-1], row[0], row[2]
		want := map[bool]string{true: "true", false: "false"}[name == int4 && ctx == "4096"]
		if name == s.Configs[0].Name {
			want = ""
		}
		if over != want || (want != "" && row[col] != ctx) {
			t.Errorf("sweep.csv row %v: over budget %q at %s, want %q measured at the cell's context", row, over, row[col], want)
		}
	}
	// A configuration's Looped cells stand beside its drift.
	runs, _ := sweep.LoadRuns(dir, s)
	r := runs[int4]
	r.Results[1].Status = engine.StatusLooped
	runs[int4], s.Answer = r, nil
	if md := sweep.Markdown(s, runs, EstimateBasis(s)); !strings.Contains(md, "- "+int4+": Looped in 1 of 2 cells; drift KLD 0.0") {
		t.Errorf("sweep.md does not put int4's Looped cells beside its drift:\n%s", md)
	}
}

// TestSweepQualityResumeAndNoLogprobs: a sweep interrupted in fp8's
// quality phase resumes it where it stopped, from the saved reference,
// without recording the baseline again; a configuration whose server
// gives no logprobs is "not measured", and the sweep goes on; a resume
// refuses a reference whose digest is not sweep.json's.
func TestSweepQualityResumeAndNoLogprobs(t *testing.T) {
	s, dir, server := qualitySweep(t)
	const fp8, int4 = "kv_cache_dtype=fp8", "kv_cache_dtype=int4_per_token_head"
	ctx, cancel := context.WithCancel(t.Context())
	var notes []string
	err := qualityRunner(t, dir, &notes, func(n string) {
		if strings.HasPrefix(n, fp8+": quality: 512: compared in") {
			cancel()
		}
	}, "int4_per_token_head").Run(ctx, &s)
	if !errors.Is(err, measure.ErrInterrupted) || s.Configs[1].Quality == nil || s.Configs[1].Quality.State != sweep.QualityPartial {
		t.Fatalf("interrupted: %v, %+v\n%s", err, s.Configs[1].Quality, strings.Join(notes, "\n"))
	}
	s, _, err = Resume(dir, Inputs{Server: server})
	if err != nil {
		t.Fatal(err)
	}
	notes = nil
	if err := qualityRunner(t, dir, &notes, nil, "int4_per_token_head").Run(t.Context(), &s); err != nil {
		t.Fatalf("resume: %v\n%s", err, strings.Join(notes, "\n"))
	}
	text := strings.Join(notes, "\n")
	if strings.Contains(text, "recording the baseline") || strings.Contains(text, fp8+": quality: 512: compared in") || !strings.Contains(text, fp8+": quality: 4K: compared in") {
		t.Errorf("the resume did not go on from where it stopped:\n%s", text)
	}
	if q := s.Configs[1].Quality; s.Configs[1].Status != sweep.StatusDone || q == nil || q.State != sweep.QualityMeasured || len(q.Contexts) != 2 {
		t.Errorf("fp8 after the resume: %s, quality %+v", s.Configs[1].Status, q)
	}
	if r, err := report.Load(filepath.Join(sweep.RunDir(dir, s.Configs[1]), report.JSONFile)); err != nil || !r.Run.Complete || r.Quality == nil || r.Quality.ReferenceSHA256 != s.Quality.ReferenceSHA256 {
		t.Errorf("fp8's report.json after the resume: %v, complete %v, quality %+v", err, r.Run.Complete, r.Quality)
	}
	q := s.Configs[2].Quality
	if s.Configs[2].Status != sweep.StatusDone || q == nil || q.State != sweep.QualityNotMeasured || !strings.Contains(q.Reason, "gives no logprobs") ||
		sweep.QualityText(s.Configs[2]) != "not measured: "+q.Reason {
		t.Errorf("int4 without logprobs: %s, %+v", s.Configs[2].Status, q)
	}
	// int4 is fastest, but its drift is unknown: fp8 is the best within.
	for _, ca := range s.Answer.Cells {
		if line := sweep.CellLine(ca); ca.WithinBudget != fp8 || !strings.Contains(line, int4+" is fastest here (+30.0% over baseline), but its drift was not measured; best within budget: "+fp8) {
			t.Errorf("%s: %q", ca.Label, line)
		}
	}
	path := filepath.Join(dir, sweep.ReferenceFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	var re *ReferenceError
	if _, _, err := Resume(dir, Inputs{Server: server}); !errors.As(err, &re) || !errors.Is(err, ErrChanged) {
		t.Errorf("resume with an edited reference: %v, want a ReferenceError (changed)", err)
	}
}

// TestEstimateCountsQuality: once a configuration's quality phase has
// been timed, the estimate of the others includes one each.
func TestEstimateCountsQuality(t *testing.T) {
	cs := named([]sweep.Config{{Name: sweep.BaselineName, Baseline: true, StartupS: 2, MeasureS: 10, QualityS: 30}, {Name: "a"}, {Name: "b"}})
	cs[0].Status = sweep.StatusDone
	s := sweep.New("server.toml", okPlan, cs, "test")
	s.Quality = &sweep.QualitySetup{Budget: qualityBudget}
	if got, want := Estimate(s), 2*(2+10+30)*time.Second; got != want {
		t.Errorf("estimate %s, want %s: two configurations of 2 s start-up, 10 s run and 30 s quality phase", got, want)
	}
	if b := EstimateBasis(s); !strings.HasSuffix(b, ", its quality phase counted once the baseline's is timed") {
		t.Errorf("the estimate's basis does not say it has no quality phase timed: %q", b)
	}
}

// TestSweepQualityAwaitsTheReference: a baseline that did not start
// records no reference, and the other configurations' quality waits for
// it; the resume that measures the baseline records it and then measures
// their quality alone, their runs kept.
func TestSweepQualityAwaitsTheReference(t *testing.T) {
	s, dir, server := qualitySweep(t)
	var notes, measured []string
	if err := (qualityFakes{notes: &notes, measured: &measured, failLaunch: map[string]bool{sweep.BaselineName: true}}).runner(t, dir).Run(t.Context(), &s); err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Configs[1:] {
		if q := c.Quality; c.Status != sweep.StatusDone || q == nil || q.State != sweep.QualityNotMeasured || !q.AwaitsReference {
			t.Fatalf("%s without a reference: %s, %+v", c.Name, c.Status, q)
		}
	}
	s, _, err := Resume(dir, Inputs{Server: server})
	if err != nil {
		t.Fatal(err)
	}
	notes, measured = nil, nil
	if err := (qualityFakes{notes: &notes, measured: &measured}).runner(t, dir).Run(t.Context(), &s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(measured, []string{sweep.BaselineName}) {
		t.Errorf("the resume measured %v, want the baseline's run alone", measured)
	}
	for _, c := range s.Configs {
		if q := c.Quality; c.Status != sweep.StatusDone || q == nil || q.State != sweep.QualityMeasured {
			t.Errorf("%s after the resume: %s, %+v\n%s", c.Name, c.Status, q, strings.Join(notes, "\n"))
		}
	}
}

// TestLoadRefusesAnImpossibleQuality: a sweep.json whose quality sections
// claim what no sweep writes is refused where it is read, in one line.
func TestLoadRefusesAnImpossibleQuality(t *testing.T) {
	for name, edit := range map[string]func(*sweep.Sweep){
		"budget":        func(s *sweep.Sweep) { s.Quality = &sweep.QualitySetup{Budget: "kld=-1"} },
		"needle trials": func(s *sweep.Sweep) { s.Quality = &sweep.QualitySetup{Budget: qualityBudget, NeedleTrials: 1 << 30} },
		"contexts": func(s *sweep.Sweep) {
			s.Configs[1].Quality = &sweep.ConfigQuality{State: sweep.QualityMeasured, Contexts: make([]sweep.Drift, engine.MaxLevels+1)}
		},
		"quality time": func(s *sweep.Sweep) { s.Configs[1].QualityS = -5 },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := sweep.New("server.toml", okPlan, named([]sweep.Config{{Name: sweep.BaselineName, Baseline: true}, {Name: "b", Settings: []sweep.Setting{{Key: "max_num_seqs", Value: "8"}}}}), "test")
			edit(&s)
			if err := sweep.Save(dir, s); err != nil {
				t.Fatal(err)
			}
			if _, err := sweep.Load(dir); err == nil || !strings.Contains(err.Error(), "is not a sweep this build can read") || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v", err)
			}
		})
	}
}
