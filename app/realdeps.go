package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/vllm"
	"speedmatrix/hw"
)

// realDeps wires the real engine, hardware, launcher, simulator, charts and
// report store. The sampler starts with the window and stops at shutdown.
func realDeps() deps {
	return deps{
		engine:    EngineFunc(engine.Run),
		hardware:  hwDetector{},
		telemetry: hw.NewSampler(hw.DefaultSampleInterval),
		launcher:  vllmLauncher{},
		models:    modelCatalog{},
		endpoints: openaiEndpoints{},
		sim:       simulator{},
		charts:    chartRenderer{},
		store:     reportStore{},
		runsDir:   runsDir(),
	}
}

// runsDir is where History keeps runs: <user config dir>/speedmatrix/runs.
func runsDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "speedmatrix", "runs")
}

type hwDetector struct{}

// Detect returns the host and GPUs; without NVML the host and a Note.
func (hwDetector) Detect() (engine.HardwareInfo, error) {
	h, err := hw.Detect()
	return h.Info(), err
}

type vllmLauncher struct{}

func (vllmLauncher) Launch(ctx context.Context, cfg vllm.ServerConfig) (Server, error) {
	s, err := vllm.Launch(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

type modelCatalog struct{}

func (modelCatalog) LocalModels() ([]vllm.LocalModel, error) { return vllm.LocalModels() }
func (modelCatalog) Suggest(h engine.HardwareInfo, model string) vllm.Suggestion {
	return vllm.Suggest(h, model)
}

type openaiEndpoints struct{}

func (openaiEndpoints) Models(ctx context.Context, baseURL, apiKey string) ([]EndpointModel, error) {
	ms, err := openai.New(baseURL, apiKey).Models(ctx)
	out := make([]EndpointModel, len(ms))
	for i, m := range ms {
		out[i] = EndpointModel{ID: m.ID, MaxModelLen: m.MaxModelLen}
	}
	return out, err
}

type simulator struct{}

func (simulator) Profiles() []SimProfile {
	var out []SimProfile
	for _, p := range sim.Profiles() {
		out = append(out, SimProfile{Name: p.Name, Description: p.Description, Model: p.Model, GPUName: p.GPUName,
			KVCacheTokens: p.KVCacheTokens, MaxNumSeqs: p.MaxNumSeqs, MaxModelLen: p.MaxModelLen})
	}
	return out
}

// Start serves the profile on 127.0.0.1 and describes it, labelled
// simulated in the Hardware and Engine sections.
func (simulator) Start(profile string) (engine.Target, func(), error) {
	p, err := sim.LookupProfile(profile)
	if err != nil {
		return engine.Target{}, nil, err
	}
	s, err := sim.New(sim.Options{Profile: p})
	if err != nil {
		return engine.Target{}, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		return engine.Target{}, nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	srv := &http.Server{Handler: s}
	go func() { _ = srv.Serve(ln) }()
	stop := func() { _ = srv.Close(); s.Close() }
	t := engine.Target{BaseURL: "http://" + ln.Addr().String()}
	t.Header.Hardware = engine.HardwareInfo{
		Type: "Discrete GPU (simulated)",
		GPUs: []engine.GPUInfo{{Name: p.GPUName, VRAMBytes: p.VRAMBytes}},
		Note: "simulated: no GPU was used; the figures come from the simulator's performance model (profile " + p.Name + ")",
	}
	t.Header.Engine = engine.EngineInfo{
		Engine: "vllm", Version: p.Version, Quantization: p.Quantization, Simulated: true, SimProfile: p.Name,
		KVCacheTokens: p.KVCacheTokens, MaxNumSeqs: p.MaxNumSeqs, MaxModelLen: p.MaxModelLen,
	}
	t.Header.Run.Model = p.Model
	t.Header.LaunchCommand = strings.TrimSpace(p.LaunchCommand)
	return t, stop, nil
}

type chartRenderer struct{}

func (chartRenderer) Render(kind ChartKind, format string, r engine.Report) ([]byte, error) {
	if format == "svg" {
		return charts.RenderSVG(charts.Kind(kind), r, charts.DefaultOptions())
	}
	return charts.RenderPNG(charts.Kind(kind), r, charts.DefaultOptions())
}

func (chartRenderer) Delta(base, other engine.Report) ([]byte, error) {
	d, err := charts.DrawDelta(base, other, charts.DefaultOptions())
	if err != nil {
		return nil, err
	}
	return d.PNG(1)
}

type reportStore struct{}

func (reportStore) Save(dir string, r engine.Report) error  { return report.Save(dir, r) }
func (reportStore) Load(path string) (engine.Report, error) { return report.Load(path) }
