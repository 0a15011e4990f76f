package app

import (
	"context"
	"errors"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/vllm"
	"speedmatrix/hw"
)

// errNotAvailable marks a part of the app whose implementation is missing
// from this build; screens show it as a "not available" state.
var errNotAvailable = errors.New("not available in this build")

// Engine runs a plan against a target; engine.Run is the real one.
type Engine interface {
	Run(ctx context.Context, plan engine.Plan, target engine.Target) <-chan engine.Event
}

// EngineFunc adapts a function such as engine.Run to Engine.
type EngineFunc func(ctx context.Context, plan engine.Plan, target engine.Target) <-chan engine.Event

// Run calls f.
func (f EngineFunc) Run(ctx context.Context, plan engine.Plan, target engine.Target) <-chan engine.Event {
	return f(ctx, plan, target)
}

// HardwareDetector describes this machine (hw.Detect).
type HardwareDetector interface {
	Detect() (engine.HardwareInfo, error)
}

// Telemetry is the live hardware sampler (hw.Sampler).
type Telemetry interface {
	engine.TelemetrySource
	Latest() (hw.Sample, bool)
}

// Launcher starts a vLLM server (vllm.Launch) and returns at once.
type Launcher interface {
	Launch(ctx context.Context, cfg vllm.ServerConfig) (Server, error)
}

// Server is a launched vLLM server (*vllm.Server).
type Server interface {
	WaitReady(ctx context.Context) error
	Stop() error
	Subscribe(f func(line string)) (cancel func())
	Logs() []string
	Facts() vllm.LogFacts
	Target() engine.Target
}

// ModelCatalog lists local models and suggests server settings (engine/vllm).
type ModelCatalog interface {
	LocalModels() ([]vllm.LocalModel, error)
	Suggest(hw engine.HardwareInfo, model string) vllm.Suggestion
}

// EndpointModel is one model an endpoint serves.
type EndpointModel struct {
	ID          string
	MaxModelLen int // 0 when the server does not say
}

// Endpoints asks an OpenAI-compatible server which models it serves.
type Endpoints interface {
	Models(ctx context.Context, baseURL, apiKey string) ([]EndpointModel, error)
}

// SimProfile is what the Server screen shows of a simulator profile.
type SimProfile struct {
	Name, Description string
	Model, GPUName    string // what the profile stands for
	KVCacheTokens     int
	MaxNumSeqs        int
	MaxModelLen       int
}

// Simulator serves the in-process vLLM simulator (engine/sim).
type Simulator interface {
	Profiles() []SimProfile
	// Start serves profile on a loopback port; stop ends it.
	Start(profile string) (target engine.Target, stop func(), err error)
}

// ChartKind names one picture of a report.
type ChartKind string

// The pictures charts draws; the names are the exported file names.
const (
	ChartReport     ChartKind = "report"
	ChartPrefill    ChartKind = "prefill"
	ChartDecode     ChartKind = "decode-heatmap"
	ChartPerRequest ChartKind = "per-request"
)

// chartKinds lists every chart in the order Results shows them.
var chartKinds = []ChartKind{ChartReport, ChartPrefill, ChartDecode, ChartPerRequest}

// Charts draws a report's pictures (package charts).
type Charts interface {
	// Render draws kind in format "png" or "svg", in the dark theme when
	// dark is set (the app's own look), else the light one (what people post).
	Render(kind ChartKind, format string, r engine.Report, dark bool) ([]byte, error)
	// Delta draws the % change of each decode cell from base to other as PNG.
	Delta(base, other engine.Report, dark bool) ([]byte, error)
}

// Store saves and loads reports (engine/report): Save writes report.json,
// results.csv and report.md into dir.
type Store interface {
	Save(dir string, r engine.Report) error
	Load(path string) (engine.Report, error)
}

// deps are everything the screens use from the rest of the program.
type deps struct {
	engine    Engine
	hardware  HardwareDetector
	telemetry Telemetry // nil: no live telemetry
	launcher  Launcher
	models    ModelCatalog
	endpoints Endpoints
	sim       Simulator
	charts    Charts
	store     Store
	runsDir   string // where History keeps saved runs
	now       func() time.Time
	// do runs f on the UI goroutine without waiting; every update from
	// background work goes through it. nil: fyne.Do. Tests queue the
	// closures and run them on the test goroutine (see waitFor).
	do func(f func())
}
