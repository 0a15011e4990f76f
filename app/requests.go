package app

import (
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// request is what one screen asks of another through the state, and the
// answer: the screen that watches its change reads it in appState.asked
// and answers in it, while ask runs.
type request struct {
	kind   string        // askKind: the kind of target to choose
	report engine.Report // askReport, askResume: the run
	dir    string        // its History folder; "" for a run just finished

	drawn <-chan struct{} // askReport: closed once its charts are drawn
	// offered (askReport): show the report only where none is shown yet,
	// without coming to the front: the latest saved run at start.
	offered bool
	subject measure.Subject // askTarget: the target, ready to be measured
	err     error           // askTarget: why it is not
	sweep   *sweepJob       // askSweep: the sweep to run; askLaunchForm: the resume to give the form
}

// ask makes request r of the screens that watch c and returns it as they
// answered it. A watcher may ask in turn (Resume asks for the target): the
// outer request is asked again once the inner one is answered.
func (s *appState) ask(c change, r request) request {
	outer := s.asked
	s.asked = &r
	s.notify(c)
	s.asked = outer
	return r
}

// readyTarget asks the Server screen for the target a run measures now (a
// simulator not started yet starts).
func (s *appState) readyTarget() (measure.Subject, error) {
	r := s.ask(askTarget, request{})
	return r.subject, r.err
}

// chooseKind asks the Server screen to offer this kind of target
// (targetVLLM, targetEndpoint or targetSim).
func (s *appState) chooseKind(kind string) { s.ask(askKind, request{kind: kind}) }

// openReport asks the Results screen to come to the front showing rep,
// kept in the History folder dir ("" for a run just finished). It returns
// a channel closed once the charts are drawn (nil when none is shown).
func (s *appState) openReport(rep engine.Report, dir string) <-chan struct{} {
	return s.ask(askReport, request{report: rep, dir: dir}).drawn
}

// offerReport asks the Results screen to show rep, kept in the History
// folder dir, if it shows nothing yet, staying where it is.
func (s *appState) offerReport(rep engine.Report, dir string) {
	s.ask(askReport, request{report: rep, dir: dir, offered: true})
}

// resumeRun asks the Run screen to come to the front and finish rep, the
// partial run saved in dir.
func (s *appState) resumeRun(rep engine.Report, dir string) {
	s.ask(askResume, request{report: rep, dir: dir})
}

// startSweep asks the Run screen to come to the front and run job: a new
// sweep of the Launch form's configurations, or a saved one to finish.
func (s *appState) startSweep(job *sweepJob) { s.ask(askSweep, request{sweep: job}) }

// resumeSweep asks the Run screen to finish the sweep saved in dir with
// the servers the Launch form starts now, which the Server screen gives.
func (s *appState) resumeSweep(dir string) {
	job := &sweepJob{dir: dir}
	s.ask(askLaunchForm, request{sweep: job})
	s.startSweep(job)
}

// openSweep asks the Results screen to come to the front showing the
// summary of the sweep saved in dir.
func (s *appState) openSweep(dir string) { s.ask(askSweepSummary, request{dir: dir}) }
