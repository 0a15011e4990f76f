package shell

import (
	"strings"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/runs"
)

// TestHistoryPicksAPairThatCompares: with nothing picked yet, A and B are
// the newest two runs that compare (a matrix with a matrix, a load test
// with a load test), not merely the newest two; with no such pair, none.
func TestHistoryPicksAPairThatCompares(t *testing.T) {
	uiOnly(t)
	at := func(rep engine.Report, hours int) engine.Report {
		rep.Run.StartedAt = rep.Run.StartedAt.Add(time.Duration(hours) * time.Hour)
		return rep
	}
	m1, m2 := at(cannedReport("m1", 100), 1), at(cannedReport("m2", 150), 2)
	l1, l2 := at(cannedLoadReport("l1", 1, 2), 3), at(cannedLoadReport("l2", 1, 2), 4)
	for _, tc := range []struct {
		name  string
		saved []engine.Report // oldest first
		a, b  engine.Report
		none  bool
	}{
		{"a load test after two matrices", []engine.Report{m1, m2, l1}, m1, m2, false},
		{"a matrix after two load tests", []engine.Report{l1, l2, at(cannedReport("m", 90), 5)}, l1, l2, false},
		{"the newest pair of either kind", []engine.Report{m1, l1, m2, l2}, l1, l2, false},
		{"a matrix and a load test", []engine.Report{m1, l1}, engine.Report{}, engine.Report{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
			h := u.history
			for _, rep := range tc.saved {
				mustSave(t, h, rep)
			}
			h.A.ClearSelected() // as an app started afresh lists them
			h.B.ClearSelected()
			h.Reload()
			gotA, gotB := h.PickedFolder(h.A), h.PickedFolder(h.B)
			if tc.none {
				if gotA != "" || gotB != "" {
					t.Errorf("picked A %q, B %q: a pair that can't be compared", gotA, gotB)
				}
				return
			}
			if gotA != runs.Folder(tc.a) || gotB != runs.Folder(tc.b) {
				t.Errorf("picked A %q, B %q; want %q, %q", gotA, gotB, runs.Folder(tc.a), runs.Folder(tc.b))
			}
		})
	}
}

// TestHistoryPickerMarksImportedRuns: a run another tool measured says so
// in the A and B pickers, as load tests and sweeps do.
func TestHistoryPickerMarksImportedRuns(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.history
	imp := cannedReport("theirs", 120)
	imp.Run.Imported = &engine.Import{Tool: "llm-inference-bench", Version: "0.4.18"}
	ours := cannedReport("ours", 100)
	ours.Run.StartedAt = ours.Run.StartedAt.Add(time.Hour)
	mustSave(t, h, imp)
	mustSave(t, h, ours)
	for _, opt := range h.A.Options {
		if imported := strings.Contains(opt, "theirs"); strings.HasSuffix(opt, " · imported") != imported {
			t.Errorf("picker option %q: imported %v", opt, imported)
		}
	}
	if len(h.A.Options) != 2 {
		t.Errorf("picker options %q, want 2", h.A.Options)
	}
}
