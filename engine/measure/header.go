package measure

import (
	"cmp"
	"speedmatrix/engine"
	"time"

	"speedmatrix/engine/secret"
)

// header starts the report from what the caller knows (Header.Run's
// BenchmarkTool names the caller's build), plus the run settings.
func (r *runner) header() engine.Report {
	rep := r.target.Header
	rep.SchemaVersion = engine.SchemaVersion
	rep.Plan = r.plan
	rep.Results = nil
	run := &rep.Run
	if run.BenchmarkTool == "" {
		run.BenchmarkTool = engine.BenchmarkTool("")
	}
	run.DecodeTest = engine.DecodeTest(r.plan)
	run.PrefillMode = engine.PrefillModeDecodeWarmup
	run.DurationS = r.plan.Duration.Seconds()
	run.MaxOutputTokens = r.plan.MaxOutputTokens
	run.API = string(r.plan.API)
	run.Endpoint = secret.URL(r.target.BaseURL) // the client keeps the password, the report never
	if run.StartedAt.IsZero() {
		run.StartedAt = r.started
	}
	run.FinishedAt = time.Time{}
	run.Complete, run.Incomplete, run.Checks = false, "", nil
	return rep
}

// fillServer completes the Engine and Run sections from the server, and
// returns what identifies the server as it answers now.
func (r *runner) fillServer() serverIdentity {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := &r.report.Server
	id := serverIdentity{Model: r.setup.Model, MaxModelLen: r.setup.MaxModelLen}
	if r.plan.KVBudgetTokens == 0 {
		id.KVCacheTokens = r.setup.KVTokens
	}
	id.Version = r.kind.Version()
	if e.Version == "" {
		e.Version = r.kind.Version()
	}
	if e.Name == "" {
		e.Name = r.kind.Name()
	}
	// A simulator reached over HTTP (speedmatrix sim, or the stand-in for
	// vllm serve a launch knew as simulated before it answered) is labelled
	// like the in-process one, whose header names its profile already:
	// nothing measured against it passes as real.
	if p := r.version.SimulatorProfile; p != "" && e.SimProfile == "" {
		e.Simulated, e.SimProfile = true, p
		r.servedBySimulator(p)
	}
	e.MaxModelLen = r.setup.MaxModelLen
	if r.setup.KVTokens > 0 && r.plan.KVBudgetTokens == 0 {
		e.KVCacheTokens = r.setup.KVTokens
	}
	e.MaxNumSeqs = r.setup.MaxNumSeqs
	r.report.Run.ServedModel = r.setup.Model
	if r.report.Run.Model == "" {
		r.report.Run.Model = r.setup.Root
	}
	// A simulator's rig is not the hardware RooflineFor was given.
	if r.target.RooflineFor != nil && !r.report.Roofline.Available() && r.report.Hardware.Whose != engine.HardwareOfSimulator {
		r.report.Roofline = r.target.RooflineFor(cmp.Or(r.report.Run.Model, r.setup.Model))
	}
	return id
}

// servedBySimulator makes the Hardware section that of the simulator
// profile the endpoint serves (SimulatorFor): its simulated rig, not the
// measuring machine, which did not serve the model, nor a GPU; nor does
// the measuring machine's GPU telemetry go into the cells. Without
// SimulatorFor the caller's description stands (the GPUs its DCGM
// exporters report, say), with a note. r.mu is held.
func (r *runner) servedBySimulator(profile string) {
	note := "The target is the Speed Matrix simulator (profile " + profile + "): its figures are simulated."
	if r.target.SimulatorFor == nil {
		r.report.Hardware.AddNote(note)
		return
	}
	h, ok := r.target.SimulatorFor(profile)
	r.target.Telemetry, r.target.ServingGPUs = nil, nil
	// The roofline is the profile's, or none, as for the in-process
	// simulator: not one of the measuring machine's hardware (a stand-in
	// launched here was given "no GPU detected on this machine").
	r.report.Roofline = h.Roofline
	if !ok {
		r.report.Hardware = engine.HardwareInfo{Whose: engine.HardwareOfSimulator}
		r.report.Hardware.AddNote(note + " Its simulated GPUs are not known to this build.")
		return
	}
	r.report.Hardware = h.Hardware
	r.report.Hardware.Whose = engine.HardwareOfSimulator
	r.report.Hardware.AddNote(note)
}
