package measure

import (
	"slices"
	"speedmatrix/engine"
	"testing"
	"time"
)

// notingTelemetry is a source whose exporter went quiet: it says so.
type notingTelemetry struct{ fakeTelemetry }

func (n *notingTelemetry) TelemetryNotes() []string {
	return []string{"GPU telemetry from node2 stopped at 15:30:03 UTC."}
}

func (n *notingTelemetry) TelemetryGap(from, to time.Time) string { return "node2 did not answer" }

// TestRunNotesTelemetryThatStopped: what a TelemetryNoter says ends up in
// the report's Run notes, after the notes the header had, and a cell in a
// gap is flagged, without J/token.
func TestRunNotesTelemetryThatStopped(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 5 * time.Millisecond})
	plan := engine.Plan{DecodeContexts: []int{engine.K}, Concurrency: []int{1}, Duration: 100 * time.Millisecond, MaxOutputTokens: 32, API: engine.APICompletions}
	target := Subject{Target: Target{BaseURL: f.URL}, RunOptions: RunOptions{Telemetry: &notingTelemetry{},
		Header: engine.Report{Run: engine.RunInfo{Notes: []string{"earlier note."}}}}}
	rep, _, err := runAll(t, t.Context(), plan, target, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"earlier note.", "GPU telemetry from node2 stopped at 15:30:03 UTC."}
	if !slices.Equal(rep.Run.Notes, want) {
		t.Errorf("Run notes %q, want %q", rep.Run.Notes, want)
	}
	d := statusOf(t, rep, engine.PhaseDecode, engine.K, 1)
	if d.Telemetry == nil || d.JoulesPerToken != 0 || len(d.Flags) == 0 || d.Flags[len(d.Flags)-1].Kind != engine.FlagTelemetryGap ||
		d.Flags[len(d.Flags)-1].Message != "telemetry incomplete: node2 did not answer; J/token left out" {
		t.Errorf("cell in a gap: J/token %v, flags %+v", d.JoulesPerToken, d.Flags)
	}
}
