package shell

import (
	"testing"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

// TestLoadLineSaysItOnce: a rate's line in the event log gives its reason
// once: a cancelled rate is "Cancelled", not "Cancelled · cancelled".
func TestLoadLineSaysItOnce(t *testing.T) {
	for _, c := range []struct {
		res  engine.LoadResult
		want string
	}{
		{engine.LoadResult{RateRPS: 4, Status: engine.StatusCancelled, Error: "cancelled"}, "4 req/s: Cancelled"},
		{engine.LoadResult{RateRPS: 4, Status: engine.StatusFailed, Error: "connection refused"}, "4 req/s: Failed · connection refused"},
		// A server that died part-way: what its completed requests measured.
		{engine.LoadResult{RateRPS: 4, Status: engine.StatusFailed, Error: "the server stopped answering", Completed: 43, Failed: 57,
			RequestThroughputRPS: 9.39, OutputTokPerSec: 1200, TTFTMs: engine.Percentiles{P50: 12, P99: 37.5, N: 43}, E2EMs: engine.Percentiles{P50: 300, P99: 460, N: 43}},
			"4 req/s: Failed · before it stopped: 9.39 req/s · 1,200.0 tok/s · TTFT p99 37.5 ms ‡ · E2E p99 460 ms ‡ · 57 failed · the server stopped answering"},
	} {
		if got := appwidget.LoadLine(c.res); got != c.want {
			t.Errorf("loadLine = %q, want %q", got, c.want)
		}
	}
}

// TestOutputPanelDuringALoadTest: the Output panel says it does not follow
// a load test's requests ("Waiting for the first decode cell." waited for a
// cell no load test has).
func TestOutputPanelDuringALoadTest(t *testing.T) {
	ld := &fakeLoad{events: cannedLoadEvents()[:2], hold: true}
	u, _ := loadUI(t, ld)
	u.run.OnStart()
	if got := u.run.Output.Status.Text; got != appwidget.OutputLoad || !u.run.Output.Status.Visible() {
		t.Errorf("Output panel during a load test: %q (shown %v), want %q", got, u.run.Output.Status.Visible(), appwidget.OutputLoad)
	}
	u.run.OnCancel()
	waitFor(t, u.run.UiDone, "the load test to end")
}
