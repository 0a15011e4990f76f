package measure

import (
	"speedmatrix/engine"
	"testing"
)

// TestResumeHeaderRefreshes: a resumed run records the server's process
// and the machine's diagnostics as they are now, and keeps the earlier
// ones when the target knows none.
func TestResumeHeaderRefreshes(t *testing.T) {
	t.Parallel()
	prev := engine.Report{LaunchCommand: "# started earlier\nvllm serve m", Process: &engine.ServerProcess{PID: 1},
		Diagnostics: &engine.Diagnostics{Hostname: "before"}}
	now := engine.Report{LaunchCommand: "# started later\nvllm serve m", Process: &engine.ServerProcess{PID: 2},
		Diagnostics: &engine.Diagnostics{Hostname: "after"}}
	h := ResumeHeader(prev, now)
	if h.Process.PID != 2 || h.Diagnostics.Hostname != "after" || h.LaunchCommand != now.LaunchCommand {
		t.Errorf("resumed header keeps the earlier process or diagnostics: %+v", h)
	}
	h = ResumeHeader(prev, engine.Report{})
	if h.Process.PID != 1 || h.Diagnostics.Hostname != "before" {
		t.Errorf("resumed header lost what the earlier run recorded: %+v", h)
	}
}
