package app

import (
	"context"
	"image"
	"net/url"
	"time"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/roofline"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/telemetry"
)

// EngineRunner runs a plan against a target; measure.Run is the real one.
type EngineRunner interface {
	Run(ctx context.Context, plan engine.Plan, target measure.Subject) <-chan engine.Event
}

// EngineFunc adapts a function such as measure.Run to engineRunner.
type EngineFunc func(ctx context.Context, plan engine.Plan, target measure.Subject) <-chan engine.Event

// Run calls f.
func (f EngineFunc) Run(ctx context.Context, plan engine.Plan, target measure.Subject) <-chan engine.Event {
	return f(ctx, plan, target)
}

// hardwareDetector describes this machine (hw.Detect).
type hardwareDetector interface {
	Detect() (engine.HardwareInfo, error)
	// Diagnostics are the start-up diagnostics of what Detect found.
	Diagnostics() engine.Diagnostics
}

// serverCapture reads how the server at an endpoint on this machine was
// started (engine/capture), or says why it can't.
type serverCapture interface {
	Capture(ctx context.Context, baseURL string) engine.ServerProcess
}

// LiveTelemetry is the live hardware sampler (telemetry.Sampler).
type LiveTelemetry interface {
	engine.TelemetrySource
	Latest() (telemetry.Sample, bool)
}

// serverLauncher starts a vLLM server (launch.Launch) and returns at once.
type serverLauncher interface {
	Launch(ctx context.Context, cfg launch.ServerConfig) (LaunchedServer, error)
}

// LaunchedServer is a launched vLLM server (*launch.Server).
type LaunchedServer interface {
	WaitReady(ctx context.Context) error
	Stop() error
	Subscribe(f func(line string)) (cancel func())
	Logs() []string
	Facts() launch.LogFacts
	RooflineFacts() roofline.ServerFacts
	Subject() measure.Subject
	// Hardware is the Hardware section of the server from what was
	// detected here (on the CPU: the CPU, and no GPU).
	Hardware(local engine.HardwareInfo) engine.HardwareInfo
	// OnCPU reports whether it runs on the CPU (vLLM's CPU build).
	OnCPU() bool
}

// modelLister lists local models and suggests server settings (engine/launch).
type modelLister interface {
	LocalModels() ([]launch.LocalModel, error)
	Suggest(hw engine.HardwareInfo, model string) launch.Suggestion
}

// endpointLister asks an OpenAI-compatible server which models it serves.
type endpointLister interface {
	Models(ctx context.Context, baseURL, apiKey string) ([]openai.Model, error)
}

// simService serves the in-process vLLM simulator (engine/sim).
type simService interface {
	Profiles() []sim.Profile
	// Start serves profile on a loopback port, speaking as engine
	// (sim.ModeVLLM or sim.ModeSGLang); stop ends it.
	Start(profile, engine string) (target measure.Subject, stop func(), err error)
}

// ChartDrawer draws a report's pictures (package charts).
type ChartDrawer interface {
	// Render draws the export of kind in format "png" or "svg", in the dark
	// theme when dark is set, else the light one (what people post).
	Render(kind charts.Kind, format string, r engine.Report, dark bool) ([]byte, error)
	// Picture draws kind for a pane on screen (charts.Picture), in the
	// dark theme when dark is set (the app's own look).
	Picture(kind charts.Kind, r engine.Report, p charts.Pane, dark bool) (image.Image, error)
	// Delta draws the % change of each decode cell from base to other for
	// a pane on screen.
	Delta(base, other engine.Report, p charts.Pane, dark bool) (image.Image, error)
}

// sweepChartDrawer draws a sweep's pictures (charts.WriteSweep,
// charts.SweepBestPicture, charts.SweepParetoPicture); without one (nil) the summary answers in
// words alone.
type sweepChartDrawer interface {
	// Write draws the summary's pictures into the sweep's folder dir
	// (runner.Hooks.Summarize).
	Write(ctx context.Context, dir string, s sweep.Sweep, runs map[string]engine.Report) error
	// Best draws the best-configuration heatmap for a pane on screen.
	Best(s sweep.Sweep, p charts.Pane, dark bool) (image.Image, error)
	// Pareto draws every configuration's cells on one Pareto chart for a
	// pane on screen (runs by configuration name).
	Pareto(s sweep.Sweep, runs map[string]engine.Report, p charts.Pane, dark bool) (image.Image, error)
}

// runStore saves and loads reports (engine/report): Save writes report.json,
// results.csv and report.md into dir.
type runStore interface {
	Save(dir string, r engine.Report) error
	Load(path string) (engine.Report, error)
}

// Deps are everything the screens use from the rest of the program.
type Deps struct {
	Engine    EngineRunner
	Load      loadRunner // load tests (loadstate.go)
	Hardware  hardwareDetector
	Telemetry LiveTelemetry // nil: no live telemetry
	Launcher  serverLauncher
	Models    modelLister
	Endpoints endpointLister
	Capture   serverCapture
	Sim       simService
	Charts    ChartDrawer
	Store     runStore
	// SweepCharts draws a sweep's pictures; nil: none (see sweepChartDrawer).
	SweepCharts sweepChartDrawer
	// GpuSource opens a reader of this machine's GPUs, for a sweep's wait
	// until a stopped server's memory is free (nil: no wait). It is asked
	// only where detection found a GPU.
	GpuSource func() telemetry.Source
	RunsDir   string // where History keeps saved runs unless the Settings screen says
	// Rescue are where a run goes when its History folder can't take a
	// save (nil: runs.RescueRoots()).
	Rescue []string
	Now    func() time.Time
	// Do runs f on the UI goroutine without waiting; every update from
	// background work goes through it. nil: fyne.Do. Tests queue the
	// closures and run them on the test goroutine (see waitFor).
	Do func(f func())

	// NewTelemetry, when set, makes the sampler at the Settings screen's
	// interval; it replaces telemetry.
	NewTelemetry func(interval time.Duration) LiveTelemetry
	// LookPath finds a program as exec.LookPath does (which it is when
	// nil): Start server is disabled while vllm cannot be found.
	LookPath func(file string) (string, error)
	// LimitMemory sets the soft memory limit of a run that starts now and
	// returns what lifts it (limitRunMemory when nil). The limit is the
	// process's: tests leave it alone, as a run a test leaves unfinished
	// would keep it for every later test.
	LimitMemory func() (lift func())
	// FreeMemory gives the memory a picture's drawing used back to the
	// system (debug.FreeOSMemory when nil). Tests leave it out: it is a
	// full collection of the test process's heap for every picture.
	FreeMemory func()
	// OpenURL hands a link to the desktop's opener (openWithDesktop) and
	// calls exited, from another goroutine, with how the opener ended: Open
	// in browser's report.html, Open folder's folder. Tests record it
	// instead; with none, fyne's App.OpenURL takes it.
	OpenURL func(link *url.URL, exited func(error)) error
}
