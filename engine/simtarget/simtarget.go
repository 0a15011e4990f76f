// Package simtarget starts the in-process vLLM simulator (engine/sim) on a
// free loopback port and describes it as a measure.Subject whose Hardware
// and Engine sections are labelled simulated, with simulated GPU telemetry
// from the simulator's own scheduler. The app and the cli share it so that
// a simulated run reads the same whichever started it.
//
// It is an adapter; engine/telemetry's Sampler keeps and summarises its
// samples as it does NVML's. What it may import is one table for the whole tree, allowedImports
// in imports_test.go, which TestImportRules checks.
package simtarget

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/servers"
	"speedmatrix/engine/sim"
)

// Options tunes the simulator Start serves; the zero value is a real-time
// simulator without faults or API key that serves the profile's model.
type Options struct {
	// TimeScale runs the performance model this many times faster than
	// real time; 0 means 1.
	TimeScale float64
	// Model, when set, is the model name the target asks for.
	Model string
	// APIKey, when set, is required by the simulator and sent by the target.
	APIKey string
	// Faults injects errors, disconnects, stalls or a slow start.
	Faults sim.Faults
	// Mode is the engine the simulator speaks as: sim.ModeVLLM ("")
	// or sim.ModeSGLang.
	Mode string
	// Seed selects the simulator's generated text and its noise draws, so
	// that repeated runs of one cell can differ (or be the same).
	Seed int64
	// NoNoise runs the profile without its Noise: every step takes its
	// modelled time, for tests that need exact figures.
	NoNoise bool
}

// Start serves the named simulator profile on 127.0.0.1:0 and returns the
// target describing it and a func that stops the server. It returns the
// profile lookup error as it is (it lists the known profiles) so callers
// can prefix it with their own context.
func Start(profile string, opts Options) (measure.Subject, func(), error) {
	p, err := sim.LookupProfile(profile)
	if err != nil {
		return measure.Subject{}, nil, err
	}
	s, err := sim.New(simOptions(p, opts))
	if err != nil {
		return measure.Subject{}, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		return measure.Subject{}, nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	srv := &http.Server{Handler: s}
	go func() { _ = srv.Serve(ln) }()
	tel := startTelemetry(s, opts.TimeScale)
	stop := func() { _ = srv.Close(); tel.Stop(); s.Close() }
	t := measure.Subject{Target: measure.Target{BaseURL: "http://" + ln.Addr().String(), Model: opts.Model, APIKey: opts.APIKey}}
	t.Header = header(p)
	if opts.Mode != "" && opts.Mode != sim.ModeVLLM {
		// header names vLLM, as the simulator's /version does; in any other
		// mode (SGLang) the run reads the engine, its version and its
		// limits from the simulator's endpoints, as from a real server.
		t.Header.Server.Name, t.Header.Server.Version = "", ""
		t.Header.Server.KVCacheTokens, t.Header.Server.MaxNumSeqs, t.Header.Server.MaxModelLen = 0, 0, 0
		t.Header.LaunchCommand = ""
	}
	t.Telemetry = tel
	t.IdlePowerWindow = simIdleWindow(opts.TimeScale)
	for _, g := range t.Header.Hardware.GPUs {
		t.ServingGPUs = append(t.ServingGPUs, engine.GPUKey{Index: g.Index})
	}
	return t, stop, nil
}

// simIdleWindow is the quiet window of a simulated run's idle power: 5
// model seconds, at least ten samples.
func simIdleWindow(scale float64) time.Duration {
	if scale <= 0 {
		scale = 1
	}
	return max(time.Duration(float64(5*time.Second)/scale), 10*time.Millisecond)
}

// simOptions are the simulator's options for profile p.
func simOptions(p sim.Profile, opts Options) sim.Options {
	if opts.NoNoise {
		p.Noise = sim.Noise{}
	}
	return sim.Options{Profile: p, TimeScale: opts.TimeScale, APIKey: opts.APIKey, Faults: opts.Faults, Mode: opts.Mode, Seed: opts.Seed}
}

// HardwareType is the Hardware section's type of an in-process simulator
// run, by which a resumed run knows to start the simulator again.
const HardwareType = "Discrete GPU (simulated)"

// header is the report header (RunOptions.Header) of a run against profile p: simulated
// hardware and engine, the profile's model and launch command.
func header(p sim.Profile) engine.Report {
	var h engine.Report
	h.Hardware = engine.HardwareInfo{
		Type: HardwareType, Whose: engine.HardwareOfSimulator,
		GPUs: simGPUs(p),
		Note: "simulated: the figures come from the simulator's performance model (profile " + p.Name + "), not from a GPU",
	}
	h.Hardware.AddNote(rigNote(p))
	h.Server = engine.ServerInfo{
		Name: servers.VLLM, Version: p.Version, Quantization: p.Quantization, Simulated: true, SimProfile: p.Name,
		KVCacheTokens: p.KVCacheTokens, MaxNumSeqs: p.MaxNumSeqs, MaxModelLen: p.MaxModelLen,
	}
	h.Run.Model = p.Model
	h.Roofline = p.RooflineFacts()
	h.LaunchCommand = strings.TrimSpace(p.LaunchCommand)
	return h
}

// Recognize lets a run of t, a server at an endpoint, describe Speed
// Matrix's simulator by the profile it serves, should it find one there
// (speedmatrix sim): its Hardware section is then the profile's simulated
// rig, not the hardware t's header describes.
func Recognize(t *measure.Subject) { t.SimulatorFor = profileHeader }

// profileHeader is Header of the named profile; ok is false for a profile
// this build does not know.
func profileHeader(name string) (engine.Report, bool) {
	p, err := sim.LookupProfile(name)
	if err != nil {
		return engine.Report{}, false
	}
	return header(p), true
}
