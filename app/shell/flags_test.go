package shell

import (
	"fmt"
	"image/color"
	"strings"
	"testing"

	"speedmatrix/app"
	"speedmatrix/engine"
)

// checkedResults are decode cells at 1K of a run the server cut short: a
// flagged Valid cell, a plain one, a Failed cell with partial figures, a
// Cancelled one and one never reached.
func checkedResults() []engine.Result {
	dec := func(c int, st engine.Status) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 1024, Concurrency: c},
			ContextLabel: "1K", Status: st}
	}
	flagged := dec(8, engine.StatusValid)
	flagged.TotalTokPerSec, flagged.TTFTMs, flagged.AvgActive = 1237.5, 128, 8
	flagged.Flags = []engine.Flag{{Kind: engine.FlagPreempted, Message: "preempted 3 times: KV cache pressure"}}
	flagged.Server = &engine.ServerCheck{Active: 8, TokPerSec: 1240, Preemptions: 3}
	plain := dec(1, engine.StatusValid)
	plain.TotalTokPerSec, plain.TTFTMs, plain.AvgActive = 195.7, 8, 1
	failed := dec(2, engine.StatusFailed)
	failed.Error = "a stream stalled for 120 s"
	failed.Partial = &engine.PartialFigures{TotalTokPerSec: 4321.5, TTFTMs: 777, OutputTokens: 43215}
	return []engine.Result{plain, failed, flagged, dec(16, engine.StatusCancelled),
		dec(32, engine.StatusNotRun)}
}

// TestHeatmapMarksFlagsAndNotRun: a flagged cell carries the marker and its
// flag is listed under the grid; a Not run cell looks different from a
// Cancelled and a waiting one; a Failed cell shows none of its partial
// figures.
func TestHeatmapMarksFlagsAndNotRun(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.run.Heat
	h.IdleText = "waiting" // as during a run
	h.SetAxes([]int{1024}, []int{1, 2, 8, 16, 32, 64})
	for _, r := range checkedResults() {
		h.SetResult(r)
	}
	h.Redraw()
	cases := []struct {
		name  string
		conc  int
		label string
	}{
		{"plain", 1, "195.7 8 ms TTFT"},
		{"failed, partial figures hidden", 2, "Failed"},
		{"flagged", 8, "1,237.5 128 ms TTFT †"},
		{"cancelled", 16, "Cancelled"},
		{"not run", 32, "Not run"},
		{"waiting", 64, "waiting"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := h.Cell(1024, c.conc).Label(); got != c.label {
				t.Errorf("1K × %d shows %q, want %q", c.conc, got, c.label)
			}
		})
	}
	if got, want := h.Flags.Text, "† Sustained decode 1K × 8: preempted 3 times: KV cache pressure"; got != want || h.Flags.Hidden {
		t.Errorf("flags under the heatmap = %q (hidden %v), want %q", got, h.Flags.Hidden, want)
	}
	look := func(conc int) string {
		bg := h.Cell(1024, conc).Bg
		return lookKey(bg.FillColor, bg.StrokeColor, bg.StrokeWidth)
	}
	if notRun := look(32); notRun == look(16) || notRun == look(64) {
		t.Errorf("a Not run cell (%s) looks like a Cancelled (%s) or a waiting one (%s)", notRun, look(16), look(64))
	}
}

// lookKey names how a cell's background draws: fill, outline and width.
func lookKey(fill, stroke color.Color, w float32) string {
	rgba := func(c color.Color) string {
		if c == nil || w == 0 && c == stroke {
			return "none"
		}
		r, g, b, a := c.RGBA()
		return fmt.Sprint(r, g, b, a)
	}
	return rgba(fill) + " / " + rgba(stroke) + fmt.Sprint(" ", w)
}

// TestResultsShowFlagsAndIncomplete: the Results screen says why a run
// stopped, marks the flagged cell's status and lists its flag.
func TestResultsShowFlagsAndIncomplete(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	rep := cannedReport("tiny", 195.7)
	rep.Results = append(rep.Results, checkedResults()...)
	rep.Run.Incomplete = "the server stopped answering: connection refused"
	u.results.Show(rep, "")
	waitFor(t, u.results.Rendered, "the charts")
	if n := u.results.Banner.Current; !u.results.Banner.Visible() || n.Message != "This run is partial: the server stopped answering." ||
		n.Detail != "the server stopped answering: connection refused" {
		t.Errorf("banner %+v does not say in plain words why the run stopped", n)
	}
	statuses := map[string]bool{}
	for _, row := range u.results.Table.Cells {
		statuses[row[3]] = true
		if strings.Contains(strings.Join(row, " "), "4,321") {
			t.Errorf("the table shows the Failed cell's partial figures: %q", row)
		}
	}
	for _, want := range []string{"Valid †", "Valid", "Failed", "Not run", "Cancelled"} {
		if !statuses[want] {
			t.Errorf("no row with status %q in %v", want, statuses)
		}
	}
	if got := u.results.Table.Flags.Text; !strings.Contains(got, "† Sustained decode 1K × 8: preempted 3 times") || u.results.Table.Flags.Hidden {
		t.Errorf("flags under the table = %q (hidden %v)", got, u.results.Table.Flags.Hidden)
	}
}

// TestRunSaysWhyItStopped: when the engine ends a run early without an
// error, the Run screen gives its reason.
func TestRunSaysWhyItStopped(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents(), incomplete: "the server stopped answering: connection refused"}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the run to finish")
	if got := u.run.ProgressLine.Text; !strings.HasPrefix(got, "Stopped after ") {
		t.Errorf("progress line %q does not say the run stopped", got)
	}
	n := u.run.Banner.Current
	if !u.run.Banner.Visible() || n.Message == "" || n.Detail != "the server stopped answering: connection refused" || n.Button != "Open Results screen" {
		t.Errorf("banner = %+v (visible %v), want the reason in its detail and a way to Resume", n, u.run.Banner.Visible())
	}
}
