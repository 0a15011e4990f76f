// Package runs is what both front ends do to start a run, so that the app
// and the CLI prepare, resume and name a run the same way.
package runs

import (
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/vllm"
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
	vllm.RooflineOnceKnown(s)
	if st.Resume != nil {
		s.Header = measure.ResumeHeader(st.Resume.Report, s.Header)
		s.Resume = st.Resume
	}
	s.Header.Run.BenchmarkTool = engine.BenchmarkTool(st.Version)
}
