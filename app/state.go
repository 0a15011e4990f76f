package app

import (
	"time"

	"speedmatrix/engine"
	"speedmatrix/hw"
)

// appState is what every screen observes: the target, what its server is
// known to hold, the plan, the run, the live sample and the settings in
// use. UI goroutine only.
//
// Screens never call each other. A screen changes the state only through
// its setters, learns of every change through watch, and asks another
// screen for something (show a report, resume a run) through the small
// interface that screen implements (requests.go), which newUI connects. So a screen's files name no other screen: not its field
// on ui, nor a type declared in its files, nor a function there that takes
// the ui. Only the wiring files put screens together: app.go, which builds
// them, and the app-wide work it starts (autorun, shortcuts, the tour,
// saving the preferences). TestScreensDoNotCallEachOther (screens_test.go)
// holds this rule; its fileClasses sorts every file into a screen's,
// wiring or shared.
type appState struct {
	target  targetInfo
	plan    engine.Plan
	planErr error // why the Matrix screen's form is not a plan; nil when it is
	// load is the Matrix screen's load test (loadstate.go); when load.On,
	// Run starts it instead of plan.
	load loadInfo
	// quality is the Matrix screen's Quality field (qualitystate.go): the
	// phase a matrix run adds after its cells.
	quality qualityInfo
	run     runInfo
	// sample is the live telemetry's latest reading; sampled is false
	// before the first, and when the target has none. sampleFrom says
	// whose GPUs it reads: a panel labels it by that, never by the target.
	sample     hw.Sample
	sampled    bool
	sampleFrom telemetrySource
	// simHardware is, while the simulator is the target and runs, the
	// hardware it models; simulating is false otherwise.
	simHardware engine.HardwareInfo
	simulating  bool
	settings    appSettings // the Settings screen's, applied
	// saved is the History folder a run was last saved in.
	saved    string
	watchers []watcher
}

// The three kinds of target, as the Server screen names them (and its
// saved settings keep them).
const (
	targetVLLM     = "Launch a server" // vLLM or SGLang, from the Launch form
	targetEndpoint = "Existing endpoint"
	targetSim      = "Simulator"
)

// targetInfo is the target a run would measure now.
type targetInfo struct {
	Kind        string // targetVLLM, targetEndpoint or targetSim
	Description string // what the Run screen names: a URL, "vLLM: MODEL", "simulated (profile tiny)"
	Simulated   bool
	// OnCPU is set when the target is a server launched here on the CPU
	// (vLLM's CPU build): no GPU serves it.
	OnCPU    bool
	Capacity capacity // what its server holds, as far as known
	// NotReady says in one line why a run cannot start on it now (the
	// Server screen's server is not running, or cannot start here); "" when
	// it can.
	NotReady string
}

// runInfo is the run in progress, or the last one.
type runInfo struct {
	Running  bool
	Started  time.Time
	Progress *engine.Progress     // the latest; nil before the first
	Server   *engine.ServerSample // the server's state now; nil when no run watches it
	Found    serverFound          // what the run found of its server, once it has a report
	// Sweep is set while a sweep runs (Running all along, between its
	// runs too): it starts the servers itself.
	Sweep bool
}

// serverFound is what a run found of the server it measures: its endpoint
// (passwords hidden, as the report keeps it) and its limits as the engine
// read them from the server.
type serverFound struct {
	Endpoint string
	Limits   capacity
}

// foundIn is what rep found of its server.
func foundIn(rep engine.Report) serverFound {
	e := rep.Engine
	return serverFound{Endpoint: rep.Run.Endpoint, Limits: capacity{MaxModelLen: e.MaxModelLen, KVCacheTokens: e.KVCacheTokens, MaxNumSeqs: e.MaxNumSeqs}}
}

// telemetrySource is whose GPUs the live sample reads.
type telemetrySource uint8

const (
	fromNone      telemetrySource = iota // no sample
	fromMachine                          // this machine's NVML sampler
	fromSimulator                        // the simulator's model of its GPUs: simulated
	fromExporters                        // the DCGM exporters of the target
)

// change says which part of the state changed.
type change uint16

const (
	changeTarget change = 1 << iota
	changePlan
	changeRun
	changeTelemetry
	changeSimulator // simHardware, simulating
	changeSettings
	// changeTheme: the theme's colours changed (chosen, or followed from
	// the system); what is drawn in them is drawn again.
	changeTheme
	changeSaved // a run was written into its History folder
)

type watcher struct {
	mask change
	f    func()
}

// watch calls f after every change in mask.
func (s *appState) watch(mask change, f func()) {
	s.watchers = append(s.watchers, watcher{mask, f})
}

func (s *appState) notify(c change) {
	for _, w := range s.watchers {
		if w.mask&c != 0 {
			w.f()
		}
	}
}

// setTarget replaces the target; watchers hear of it only when it changed.
func (s *appState) setTarget(t targetInfo) {
	if t == s.target {
		return
	}
	s.target = t
	s.notify(changeTarget)
}

// setPlan replaces the plan (or says why the form is not one).
func (s *appState) setPlan(p engine.Plan, err error) {
	s.plan, s.planErr = p, err
	s.notify(changePlan)
}

// setRun replaces the run's state.
func (s *appState) setRun(r runInfo) {
	s.run = r
	s.notify(changeRun)
}

// setSample replaces the latest hardware sample (hw.Sampler.Latest) and
// says whose GPUs it reads; ok false (or fromNone) leaves no sample.
func (s *appState) setSample(smp hw.Sample, ok bool, from telemetrySource) {
	if !ok || from == fromNone {
		smp, ok, from = hw.Sample{}, false, fromNone
	}
	s.sample, s.sampled, s.sampleFrom = smp, ok, from
	s.notify(changeTelemetry)
}

// setSimulator says which hardware the simulator models while it is the
// target and runs (ok false otherwise).
func (s *appState) setSimulator(info engine.HardwareInfo, ok bool) {
	s.simHardware, s.simulating = info, ok
	s.notify(changeSimulator)
}

// setSettings replaces the settings in use.
func (s *appState) setSettings(c appSettings) {
	s.settings = c
	s.notify(changeSettings)
}

// setSLO replaces the SLO in use, which the Matrix and Settings screens
// both edit; watchers hear of it only when it changed.
func (s *appState) setSLO(slo engine.SLO) {
	if slo == s.settings.SLO {
		return
	}
	s.settings.SLO = slo
	s.notify(changeSettings)
}

// themeChanged says that the theme's colours changed.
func (s *appState) themeChanged() { s.notify(changeTheme) }

// runSaved says that a run was written into dir, its History folder.
func (s *appState) runSaved(dir string) {
	s.saved = dir
	s.notify(changeSaved)
}

// fitted is the plan as the engine will run it on the target: contexts
// fitted to its model length.
func (s *appState) fitted() engine.Plan {
	return s.target.Capacity.Fit(s.plan)
}
