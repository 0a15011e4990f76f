package app

import (
	"testing"

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
	} {
		if got := loadLine(c.res); got != c.want {
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
	u.run.onStart()
	if got := u.run.output.status.Text; got != outputLoad || !u.run.output.status.Visible() {
		t.Errorf("Output panel during a load test: %q (shown %v), want %q", got, u.run.output.status.Visible(), outputLoad)
	}
	u.run.onCancel()
	waitFor(t, u.run.uiDone, "the load test to end")
}
