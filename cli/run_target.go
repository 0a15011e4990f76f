package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/capture"
	"speedmatrix/engine/dcgm"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/simtarget"
	"speedmatrix/hw"
)

// target builds the server to measure from the flags (or, on --resume
// without a target flag, from the resumed report) and a func that stops it.
func (c *CLI) target(ctx context.Context, f runFlags, prev *engine.Report, stderr io.Writer) (measure.Subject, func(), error) {
	given := 0
	for _, s := range []string{f.endpoint, f.simProfile, f.launch} {
		if s != "" {
			given++
		}
	}
	if given > 1 {
		return measure.Subject{Target: measure.Target{}}, nil, errors.New("run: give only one of --endpoint, --sim and --launch")
	}
	if given == 0 && prev != nil {
		// A simulator reached over HTTP is an endpoint like any other: its
		// run recorded the process at the endpoint (Server).
		if prev.Engine.Simulated && prev.Hardware.Type == simtarget.HardwareType && prev.Server == nil {
			f.simProfile = prev.Engine.SimProfile
			if prev.Engine.Engine == sim.EngineSGLang {
				f.simEngine = sim.EngineSGLang
			}
		} else {
			f.endpoint = prev.Run.Endpoint
			if f.gpuMetrics == "" {
				f.gpuMetrics = strings.Join(prev.Run.GPUMetrics, ",")
			}
		}
		if strings.Contains(f.endpoint, secret.Redacted) {
			return measure.Subject{Target: measure.Target{}}, nil, fmt.Errorf("run --resume: the report hides the password of its endpoint %s: give the endpoint again with --endpoint URL", f.endpoint)
		}
		if strings.Contains(f.gpuMetrics, secret.Redacted) {
			return measure.Subject{Target: measure.Target{}}, nil, fmt.Errorf("run --resume: the report hides a password of its GPU metrics %s: give them again with --gpu-metrics URL,URL", f.gpuMetrics)
		}
	}
	key, err := f.apiKey()
	if err != nil {
		return measure.Subject{Target: measure.Target{}}, nil, err
	}
	if f.gpuMetrics != "" && f.endpoint == "" {
		return measure.Subject{Target: measure.Target{}}, nil, errors.New("run: --gpu-metrics goes with --endpoint: with --launch set gpu_metrics in server.toml; the simulator has no GPUs to read")
	}
	switch {
	case f.simProfile != "":
		return simTarget(f.simProfile, f.model, f.simEngine, c.SimTimeScale)
	case f.launch != "":
		t, stop, err := c.Launch(ctx, f.launch, stderr)
		if err != nil {
			return t, nil, fmt.Errorf("run --launch: %w", err)
		}
		if f.model != "" {
			t.Model = f.model
		}
		return t, stop, nil
	case f.endpoint != "":
		return c.endpointTarget(ctx, f.endpoint, f.model, key, gpuMetrics{urls: dcgm.SplitURLs(f.gpuMetrics), setting: "--gpu-metrics"})
	}
	return measure.Subject{Target: measure.Target{}}, nil, errors.New("run: nothing to measure: give --endpoint URL, --sim PROFILE or --launch server.toml")
}

// apiKey reads the key from the variable --api-key-env names.
func (f runFlags) apiKey() (string, error) {
	if f.apiKeyEnv == "" {
		return "", nil
	}
	key, ok := os.LookupEnv(f.apiKeyEnv)
	if !ok || key == "" {
		return "", fmt.Errorf("run: environment variable %s is not set or empty: export it or drop --api-key-env", f.apiKeyEnv)
	}
	return key, nil
}

// endpointTarget measures a running server. The hardware is detected, and
// how the server was started is read from its process, only when it runs
// on this machine; telemetry is sampled then too. With DCGM exporters
// (gm), the GPUs and their telemetry come from them instead, wherever the
// server runs.
func (c *CLI) endpointTarget(ctx context.Context, endpoint, model, key string, gm gpuMetrics) (measure.Subject, func(), error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return measure.Subject{Target: measure.Target{}}, nil, fmt.Errorf("run: --endpoint %q is not an http(s) URL: use e.g. http://127.0.0.1:8000", secret.URL(endpoint))
	}
	t := measure.Subject{Target: measure.Target{BaseURL: endpoint, APIKey: key, Model: model}}
	if len(gm.urls) == 0 {
		// Without exporters naming its GPUs, a simulator at the endpoint
		// (speedmatrix sim) is described by its profile's rig.
		simtarget.Recognize(&t)
	}
	local := capture.IsLocal(ctx, u.Hostname())
	switch {
	case local:
		h, err := c.DetectHardware()
		if err != nil && !errors.Is(err, hw.ErrNoNVML) {
			return t, nil, fmt.Errorf("run: detect hardware: %w", err)
		}
		t.Header.Hardware = h.Info()
		t.Header.Hardware.Whose = engine.HardwareOfServer
	case len(gm.urls) == 0:
		t.Header.Hardware = engine.HardwareInfo{Whose: engine.HardwareOfRemote, Note: "remote server " + u.Host + ": hardware not detected"}
	default:
		t.Header.Hardware = engine.HardwareInfo{Whose: engine.HardwareOfRemote, Note: "remote server " + u.Host + ": its CPU and OS not detected."}
	}
	// After the hardware: a server that runs vLLM's CPU build makes it
	// this machine's CPU.
	capture.Header(&t.Header, c.Capture(ctx, endpoint))
	if !local && len(gm.urls) == 0 {
		return t, func() {}, nil
	}
	if len(gm.urls) > 0 {
		tel, stop, err := gm.sampleExporters(ctx, &t.Header)
		if err != nil {
			return t, nil, err
		}
		t.Telemetry = tel
		return t, stop, nil
	}
	sampler := hw.NewSampler(hw.DefaultSampleInterval)
	sctx, cancel := context.WithCancel(ctx)
	sampler.Start(sctx)
	t.Telemetry = sampler
	return t, func() { sampler.Stop(); cancel() }, nil
}

// simTarget serves the simulator on 127.0.0.1 and describes it, labelled
// simulated in the Hardware and Engine sections.
func simTarget(profile, model, eng string, timeScale float64) (measure.Subject, func(), error) {
	t, stop, err := simtarget.Start(profile, simtarget.Options{TimeScale: timeScale, Model: model, Engine: eng})
	if err != nil {
		return measure.Subject{Target: measure.Target{}}, nil, fmt.Errorf("run --sim: %w", err)
	}
	return t, stop, nil
}
