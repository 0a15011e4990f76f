package runs

import (
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// TestPrepareNew: a new run gets this machine's diagnostics and the tool's
// name; a server someone else started gets a roofline once its model is
// known, the simulator none.
func TestPrepareNew(t *testing.T) {
	diag := &engine.Diagnostics{}
	var s measure.Subject
	Prepare(&s, Setup{Diagnostics: diag, Version: "1.2.3"})
	if s.Header.Diagnostics != diag || s.Header.Run.BenchmarkTool != engine.BenchmarkTool("1.2.3") || s.Resume != nil {
		t.Errorf("new run: diagnostics %p (want %p), tool %q, resume %v", s.Header.Diagnostics, diag, s.Header.Run.BenchmarkTool, s.Resume)
	}
	if s.RooflineFor == nil {
		t.Error("a server without roofline facts gets no RooflineFor")
	}
	var sim measure.Subject
	sim.Header.Server.Simulated = true
	Prepare(&sim, Setup{Version: "1.2.3"})
	if sim.RooflineFor != nil {
		t.Error("the simulator got a RooflineFor: its profiles state their own facts")
	}
}

// TestPrepareResume: a resumed run keeps the earlier run's sections and
// start, takes the diagnostics measured now, and carries the Resume.
func TestPrepareResume(t *testing.T) {
	started := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	prev := engine.Report{Run: engine.RunInfo{ServedModel: "earlier-model", StartedAt: started}, Results: []engine.Result{{Status: engine.StatusValid}}}
	diag := &engine.Diagnostics{}
	var s measure.Subject
	s.Header.Run.ServedModel = "now"
	resume := &measure.Resume{Report: prev, KeepFailed: true}
	Prepare(&s, Setup{Diagnostics: diag, Resume: resume, Version: "1.2.3"})
	h := s.Header
	if h.Run.ServedModel != "earlier-model" || !h.Run.StartedAt.Equal(started) || h.Diagnostics != diag || len(h.Results) != 0 ||
		h.Run.BenchmarkTool != engine.BenchmarkTool("1.2.3") || s.Resume != resume {
		t.Errorf("resumed header %+v, resume %v", h.Run, s.Resume)
	}
}
