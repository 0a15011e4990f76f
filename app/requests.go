package app

import (
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// What a screen asks of another, each a small interface that the screen
// answering it implements; newUI connects them once every screen is built.
// So a screen names no other screen, only what it asks.

// TargetSource is the Server screen as others ask of it.
type TargetSource interface {
	// ReadyTarget is the target a run measures now (a simulator not
	// started yet starts).
	ReadyTarget() (measure.Subject, error)
	// ChooseKind offers this kind of target (targetVLLM, targetEndpoint
	// or targetSim).
	ChooseKind(kind string)
	// FillLaunchForm gives a resumed sweep the Launch form as it is.
	FillLaunchForm(job *SweepJob)
}

// ReportViewer is the Results screen as others ask of it.
type ReportViewer interface {
	// OpenReport comes to the front showing rep, kept in the History
	// folder dir ("" for a run just finished); the channel it returns is
	// closed once the charts are drawn.
	OpenReport(rep engine.Report, dir string) <-chan struct{}
	// OfferReport shows rep, kept in the History folder dir, if nothing
	// is shown yet, staying where it is: the latest saved run at start.
	OfferReport(rep engine.Report, dir string)
	// OpenSweep comes to the front showing the summary of the sweep saved
	// in dir.
	OpenSweep(dir string)
}

// RunStarter is the Run screen as others ask of it.
type RunStarter interface {
	// ResumeRun comes to the front and finishes rep, the partial run saved
	// in dir.
	ResumeRun(rep engine.Report, dir string)
	// StartSweep comes to the front and runs job: a new sweep of the
	// Launch form's configurations, or a saved one to finish.
	StartSweep(job *SweepJob)
}

// ResumeSweep finishes the sweep saved in dir with the servers the Launch
// form starts now, which the Server screen gives.
func ResumeSweep(t TargetSource, r RunStarter, dir string) {
	job := &SweepJob{dir: dir}
	t.FillLaunchForm(job)
	r.StartSweep(job)
}
