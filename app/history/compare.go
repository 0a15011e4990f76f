package history

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// setPickerOptions lists every run in the A and B pickers, keeping the
// runs a and b (folders) picked; with none picked, the newest pair that
// compares (defaultPair): the usual question is what changed since.
func (h *Tab) setPickerOptions(a, b string) {
	labels := make([]string, len(h.Entries))
	seen := map[string]int{}
	for i, e := range h.Entries {
		l := e.Label()
		if seen[l]++; seen[l] > 1 {
			l = fmt.Sprintf("%s (%d)", l, seen[l]) // a picker tells runs apart by label
		}
		labels[i] = l
	}
	for _, s := range []*appwidget.DropDown{h.A, h.B} {
		s.SetOptions(labels)
		s.ClearSelected()
	}
	ia, ib := h.Index(a), h.Index(b)
	if a == "" && b == "" {
		ia, ib = h.defaultPair()
	}
	if ia >= 0 {
		h.A.SetSelectedIndex(ia)
	}
	if ib >= 0 {
		h.B.SetSelectedIndex(ib)
	}
}

// defaultPair is the pair the pickers start on (indexes into entries): B
// the newest run that has an older one of its kind, A the newest of those;
// -1, -1 when no two runs compare.
func (h *Tab) defaultPair() (a, b int) {
	for i, e := range h.Entries {
		kind := e.compareKind()
		if kind == "" {
			continue
		}
		for j := i + 1; j < len(h.Entries); j++ {
			if h.Entries[j].compareKind() == kind {
				return j, i
			}
		}
	}
	return -1, -1
}

// compareKind is what a run compares with (onCompare): a matrix with a
// matrix, an imported one included, a load test with a load test; "" for
// one that compares with none: a sweep, a run that can't be read.
func (e Entry) compareKind() string {
	switch {
	case e.err != nil || e.Sweep != nil:
		return ""
	case e.Sum.Rates > 0:
		return "load test"
	}
	return "matrix"
}

// PickedFolder is the folder of the run picked in s, "" for none.
func (h *Tab) PickedFolder(s *appwidget.DropDown) string {
	if i := s.SelectedIndex(); i >= 0 && i < len(h.Entries) {
		return h.Entries[i].Folder
	}
	return ""
}

// OnCompare draws the % change of each decode cell from run A to run B.
func (h *Tab) OnCompare() {
	fa, fb := h.PickedFolder(h.A), h.PickedFolder(h.B)
	if fa == "" || fb == "" {
		h.Status.SetText("Choose run A and run B to compare.")
		return
	}
	if h.Entries[h.Index(fa)].Sweep != nil || h.Entries[h.Index(fb)].Sweep != nil {
		h.Status.SetText("A sweep compares its own configurations: open it (Open in Results) to see them, and any of its runs.")
		return
	}
	a, err := h.Load(fa)
	if err == nil {
		var b engine.Report
		if b, err = h.Load(fb); err == nil {
			h.Banner.Hide()
			if h.compareLoads(a, b) { // load.go
				return
			}
			h.showDelta(a, b)
			return
		}
	}
	h.Banner.Show(app.Notice{Message: "The runs could not be compared: one of them cannot be read.", Action: "Open each run to see which one, or delete it.", Detail: err.Error()})
}

// showDelta shows the comparison chart (or a grid when charts fail), with
// what the runs are and what differs between them above it.
func (h *Tab) showDelta(a, b engine.Report) {
	lines := []string{"A: " + runLine(a), "B: " + runLine(b)}
	if d := report.Differences(a, b); len(d) > 0 {
		lines = append(lines, "They differ in "+strings.Join(d, "; ")+".")
	}
	lines = append(lines, QualityLines(a, b)...)
	if a.Run.Imported != nil || b.Run.Imported != nil {
		lines = append(lines, importedLine)
	}
	h.Status.SetText(strings.Join(lines, "\n"))
	h.CompareResult.Objects = []fyne.CanvasObject{newDeltaView(h.U, a, b, h.CompareResult)}
	h.compareBox.Refresh() // the status grew: lay the card out again
}

// importedLine is the compare status's word on an imported run.
const importedLine = "An imported run was measured by another tool, whose method differs from ours: see the notes in its Run section."

// runLine names a run in the compare status: its model on its GPU, and
// whether it was simulated or imported.
func runLine(r engine.Report) string {
	s := report.ModelOnGPU(r)
	if l := r.Server.SimulatedLabel(); l != "" {
		s += " · " + l
	}
	if imp := r.Run.Imported; imp != nil {
		s += " · imported from " + imp.Label()
	}
	return s
}
