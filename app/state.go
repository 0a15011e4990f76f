package app

import (
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
)

// State is what every screen observes: the target, what its server is
// known to hold, the plan, the run, the live sample and the settings in
// use. UI goroutine only.
//
// Screens never call each other. A screen changes the state only through
// its setters, learns of every change through watch, and asks another
// screen for something (show a report, resume a run) through the small
// interface that screen implements (requests.go), which app/shell
// connects. Each screen is a package that imports app and app/widget and
// no other screen (TestImportRules), so the compiler keeps them apart.
type State struct {
	Target  TargetInfo
	Plan    engine.Plan
	PlanErr error // why the Matrix screen's form is not a plan; nil when it is
	// Load is the Matrix screen's load test (loadstate.go); when load.On,
	// Run starts it instead of plan.
	Load LoadInfo
	// Quality is the Matrix screen's Quality field (qualitystate.go): the
	// phase a matrix run adds after its cells.
	Quality QualityInfo
	Run     RunInfo
	// Sample is the live telemetry's latest reading; sampled is false
	// before the first, and when the target has none. sampleFrom says
	// whose GPUs it reads: a panel labels it by that, never by the target.
	Sample     telemetry.Sample
	Sampled    bool
	SampleFrom TelemetrySource
	// SimHardware is, while the simulator is the target and runs, the
	// hardware it models; simulating is false otherwise.
	SimHardware engine.HardwareInfo
	Simulating  bool
	Settings    Settings // the Settings screen's, applied
	// Saved is the History folder a run was last saved in.
	Saved    string
	watchers []watcher
}

// The three kinds of target, as the Server screen names them (and its
// saved settings keep them).
const (
	TargetVLLM     = "Launch a server" // vLLM or SGLang, from the Launch form
	TargetEndpoint = "Existing endpoint"
	TargetSim      = "Simulator"
)

// TargetInfo is the target a run would measure now.
type TargetInfo struct {
	Kind        string // targetVLLM, targetEndpoint or targetSim
	Description string // what the Run screen names: a URL, "vLLM: MODEL", "simulated (profile tiny)"
	Simulated   bool
	// OnCPU is set when the target is a server launched here on the CPU
	// (vLLM's CPU build): no GPU serves it.
	OnCPU    bool
	Capacity Capacity // what its server holds, as far as known
	// NotReady says in one line why a run cannot start on it now (the
	// Server screen's server is not running, or cannot start here); "" when
	// it can.
	NotReady string
}

// RunInfo is the run in progress, or the last one.
type RunInfo struct {
	Running  bool
	Started  time.Time
	Progress *engine.Progress     // the latest; nil before the first
	Server   *engine.ServerSample // the server's state now; nil when no run watches it
	Found    ServerFound          // what the run found of its server, once it has a report
	// Sweep is set while a sweep runs (Running all along, between its
	// runs too): it starts the servers itself.
	Sweep bool
}

// ServerFound is what a run found of the server it measures: its endpoint
// (passwords hidden, as the report keeps it) and its limits as the engine
// read them from the server.
type ServerFound struct {
	Endpoint string
	Limits   Capacity
}

// FoundIn is what rep found of its server.
func FoundIn(rep engine.Report) ServerFound {
	e := rep.Server
	return ServerFound{Endpoint: rep.Run.Endpoint, Limits: Capacity{MaxModelLen: e.MaxModelLen, KVCacheTokens: e.KVCacheTokens, MaxNumSeqs: e.MaxNumSeqs}}
}

// TelemetrySource is whose GPUs the live sample reads.
type TelemetrySource uint8

const (
	FromNone      TelemetrySource = iota // no sample
	FromMachine                          // this machine's NVML sampler
	FromSimulator                        // the simulator's model of its GPUs: simulated
	FromExporters                        // the DCGM exporters of the target
)

// Change says which part of the state changed.
type Change uint16

const (
	ChangeTarget    Change = 1 << iota // the target, or what its server is known to hold
	ChangePlan                         // the plan, or why the form is not one
	ChangeRun                          // the run in progress, or the last one
	ChangeTelemetry                    // the live sample
	ChangeSimulator                    // SimHardware, Simulating
	ChangeSettings                     // the settings in use
	// ChangeTheme: the theme's colours changed (chosen, or followed from
	// the system); what is drawn in them is drawn again.
	ChangeTheme
	ChangeSaved // a run was written into its History folder
)

type watcher struct {
	mask Change
	f    func()
}

// Watch calls f after every change in mask.
func (s *State) Watch(mask Change, f func()) {
	s.watchers = append(s.watchers, watcher{mask, f})
}

func (s *State) notify(c Change) {
	for _, w := range s.watchers {
		if w.mask&c != 0 {
			w.f()
		}
	}
}

// SetTarget replaces the target; watchers hear of it only when it changed.
func (s *State) SetTarget(t TargetInfo) {
	if t == s.Target {
		return
	}
	s.Target = t
	s.notify(ChangeTarget)
}

// SetPlan replaces the plan (or says why the form is not one).
func (s *State) SetPlan(p engine.Plan, err error) {
	s.Plan, s.PlanErr = p, err
	s.notify(ChangePlan)
}

// SetRun replaces the run's state.
func (s *State) SetRun(r RunInfo) {
	s.Run = r
	s.notify(ChangeRun)
}

// SetSample replaces the latest hardware sample (telemetry.Sampler.Latest) and
// says whose GPUs it reads; ok false (or fromNone) leaves no sample.
func (s *State) SetSample(smp telemetry.Sample, ok bool, from TelemetrySource) {
	if !ok || from == FromNone {
		smp, ok, from = telemetry.Sample{}, false, FromNone
	}
	s.Sample, s.Sampled, s.SampleFrom = smp, ok, from
	s.notify(ChangeTelemetry)
}

// SetSimulator says which hardware the simulator models while it is the
// target and runs (ok false otherwise).
func (s *State) SetSimulator(info engine.HardwareInfo, ok bool) {
	s.SimHardware, s.Simulating = info, ok
	s.notify(ChangeSimulator)
}

// SetSettings replaces the settings in use.
func (s *State) SetSettings(c Settings) {
	s.Settings = c
	s.notify(ChangeSettings)
}

// SetSLO replaces the SLO in use, which the Matrix and Settings screens
// both edit; watchers hear of it only when it changed.
func (s *State) SetSLO(slo engine.SLO) {
	if slo == s.Settings.SLO {
		return
	}
	s.Settings.SLO = slo
	s.notify(ChangeSettings)
}

// ThemeChanged says that the theme's colours changed.
func (s *State) ThemeChanged() { s.notify(ChangeTheme) }

// RunSaved says that a run was written into dir, its History folder.
func (s *State) RunSaved(dir string) {
	s.Saved = dir
	s.notify(ChangeSaved)
}

// Fitted is the plan as the engine will run it on the target: contexts
// Fitted to its model length.
func (s *State) Fitted() engine.Plan {
	return s.Target.Capacity.Fit(s.Plan)
}
