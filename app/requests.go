package shell

import (
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// What a screen asks of another, each a small interface that the screen
// answering it implements; newUI connects them once every screen is built.
// So a screen names no other screen, only what it asks.

// targetSource is the Server screen as others ask of it.
type targetSource interface {
	// readyTarget is the target a run measures now (a simulator not
	// started yet starts).
	readyTarget() (measure.Subject, error)
	// ChooseKind offers this kind of target (targetVLLM, targetEndpoint
	// or targetSim).
	ChooseKind(kind string)
	// fillLaunchForm gives a resumed sweep the Launch form as it is.
	fillLaunchForm(job *sweepJob)
}

// reportViewer is the Results screen as others ask of it.
type reportViewer interface {
	// openReport comes to the front showing rep, kept in the History
	// folder dir ("" for a run just finished); the channel it returns is
	// closed once the charts are drawn.
	openReport(rep engine.Report, dir string) <-chan struct{}
	// offerReport shows rep, kept in the History folder dir, if nothing
	// is shown yet, staying where it is: the latest saved run at start.
	offerReport(rep engine.Report, dir string)
	// openSweep comes to the front showing the summary of the sweep saved
	// in dir.
	openSweep(dir string)
}

// runStarter is the Run screen as others ask of it.
type runStarter interface {
	// resumeRun comes to the front and finishes rep, the partial run saved
	// in dir.
	resumeRun(rep engine.Report, dir string)
	// startSweep comes to the front and runs job: a new sweep of the
	// Launch form's configurations, or a saved one to finish.
	startSweep(job *sweepJob)
}

// resumeSweep finishes the sweep saved in dir with the servers the Launch
// form starts now, which the Server screen gives.
func resumeSweep(t targetSource, r runStarter, dir string) {
	job := &sweepJob{dir: dir}
	t.fillLaunchForm(job)
	r.startSweep(job)
}
