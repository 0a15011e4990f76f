package shell

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/servers"
)

// checkedCannedReport is the canned run as a server with /metrics records
// it: the server's own count beside ours, and preemptions in one cell.
func checkedCannedReport() engine.Report {
	rep := cannedReport("tiny", 195.7)
	rep.Run.Checks = []string{measure.CheckServerMetrics}
	for i := range rep.Results {
		res := &rep.Results[i]
		switch {
		case res.Phase != engine.PhaseDecode:
		case res.Concurrency == 1:
			res.Server = &engine.ServerCheck{Samples: 20, Active: 1, TokPerSec: 197.3}
		case res.Concurrency == 2:
			res.Server = &engine.ServerCheck{Samples: 20, Active: 1.6, Waiting: 0.4, TokPerSec: 318.4, Preemptions: 7}
			res.DrainS = 0.3
		}
	}
	return rep
}

// showChecks shows rep on the Results screen with its Checks tab in front,
// and returns that tab after checking it follows All measurements.
func showChecks(t *testing.T, rep engine.Report) (*ui, fyne.CanvasObject) {
	t.Helper()
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.Show(app.TabResults)
	u.results.Show(rep, "")
	items := u.results.Views.Items
	at := slices.IndexFunc(items, func(it *container.TabItem) bool { return it.Text == "Checks" })
	if at < 1 || items[at-1].Text != "All measurements" {
		t.Fatalf("Results has the Checks tab at %d, want it right after All measurements", at)
	}
	u.results.Views.Select(items[at])
	return u, items[at].Content
}

// hasLabel reports whether a label inside obj shows exactly s.
func hasLabel(obj fyne.CanvasObject, s string) bool {
	return apptest.Walk(obj, func(o fyne.CanvasObject) bool {
		l, ok := o.(*widget.Label)
		return ok && l.Text == s
	})
}

func TestChecksTabShowsServerFigures(t *testing.T) {
	u, tab := showChecks(t, checkedCannedReport())
	for _, want := range []string{"318.4", "Preemptions", measure.CheckServerMetrics} {
		if !apptest.HasText(tab, want) {
			t.Errorf("the Checks tab does not show %q", want)
		}
	}
	if !hasLabel(tab, "7") {
		t.Error("the Checks tab does not show the 7 preemptions")
	}
	cells := u.results.Checks.Table.Cells
	if len(cells) != 2 {
		t.Fatalf("Checks table has %d rows, want the 2 decode cells with server figures", len(cells))
	}
	col := slices.Index(report.CheckColumns, "Preemptions")
	if got := cells[1][col]; got != "7" {
		t.Errorf("preemptions of 1K × 2 = %q, want 7", got)
	}
	u.results.Checks.Table.SortBy(col)
	u.results.Checks.Table.SortBy(col) // descending: the preempted cell first
	if got := u.results.Checks.Table.Cells[0][col]; got != "7" {
		t.Errorf("sorted by preemptions descending, first row shows %q, want 7", got)
	}
	if apptest.HasText(tab, appwidget.NoChecksLine) {
		t.Error("a run with server figures says no cross-check was recorded")
	}
}

func TestChecksTabWithoutServerMetrics(t *testing.T) {
	rep := cannedReport("tiny", 195.7)
	rep.Run.Checks = []string{servers.CheckNoVLLMMetrics}
	u, tab := showChecks(t, rep)
	for _, want := range []string{servers.CheckNoVLLMMetrics, appwidget.NoChecksLine} {
		if !apptest.HasText(tab, want) {
			t.Errorf("the Checks tab does not show %q", want)
		}
	}
	if u.results.Checks.Table.Table.Visible() {
		t.Error("the Checks table is shown with no rows to show")
	}
}

// TestChecksTabNamesSlowLinkAndThrottledGPU: the Checks tab says which GPU
// ran below its PCIe maximum under load and which one throttled.
func TestChecksTabNamesSlowLinkAndThrottledGPU(t *testing.T) {
	rep := checkedCannedReport()
	for i := range rep.Results {
		if res := &rep.Results[i]; res.Phase == engine.PhaseDecode && res.Concurrency == 2 {
			res.Telemetry = &engine.Telemetry{Samples: 50, GPUs: []engine.GPUTelemetry{{Index: 1,
				PCIe: &engine.PCIeLoad{Link: engine.PCIeLink{Gen: 4, Width: 8}, Max: engine.PCIeLink{Gen: 4, Width: 16}, Samples: 50}}},
				Throttle: &engine.Throttle{Verdict: engine.ThrottlePowerCap, Samples: 50, Reasons: []engine.ThrottleReason{{
					Reason: engine.ThrottlePowerCap, Share: 0.34, GPUs: []int{1}, PerGPU: []engine.GPUShare{{Index: 1, Share: 0.34}}}}}}
		}
	}
	_, tab := showChecks(t, rep)
	for _, want := range []string{"GPU 1 runs at PCIe 4.0 x8 (max x16) under load", "GPU 1 throttled (power cap) in 1 of 1 sampled cells",
		"GPU 1 throttled: power cap, 34 % of the window"} {
		if !apptest.HasText(tab, want) {
			t.Errorf("the Checks tab does not show %q", want)
		}
	}
}
