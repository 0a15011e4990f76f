package shell

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/roofline"
	"speedmatrix/engine/simtarget"
	"speedmatrix/engine/sweep"
)

// errOOM is how simLauncher fails a configuration: as vLLM fails one whose
// cache does not fit.
var errOOM = errors.New("start vllm: torch.OutOfMemoryError: CUDA out of memory")

// simLauncher launches every configuration as the tiny simulator (a
// stand-in vLLM, fast), so that a sweep runs the real measurement against
// it. It records the configurations it was given; fail, when set, makes
// one fail to start; gate, when set, holds the start-up of the
// configuration with that max_num_seqs until it is closed; dead, when
// set, makes the server of the configuration with that max_num_seqs stop
// once its run has measured a cell (see measure).
type simLauncher struct {
	t    testing.TB
	fail func(launch.ServerConfig) error
	gate map[int]chan struct{}
	dead map[int]bool

	mu    sync.Mutex
	cfgs  []launch.ServerConfig
	dying map[string]*simServer // the dead ones, by their address
}

func (l *simLauncher) Launch(ctx context.Context, cfg launch.ServerConfig) (app.LaunchedServer, error) {
	l.mu.Lock()
	l.cfgs = append(l.cfgs, cfg)
	l.mu.Unlock()
	if l.fail != nil {
		if err := l.fail(cfg); err != nil {
			return nil, err
		}
	}
	t, stop, err := simtarget.Start("tiny", simtarget.Options{TimeScale: 20, NoNoise: true})
	if err != nil {
		return nil, err
	}
	srv := &simServer{subject: t, stop: stop, gate: l.gate[cfg.MaxNumSeqs]}
	if l.dead[cfg.MaxNumSeqs] {
		l.mu.Lock()
		if l.dying == nil {
			l.dying = map[string]*simServer{}
		}
		l.dying[t.BaseURL] = srv
		l.mu.Unlock()
	}
	return srv, nil
}

// measure is measure.Run, but the server of a dead configuration stops
// once its run has measured a cell: the run finds it gone mid-way.
func (l *simLauncher) measure(ctx context.Context, plan engine.Plan, t measure.Subject) <-chan engine.Event {
	l.mu.Lock()
	srv := l.dying[t.BaseURL]
	l.mu.Unlock()
	in, out := measure.Run(ctx, plan, t), make(chan engine.Event)
	go func() {
		defer close(out)
		for ev := range in {
			out <- ev
			if ev.Kind == engine.EventResult && srv != nil {
				_ = srv.Stop()
			}
		}
	}()
	return out
}

// launched is what the launcher was asked to start, in order.
func (l *simLauncher) launched() []launch.ServerConfig {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]launch.ServerConfig(nil), l.cfgs...)
}

// simServer is a launched server that is the simulator.
type simServer struct {
	subject measure.Subject
	gate    chan struct{}
	once    sync.Once
	stop    func()
}

func (s *simServer) WaitReady(ctx context.Context) error {
	if s.gate == nil {
		return nil
	}
	select {
	case <-s.gate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *simServer) Stop() error { s.once.Do(s.stop); return nil }
func (s *simServer) Subscribe(f func(string)) func() {
	f("INFO simulated vLLM: loading the model")
	return func() {}
}
func (s *simServer) Logs() []string                      { return nil }
func (s *simServer) Facts() launch.LogFacts              { return launch.LogFacts{} }
func (s *simServer) RooflineFacts() roofline.ServerFacts { return roofline.ServerFacts{} }
func (s *simServer) Subject() measure.Subject            { return s.subject }
func (s *simServer) Hardware(engine.HardwareInfo) engine.HardwareInfo {
	return s.subject.Header.Hardware
}
func (s *simServer) OnCPU() bool { return false }

// sweepPlan is a plan of a few seconds against the tiny simulator.
func sweepPlan() engine.Plan {
	p := engine.DefaultPlan()
	p.PrefillContexts, p.DecodeContexts, p.Concurrency = []int{engine.K}, []int{engine.K}, []int{1, 2}
	p.Duration, p.MaxOutputTokens, p.Precision = 300*time.Millisecond, 128, 0
	p.PrefillRepeats, p.PrefillSingleFrom = 1, 0
	return p
}

// sweepUI is the app with one GPU, the Launch form set to a model, the
// sweep's plan on the Matrix screen, runs measured for real and servers
// launched as the simulator.
func sweepUI(t *testing.T, l *simLauncher) *ui {
	d := testDeps(t, app.EngineFunc(l.measure))
	d.Hardware = oneGPU
	d.Launcher = l
	u := newTestUI(t, d, app.Options{})
	u.server.SelectKind(app.TargetVLLM)
	u.server.Form.Model.SetText("speedmatrix/tiny-sim")
	u.State.SetPlan(sweepPlan(), nil)
	return u
}

// savedSweep writes a sweep of the configurations cs into a folder of the
// runs folder as the app leaves one: server.toml (the Launch form as it is
// now), sweep.json, and the run of each configuration runs names (its
// report, cells of tok/s by concurrency; complete when whole). It returns
// the folder.
func savedSweep(t *testing.T, u *ui, cs []sweep.Config, runs map[string]map[int]float64, whole map[string]bool) string {
	t.Helper()
	base, err := launch.EncodeConfig(u.server.Form.Config(false))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(u.RunsDir(), "20260102-030405-sweep-tiny-sim")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, app.SweepServerFile), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	s := sweep.New(filepath.Join(dir, app.SweepServerFile), sweepPlan(), cs, "test")
	s.ServerSHA256, s.Started, s.Simulated = sweep.Digest([]byte(base)), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), true
	s.Vary = varyOf(cs)
	got := map[string]engine.Report{}
	for name, cells := range runs {
		rep := engine.Report{SchemaVersion: engine.SchemaVersion, Plan: s.Plan, Run: engine.RunInfo{ServedModel: "tiny", Model: "speedmatrix/tiny-sim",
			StartedAt: s.Started, Complete: whole[name]}, Server: engine.ServerInfo{Name: "vllm", Simulated: true, SimProfile: "tiny"}}
		for conc, tokS := range cells {
			rep.Results = append(rep.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: engine.K, Concurrency: conc},
				ContextLabel: "1K", Status: engine.StatusValid, TotalTokPerSec: tokS, MeasuredS: 1})
		}
		if !whole[name] {
			rep.Run.Incomplete = "interrupted: run interrupted"
		}
		i := sweepIndex(cs, name)
		if err := report.Save(sweep.RunDir(dir, cs[i]), rep); err != nil {
			t.Fatal(err)
		}
		got[name] = rep
		if whole[name] {
			s.Configs[i].Status = sweep.StatusDone
		} else {
			s.Configs[i].Status = sweep.StatusPartial
		}
	}
	if len(runs) == len(cs) && !slices.Contains(slices.Collect(maps.Values(whole)), false) {
		s.Ended = s.Started.Add(time.Minute)
	}
	a := sweep.Analyze(s, got)
	s.Answer = &a
	if err := sweep.Save(dir, s); err != nil {
		t.Fatal(err)
	}
	return dir
}

// varyOf is the --vary options of a grid's configurations cs, as the
// Compare settings form records them: a resume makes cs again from them.
func varyOf(cs []sweep.Config) []string {
	var keys []string
	values := map[string][]string{}
	for _, c := range cs {
		for _, st := range c.Settings {
			if !slices.Contains(keys, st.Key) {
				keys = append(keys, st.Key)
			}
			if !slices.Contains(values[st.Key], st.Value) {
				values[st.Key] = append(values[st.Key], st.Value)
			}
		}
	}
	vary := make([]string, len(keys))
	for i, k := range keys {
		vary[i] = k + "=" + strings.Join(values[k], ",")
	}
	return vary
}

func sweepIndex(cs []sweep.Config, name string) int {
	for i, c := range cs {
		if c.Name == name {
			return i
		}
	}
	panic("no configuration " + name)
}
