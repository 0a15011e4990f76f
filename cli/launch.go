package cli

import (
	"context"
	"fmt"
	"io"
	"sync"

	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/runs"
)

// RunGuardIfAsked makes this process the guard of a vLLM server that an
// earlier speedmatrix launched, when it was started as one: it then never
// returns (see launch.RunGuardIfAsked). main calls it before anything else.
func RunGuardIfAsked() { launch.RunGuardIfAsked() }

// launchTarget starts the vLLM or SGLang server described by the server.toml at path,
// shows its start-up log on stderr until it is ready, and returns the target
// to measure (with the Engine section and Launch command of what it started,
// this machine's hardware and telemetry) and a func that stops the server.
// On error nothing is left running. The server also stops when ctx ends.
func (c *CLI) launchTarget(ctx context.Context, path string, stderr io.Writer) (measure.Subject, func(), error) {
	cfg, err := launch.LoadConfig(path)
	if err != nil {
		return measure.Subject{Target: measure.Target{}}, nil, err
	}
	return c.launchConfig(ctx, cfg, path, stderr)
}

// launchConfig is launchTarget of a configuration read from path (a
// sweep's: server.toml with some keys changed).
func (c *CLI) launchConfig(ctx context.Context, cfg launch.ServerConfig, path string, stderr io.Writer) (measure.Subject, func(), error) {
	if w := launch.ListensEverywhere(cfg); w != "" {
		fmt.Fprintf(stderr, "warning: %s: set host = \"127.0.0.1\" in %s to keep it to this machine\n", w, path)
	}
	s, err := launch.Launch(ctx, cfg)
	if err != nil {
		return measure.Subject{Target: measure.Target{}}, nil, err
	}
	title, on := cfg.ServerTitle(), ""
	switch {
	case s.StandIn():
		on = " as Speed Matrix's simulated stand-in"
	case s.OnCPU():
		on = " on the CPU"
	}
	kept := ""
	if s.TemporaryLog() {
		kept = "; removed when it stops normally, kept if it fails"
	}
	fmt.Fprintf(stderr, "starting %s%s (full log: %s%s):\n  %s\n", title, on, s.LogPath(), kept, s.Display())
	echo := &startupEcho{w: stderr, prefix: cfg.Server}
	unsubscribe := s.Subscribe(echo.line)
	err = s.WaitReady(ctx)
	unsubscribe()
	echo.close()
	if err != nil {
		return measure.Subject{Target: measure.Target{}}, nil, err
	}
	t := s.Subject()
	fmt.Fprintf(stderr, "%s %s is ready%s at %s serving %s (KV cache %d tokens)\n",
		title, t.Header.Server.Version, on, t.BaseURL, t.Model, t.Header.Server.KVCacheTokens)

	// The server runs on this machine: describe its hardware and sample it
	// as for a local --endpoint.
	local, stopTelemetry, err := c.endpointTarget(ctx, t.BaseURL, t.Model, t.APIKey, gpuMetrics{urls: cfg.GPUMetrics, setting: "gpu_metrics in " + path})
	if err != nil {
		_ = s.Stop()
		return measure.Subject{Target: measure.Target{}}, nil, err
	}
	if w := launch.MixedGPUs(cfg, local.Header.Hardware.GPUs); w != "" && !s.OnCPU() {
		fmt.Fprintf(stderr, "warning: %s (pick identical ones with gpus in %s)\n", w, path)
	}
	t = runs.Launched(s, local.Header.Hardware)
	t.Telemetry = local.Telemetry
	// A launched stand-in (speedmatrix sim serve) is described, as at an
	// endpoint, by its profile's simulated rig, not this machine's GPUs.
	t.SimulatorFor = local.SimulatorFor
	if len(cfg.GPUMetrics) > 0 {
		// The exporters number the GPUs their own way: J/token sums all of them.
		t.ServingGPUs = nil
	}
	stop := func() {
		stopTelemetry()
		if err := s.Stop(); err != nil {
			fmt.Fprintf(stderr, "speedmatrix: %v\n", err)
		}
	}
	return t, stop, nil
}

// startupEcho copies the server's log lines to w until close; the lines
// arrive on the log reader's goroutine.
type startupEcho struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string // the engine: "vllm", "sglang"
	closed bool
}

func (e *startupEcho) line(l string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		fmt.Fprintf(e.w, "%s| %s\n", e.prefix, l)
	}
}

func (e *startupEcho) close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
}
