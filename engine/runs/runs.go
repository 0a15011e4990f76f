// Package runs is the run lifecycle both front ends share, so that the app
// and the CLI prepare, save and resume a run the same way: Prepare fills in
// a Subject (diagnostics, roofline, the resumed run, the tool), Launched is
// the Subject of a server launched here, Saver keeps the report after every
// cell, and Folder names a run's folder in the runs folder.
package runs

import (
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/roofline"
)

// Setup is what a front end knows besides its target: this machine's
// start-up diagnostics, the run it resumes, and its own version.
type Setup struct {
	Diagnostics *engine.Diagnostics // nil: detection failed; left out
	Resume      *measure.Resume     // nil: a new run
	Version     string              // this build's, for the Run section
}

// Prepare fills in what every run of s needs: the diagnostics; for a server
// whose header has no roofline facts yet, the roofline once its model is
// known; the earlier run's header and cells when it resumes one; and the
// benchmark tool that measured it.
func Prepare(s *measure.Subject, st Setup) {
	s.Header.Diagnostics = st.Diagnostics
	rooflineOnceKnown(s)
	if st.Resume != nil {
		s.Header = measure.ResumeHeader(st.Resume.Report, s.Header)
		s.Resume = st.Resume
	}
	s.Header.Run.BenchmarkTool = engine.BenchmarkTool(st.Version)
}

// rooflineOnceKnown gives t, a server whose header has no roofline facts
// yet (one someone else started), the RooflineFor that finds them, on the
// hardware its header describes, for the model it turns out to serve. The
// simulator's profiles state their own, or none.
func rooflineOnceKnown(t *measure.Subject) {
	if t.Header.Roofline != nil || t.Header.Server.Simulated {
		return
	}
	h := t.Header
	t.RooflineFor = func(model string) *engine.RooflineFacts { return roofline.ForServer(h, model, roofline.ServerFacts{}) }
}

// LaunchedServer is a server launched here (*launch.Server).
type LaunchedServer interface {
	Subject() measure.Subject
	// Hardware is its Hardware section from what was detected here (on
	// the CPU: the CPU, and no GPU).
	Hardware(local engine.HardwareInfo) engine.HardwareInfo
	RooflineFacts() roofline.ServerFacts
}

// Launched is the subject of a server launched here, on the hardware
// detected here (local): its Hardware section, and its roofline from its
// log, its settings and the model's config.json.
func Launched(s LaunchedServer, local engine.HardwareInfo) measure.Subject {
	t := s.Subject()
	t.Header.Hardware = s.Hardware(local)
	t.Header.Hardware.Whose = engine.HardwareOfServer
	t.Header.Roofline = roofline.ForServer(t.Header, t.Header.Run.Model, s.RooflineFacts())
	return t
}
