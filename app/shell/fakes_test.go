package shell

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/roofline"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/sim"
	"speedmatrix/hw"
)

// fakeEngine emits canned events; with hold it then waits for ctx to end
// and reports the run cancelled.
type fakeEngine struct {
	events []engine.Event
	hold   bool
	err    error // the Done event's error when not held
	// incomplete, when set, is the report's Run.Incomplete: the engine
	// stopped the run early without an error.
	incomplete string
	// final are added to the report when the run ends, as the engine lists
	// the cell it cut short (Cancelled) and those it never reached (Not run).
	final []engine.Result
	// server is what the run finds of the server's limits, in its Engine section.
	server engine.Limits

	mu        sync.Mutex
	plans     []engine.Plan
	targets   []measure.Subject
	cancelled chan struct{} // closed when a held run saw ctx end
}

func (f *fakeEngine) Run(ctx context.Context, plan engine.Plan, target measure.Subject) <-chan engine.Event {
	ro := target.RunOptions
	f.mu.Lock()
	f.plans = append(f.plans, plan)
	f.targets = append(f.targets, target)
	f.cancelled = make(chan struct{})
	cancelled := f.cancelled
	f.mu.Unlock()
	ch := make(chan engine.Event)
	go func() {
		defer close(ch)
		rep := &engine.Report{SchemaVersion: engine.SchemaVersion, Plan: plan, Server: ro.Header.Server,
			Hardware: ro.Header.Hardware, Quality: ro.Header.Quality, Run: engine.RunInfo{ServedModel: "tiny", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
				Complete: f.incomplete == "", Incomplete: f.incomplete, Endpoint: secret.URL(target.BaseURL)}}
		if l := f.server; l != (engine.Limits{}) {
			rep.Server.KVCacheTokens, rep.Server.MaxNumSeqs, rep.Server.MaxModelLen = l.KVCacheTokens, l.MaxNumSeqs, l.MaxModelLen
		}
		for _, ev := range f.events {
			if ev.Result != nil {
				rep.Results = append(rep.Results, *ev.Result)
				snap := *rep
				ev.Report = &snap
			}
			ch <- ev
		}
		err := f.err
		if f.hold {
			<-ctx.Done()
			close(cancelled)
			err = context.Canceled
			rep.Run.Complete = false
		}
		rep.Results = append(rep.Results, f.final...)
		ch <- engine.Event{Kind: engine.EventDone, Report: rep, Err: err}
	}()
	return ch
}

func (f *fakeEngine) lastPlan() engine.Plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.plans[len(f.plans)-1]
}

func (f *fakeEngine) lastTarget() measure.Subject {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.targets[len(f.targets)-1]
}

type fakeHardware struct {
	info engine.HardwareInfo
	err  error
	top  *engine.Topology // how the GPUs are connected; nil: unknown
}

func (f fakeHardware) Detect() (engine.HardwareInfo, error) { return f.info, f.err }

// Diagnostics are the OS and, without a GPU, the reason.
func (f fakeHardware) Diagnostics() engine.Diagnostics {
	d := engine.Diagnostics{OS: f.info.OS, Env: map[string]string{"CUDA_VISIBLE_DEVICES": "0"}, Topology: f.top}
	if len(f.info.GPUs) == 0 {
		d.NVIDIA.Note = f.info.Note
	}
	return d
}

// fakeCapture answers every endpoint with proc and counts the questions.
type fakeCapture struct {
	proc  engine.ServerProcess
	asked *atomic.Int32
}

func (f fakeCapture) Capture(context.Context, string) engine.ServerProcess {
	if f.asked != nil {
		f.asked.Add(1)
	}
	return f.proc
}

// notLocal is fakeCapture's answer unless a test sets another.
var notLocal = engine.ServerProcess{NotCaptured: "the server is not on this machine (test)"}

var noGPU = fakeHardware{
	info: engine.HardwareInfo{CPU: "Test CPU", CPUCores: 8, RAMBytes: 32 << 30, OS: "Test OS", Note: "NVIDIA driver not found"},
	err:  hw.ErrNoNVML,
}

var oneGPU = fakeHardware{info: engine.HardwareInfo{Type: hw.TypeDiscreteGPU, CPU: "Test CPU",
	GPUs: []engine.GPUInfo{{Index: 0, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30, PeakBandwidthGBs: 936, PCIeGen: 4, PCIeWidth: 16}}}}

type fakeSim struct {
	mu      sync.Mutex
	started []string
	engines []string // what each start spoke as
	stopped int
}

func (f *fakeSim) Profiles() []sim.Profile {
	return []sim.Profile{
		{Name: "tiny", Description: "a tiny test profile", KVCacheTokens: 65536, MaxNumSeqs: 64, MaxModelLen: 8192},
		{Name: "big", Description: "a big test profile", KVCacheTokens: 10_000_000, MaxNumSeqs: 256, MaxModelLen: 131072},
	}
}

func (f *fakeSim) Start(profile, eng string) (measure.Subject, func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started = append(f.started, profile)
	f.engines = append(f.engines, eng)
	t := measure.Subject{Target: measure.Target{BaseURL: "http://127.0.0.1:1"}}
	t.Header.Server = engine.ServerInfo{Name: cmp.Or(eng, "vllm"), Simulated: true, SimProfile: profile}
	return t, func() { f.mu.Lock(); f.stopped++; f.mu.Unlock() }, nil
}

// fakeCharts draws a 4×4 PNG and a minimal SVG for exports, a blank
// picture for the screen; err makes every call fail.
type fakeCharts struct{ err error }

func (f fakeCharts) Render(kind charts.Kind, format string, r engine.Report, _ bool) ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	if format == "svg" {
		return []byte(`<svg xmlns="http://www.w3.org/2000/svg"><text>` + string(kind) + `</text></svg>`), nil
	}
	return tinyPNG(), nil
}

func (f fakeCharts) Picture(kind charts.Kind, r engine.Report, p charts.Pane, _ bool) (image.Image, error) {
	if f.err != nil {
		return nil, f.err
	}
	return paneImage(p), nil
}

func (f fakeCharts) Delta(base, other engine.Report, p charts.Pane, _ bool) (image.Image, error) {
	if f.err != nil {
		return nil, f.err
	}
	return paneImage(p), nil
}

// paneImage is a picture as wide as the pane and half as tall, in its
// device pixels.
func paneImage(p charts.Pane) image.Image {
	return image.NewNRGBA(image.Rect(0, 0, int(p.Width*p.Scale+0.5), int(p.Height*p.Scale/2+0.5)))
}

func tinyPNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.NRGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// fakeServer is a launched vLLM that becomes ready when ready is closed;
// onCPU makes it vLLM's CPU build.
type fakeServer struct {
	ready   chan struct{}
	mu      sync.Mutex
	stopped bool
	onCPU   bool
}

func (s *fakeServer) OnCPU() bool { return s.onCPU }

func (s *fakeServer) Hardware(local engine.HardwareInfo) engine.HardwareInfo {
	if s.onCPU {
		local.ServeOnCPU("vLLM CPU build 0.32.0")
	}
	return local
}

func (s *fakeServer) WaitReady(ctx context.Context) error {
	select {
	case <-s.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *fakeServer) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	return nil
}

func (s *fakeServer) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

func (s *fakeServer) Subscribe(f func(string)) func() {
	f("INFO vLLM API server version 0.32.0")
	f("INFO GPU KV cache size: 123,456 tokens")
	return func() {}
}

func (s *fakeServer) Logs() []string { return nil }
func (s *fakeServer) Facts() launch.LogFacts {
	return launch.LogFacts{KVCacheTokens: 123456, MaxConcurrency: 3.8, ConcurrencyTokens: 32768}
}
func (s *fakeServer) RooflineFacts() roofline.ServerFacts {
	return launch.RooflineFacts(s.Facts(), 1, "")
}
func (s *fakeServer) Subject() measure.Subject {
	return measure.Subject{Target: measure.Target{BaseURL: "http://127.0.0.1:8000", Model: "m"}}
}

type fakeLauncher struct {
	srv  *fakeServer
	cfgs chan launch.ServerConfig
	err  error // what Launch returns instead of srv
}

func (f fakeLauncher) Launch(ctx context.Context, cfg launch.ServerConfig) (app.LaunchedServer, error) {
	f.cfgs <- cfg
	if f.err != nil {
		return nil, f.err
	}
	return f.srv, nil
}

type fakeModels struct{}

func (fakeModels) LocalModels() ([]launch.LocalModel, error) {
	return []launch.LocalModel{{ID: "Qwen/Qwen3-0.6B", MaxModelLen: 40960}}, nil
}

func (fakeModels) Suggest(h engine.HardwareInfo, model string) launch.Suggestion {
	return launch.Suggestion{TensorParallelSize: len(h.GPUs), GPUMemoryUtilization: 0.88, MaxModelLen: 40960,
		Notes: []string{"test suggestion"}}
}

type fakeEndpoints struct {
	models []openai.Model
	err    error
}

func (f fakeEndpoints) Models(ctx context.Context, baseURL, apiKey string) ([]openai.Model, error) {
	return f.models, f.err
}

// testDeps are fakes for every dependency; runs are saved under a temp dir
// and UI updates from background work wait in t's UI loop (see waitFor).
func testDeps(t testing.TB, eng app.EngineRunner) app.Deps {
	return app.Deps{
		Engine: eng, Load: &fakeLoad{}, Hardware: noGPU, Sim: &fakeSim{}, Charts: fakeCharts{}, Store: reportStore{},
		Models: fakeModels{}, Endpoints: fakeEndpoints{models: []openai.Model{{ID: "served", MaxModelLen: 32768}}},
		Capture: fakeCapture{proc: notLocal},
		RunsDir: t.TempDir(),
		Rescue:  []string{t.TempDir()},
		Now:     func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		Do:      loopFor(t).post,

		LookPath: func(file string) (string, error) { return "/usr/bin/" + file, nil }, // vllm is installed
		// The test process's memory is left alone (see deps).
		LimitMemory: func() func() { return func() {} },
		FreeMemory:  func() {},
	}
}

// newTestUI builds the whole app on Fyne's test driver at 1280×800.
func newTestUI(t *testing.T, d app.Deps, opts app.Options) *ui {
	t.Helper()
	a := apptest.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	u := newUI(a, w, d, opts)
	u.Panicked = func(p any, stack []byte) { t.Errorf("panic in a UI callback: %v\n%s", p, stack) }
	w.SetContent(u.content())
	w.Resize(fyne.NewSize(1280, 800))
	t.Cleanup(u.shutdown)
	return u
}

// canned results: a valid and an over-capacity decode cell, and a prefill.
func cannedEvents() []engine.Event {
	cell := func(phase engine.Phase, ctx, c int) engine.Cell {
		return engine.Cell{Phase: phase, ContextTokens: ctx, Concurrency: c}
	}
	return []engine.Event{
		{Kind: engine.EventLog, Log: "tokenizer ready"},
		{Kind: engine.EventProgress, Progress: &engine.Progress{CellIndex: 2, CellCount: 4, Cell: cell(engine.PhaseDecode, 1024, 1),
			Elapsed: 65 * time.Second, ETA: 130 * time.Second, LiveTokPerSec: 1234.5}},
		{Kind: engine.EventResult, Result: &engine.Result{Cell: cell(engine.PhasePrefill, 1024, 1), ContextLabel: "1K",
			Status: engine.StatusValid, TotalTokPerSec: 20000, TTFTMs: 51, Completed: 1}},
		{Kind: engine.EventResult, Result: &engine.Result{Cell: cell(engine.PhaseDecode, 1024, 1), ContextLabel: "1K",
			Status: engine.StatusValid, TotalTokPerSec: 195.7, PerRequestTokPerSec: 197, TTFTMs: 8, ITLMs: 5.2, AvgActive: 1, MeasuredS: 2}},
		{Kind: engine.EventResult, Result: &engine.Result{Cell: cell(engine.PhaseDecode, 1024, 2), ContextLabel: "1K",
			Status: engine.StatusValid, TotalTokPerSec: 316.5, PerRequestTokPerSec: 160, TTFTMs: 11, ITLMs: 6.2, AvgActive: 2, MeasuredS: 2}},
		{Kind: engine.EventResult, Result: &engine.Result{Cell: cell(engine.PhaseDecode, 1024, 128), ContextLabel: "1K",
			Status: engine.StatusOverCapacity}},
	}
}

var errBoom = errors.New("boom")

// launchUI is the app on a machine with one GPU and a fake launcher: the
// configs it launches come on cfgs, and its server is ready once
// srv.ready is closed.
func launchUI(t *testing.T) (u *ui, srv *fakeServer, cfgs chan launch.ServerConfig) {
	d := testDeps(t, &fakeEngine{})
	d.Hardware = oneGPU
	srv = &fakeServer{ready: make(chan struct{})}
	cfgs = make(chan launch.ServerConfig, 1)
	d.Launcher = fakeLauncher{srv: srv, cfgs: cfgs}
	return newTestUI(t, d, app.Options{}), srv, cfgs
}

// saveRun saves rep in a new folder of the runs folder, as the Run screen
// saves a run, and tells the state (History lists it).
func saveRun(u *app.UI, rep engine.Report) (string, error) {
	s := runs.Saver{Root: u.RunsDir(), Save: u.Deps.Store.Save, Now: u.Deps.Now, Rescue: u.Deps.Rescue}
	defer s.Release()
	if _, err := s.Keep(rep); err != nil {
		return s.Dir, err
	}
	u.State.RunSaved(s.Dir)
	return s.Dir, nil
}
