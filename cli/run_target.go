package cli

import (
	"cmp"
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
	"speedmatrix/engine/servers"
	"speedmatrix/engine/simtarget"
	"speedmatrix/engine/telemetry"
	"speedmatrix/hw"
)

// target builds the server to measure from the flags (or, on --resume
// without a target flag, from the resumed report) and a func that stops it.
func (c *CLI) target(ctx context.Context, f targetFlags, prev *engine.Report, stderr io.Writer) (measure.Subject, func(), error) {
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
		switch {
		// A simulator reached over HTTP is an endpoint like any other: its
		// run recorded the process at the endpoint (Server).
		case prev.Server.Simulated && prev.Hardware.Type == simtarget.HardwareType && prev.Process == nil:
			f.simProfile = prev.Server.SimProfile
			if e, ok := servers.Lookup(prev.Server.Name); ok && e.SimMode != "" {
				f.simMode = e.SimMode
			}
		case prev.Launched():
			return measure.Subject{Target: measure.Target{}}, nil, fmt.Errorf("run --resume: the run you resume launched its %s server, which stopped with it: give --launch server.toml to launch it again", cmp.Or(prev.Server.Name, "vllm"))
		default:
			f.endpoint = prev.Run.Endpoint
			if f.gpuMetrics == "" {
				f.gpuMetrics = strings.Join(prev.Run.GPUMetrics, ",")
			}
		}
		if strings.Contains(f.gpuMetrics, secret.Redacted) {
			return measure.Subject{Target: measure.Target{}}, nil, fmt.Errorf("run --resume: the report hides a password of its GPU metrics %s: give them again with --gpu-metrics URL,URL", f.gpuMetrics)
		}
	}
	endpoint, err := f.endpointURL(stderr)
	if err != nil {
		return measure.Subject{Target: measure.Target{}}, nil, err
	}
	if strings.Contains(endpoint, secret.Redacted) {
		return measure.Subject{Target: measure.Target{}}, nil, fmt.Errorf("run --resume: the report hides the password of its endpoint %s: give it with --password-env VAR", endpoint)
	}
	key, err := envSecret(f.apiKeyEnv, "--api-key-env")
	if err != nil {
		return measure.Subject{Target: measure.Target{}}, nil, err
	}
	if f.gpuMetrics != "" && f.endpoint == "" {
		return measure.Subject{Target: measure.Target{}}, nil, errors.New("run: --gpu-metrics goes with --endpoint: with --launch set gpu_metrics in server.toml; the simulator has no GPUs to read")
	}
	switch {
	case f.simProfile != "":
		return simTarget(f.simProfile, f.model, f.simMode, c.SimTimeScale)
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
		return c.endpointTarget(ctx, endpoint, f.model, key, gpuMetrics{urls: dcgm.SplitURLs(f.gpuMetrics), setting: "--gpu-metrics"})
	}
	return measure.Subject{Target: measure.Target{}}, nil, errors.New("run: nothing to measure: give --endpoint URL, --sim PROFILE or --launch server.toml")
}

// envSecret is the value of the environment variable that a flag (flag,
// e.g. --api-key-env) names: a secret given this way is not in the process
// list. "" when the flag is not given.
func envSecret(name, flag string) (string, error) {
	if name == "" {
		return "", nil
	}
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return "", fmt.Errorf("run: environment variable %s is not set or empty: export it or drop %s", name, flag)
	}
	return v, nil
}

// endpointURL is --endpoint (or the resumed run's) with the password
// --password-env gives, in place of one the report hid. A password typed
// in --endpoint works too, with a warning on stderr: the process list shows
// it while the run lasts.
func (f targetFlags) endpointURL(stderr io.Writer) (string, error) {
	if f.passwordEnv == "" {
		if secret.URL(f.endpoint) != f.endpoint {
			fmt.Fprintln(stderr, "warning: --endpoint: the process list (ps) shows its password while the run lasts: give it with --password-env VAR instead")
		}
		return f.endpoint, nil
	}
	if f.endpoint == "" {
		return "", errors.New("run: --password-env goes with --endpoint URL")
	}
	// A hidden password ("<redacted>" does not parse) is the one replaced.
	u, err := url.Parse(strings.Replace(f.endpoint, ":"+secret.Redacted+"@", "@", 1))
	if err != nil || u.User == nil || u.User.Username() == "" {
		return "", fmt.Errorf("run: --password-env is the password of the user in --endpoint: write the user in it, e.g. http://user@%s", hostOf(u))
	}
	if _, set := u.User.Password(); set {
		return "", errors.New("run: --endpoint has a password and --password-env gives one too: drop it from --endpoint, where the process list shows it")
	}
	password, err := envSecret(f.passwordEnv, "--password-env")
	if err != nil {
		return "", err
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String(), nil
}

// hostOf is u's host, or "host:8000" when u did not parse.
func hostOf(u *url.URL) string {
	if u == nil || u.Host == "" {
		return "host:8000"
	}
	return u.Host
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
	sampler := hw.NewSampler(telemetry.DefaultSampleInterval)
	sctx, cancel := context.WithCancel(ctx)
	sampler.Start(sctx)
	t.Telemetry = sampler
	return t, func() { sampler.Stop(); cancel() }, nil
}

// simTarget serves the simulator on 127.0.0.1 and describes it, labelled
// simulated in the Hardware and Engine sections.
func simTarget(profile, model, eng string, timeScale float64) (measure.Subject, func(), error) {
	t, stop, err := simtarget.Start(profile, simtarget.Options{TimeScale: timeScale, Model: model, Mode: eng})
	if err != nil {
		return measure.Subject{Target: measure.Target{}}, nil, fmt.Errorf("run --sim: %w", err)
	}
	return t, stop, nil
}
