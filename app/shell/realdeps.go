package shell

import (
	"context"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"speedmatrix/app"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/capture"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/simtarget"
	"speedmatrix/engine/sweep"
	"speedmatrix/hw"
)

// realDeps wires the real engine, hardware, launcher, simulator, charts and
// report store. The sampler, made at the Settings screen's interval, starts
// with the window and stops at shutdown.
func realDeps() app.Deps {
	return app.Deps{
		Engine:    app.EngineFunc(measure.Run),
		Load:      app.LoadFunc(measure.RunLoad),
		Hardware:  &hwDetector{},
		Launcher:  vllmLauncher{},
		Models:    modelCatalog{},
		Endpoints: openaiEndpoints{},
		Capture:   processCapture{},
		Sim:       simulator{},
		Charts:    chartRenderer{},
		Store:     reportStore{},
		RunsDir:   RunsDir(),
		GpuSource: hw.SystemSource,

		SweepCharts: sweepChartRenderer{},

		NewTelemetry: func(interval time.Duration) app.LiveTelemetry { return hw.NewSampler(interval) },
		LookPath:     exec.LookPath,
		OpenURL:      app.OpenWithDesktop,
	}
}

// RunsDir is where History keeps runs: <user config dir>/speedmatrix/runs.
func RunsDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "speedmatrix", "runs")
}

// hwDetector remembers what Detect found for Diagnostics.
type hwDetector struct {
	found hw.Hardware
	// detect is hw.Detect, or hw.DetectWith a mock NVML in tests.
	detect func() (hw.Hardware, error)
}

// Detect returns the host and GPUs; without NVML the host and a Note.
func (d *hwDetector) Detect() (engine.HardwareInfo, error) {
	detect := d.detect
	if detect == nil {
		detect = hw.Detect
	}
	h, err := detect()
	d.found = h
	return h.Info(), err
}

// Diagnostics are those of the last Detect, with this process's environment.
func (d *hwDetector) Diagnostics() engine.Diagnostics {
	return d.found.Diagnostics(os.Environ())
}

type processCapture struct{}

func (processCapture) Capture(ctx context.Context, baseURL string) engine.ServerProcess {
	return capture.Read(ctx, baseURL)
}

type vllmLauncher struct{}

func (vllmLauncher) Launch(ctx context.Context, cfg launch.ServerConfig) (app.LaunchedServer, error) {
	s, err := launch.Launch(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

type modelCatalog struct{}

func (modelCatalog) LocalModels() ([]launch.LocalModel, error) { return launch.LocalModels() }
func (modelCatalog) Suggest(h engine.HardwareInfo, model string) launch.Suggestion {
	return launch.Suggest(h, model)
}

type openaiEndpoints struct{}

func (openaiEndpoints) Models(ctx context.Context, baseURL, apiKey string) ([]openai.Model, error) {
	return openai.New(baseURL, apiKey).Models(ctx)
}

type simulator struct{}

func (simulator) Profiles() []sim.Profile { return sim.Profiles() }

// Start serves the profile on 127.0.0.1 and describes it, labelled
// simulated in the Hardware and Engine sections.
func (simulator) Start(profile, engine string) (measure.Subject, func(), error) {
	return simtarget.Start(profile, simtarget.Options{Mode: engine})
}

type chartRenderer struct{}

// chartOptions are the light options, or the dark ones when dark is set.
func chartOptions(dark bool) charts.Options {
	o := charts.DefaultOptions()
	if dark {
		o.Theme = charts.Dark
	}
	return o
}

// Render draws kind as format the way every export does (charts.Pictures).
func (chartRenderer) Render(kind charts.Kind, format string, r engine.Report, dark bool) ([]byte, error) {
	return charts.Pictures(r, chartOptions(dark)).Paint(context.Background(), kind, format)
}

func (chartRenderer) Picture(kind charts.Kind, r engine.Report, p charts.Pane, dark bool) (image.Image, error) {
	return charts.Picture(kind, charts.BuildModel(r), chartOptions(dark).Theme, p)
}

func (chartRenderer) Delta(base, other engine.Report, p charts.Pane, dark bool) (image.Image, error) {
	return charts.DeltaPicture(base, other, chartOptions(dark).Theme, p)
}

// sweepChartRenderer draws a sweep's pictures with package charts: the
// exports into its folder in the light theme (what people post), as the
// CLI writes them, and the best-configuration heatmap and the Pareto chart
// for the screen.
type sweepChartRenderer struct{}

func (sweepChartRenderer) Write(ctx context.Context, dir string, s sweep.Sweep, runs map[string]engine.Report) error {
	return charts.WriteSweep(ctx, dir, s, runs, chartOptions(false))
}

func (sweepChartRenderer) Best(s sweep.Sweep, p charts.Pane, dark bool) (image.Image, error) {
	return charts.SweepBestPicture(s, chartOptions(dark).Theme, p)
}

func (sweepChartRenderer) Pareto(s sweep.Sweep, runs map[string]engine.Report, p charts.Pane, dark bool) (image.Image, error) {
	return charts.SweepParetoPicture(s, runs, chartOptions(dark).Theme, p)
}

type reportStore struct{}

func (reportStore) Save(dir string, r engine.Report) error  { return report.Save(dir, r) }
func (reportStore) Load(path string) (engine.Report, error) { return report.Load(path) }
