package app

import (
	"time"

	"speedmatrix/engine"
	"speedmatrix/hw"
)

// appState is what every screen observes: the target, what its server is
// known to hold, the plan and the run. A screen changes it only through its
// setters and learns of every change through watch: no screen pushes
// updates into another. UI goroutine only.
type appState struct {
	target  targetInfo
	plan    engine.Plan
	planErr error // why the Matrix screen's form is not a plan; nil when it is
	run     runInfo
	// sample is the live sampler's latest reading; sampled is false
	// before the first.
	sample   hw.Sample
	sampled  bool
	watchers []watcher
}

// targetInfo is the target a run would measure now.
type targetInfo struct {
	Kind        string // targetVLLM, targetEndpoint or targetSim
	Description string // what the Run screen names: a URL, "vLLM: MODEL", "simulated (profile tiny)"
	Simulated   bool
	// OnCPU is set when the target is a server launched here on the CPU
	// (vLLM's CPU build): no GPU serves it.
	OnCPU    bool
	Capacity capacity // what its server holds, as far as known
}

// runInfo is the run in progress, or the last one.
type runInfo struct {
	Running  bool
	Started  time.Time
	Progress *engine.Progress     // the latest; nil before the first
	Server   *engine.ServerSample // the server's state now; nil when no run watches it
}

// change says which part of the state changed.
type change uint8

const (
	changeTarget change = 1 << iota
	changePlan
	changeRun
	changeTelemetry
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

// setSample replaces the latest hardware sample (hw.Sampler.Latest).
func (s *appState) setSample(smp hw.Sample, ok bool) {
	s.sample, s.sampled = smp, ok
	s.notify(changeTelemetry)
}

// fitted is the plan as the engine will run it on the target: contexts
// fitted to its model length.
func (s *appState) fitted() engine.Plan {
	return s.target.Capacity.Fit(s.plan)
}
