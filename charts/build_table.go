package charts

import (
	"fmt"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// tableColumns are the reference reports' "All measurements" columns.
var tableColumns = []Column{
	{Title: "Phase"}, {Title: "Context"}, {Title: "Requests at once", Right: true},
	{Title: "Status"}, {Title: "Total tok/s", Right: true}, {Title: "Per request tok/s", Right: true},
	{Title: "TTFT", Right: true}, {Title: "Time between tokens", Right: true},
	{Title: "Average active requests", Right: true}, {Title: "Completed requests", Right: true},
	{Title: "Output tokens", Right: true}, {Title: "Measured for", Right: true},
}

func buildTable(r engine.Report) Table {
	t := Table{
		Title:       "All measurements",
		NotesBefore: []string{engine.NoteLatencies},
		Columns:     tableColumns,
	}
	present := map[engine.Status]bool{}
	for _, phase := range []engine.Phase{engine.PhasePrefill, engine.PhaseDecode} {
		for _, res := range sortedResults(r.Results, phase) {
			// The row report.md writes, so the sheet and report.md agree.
			t.Rows = append(t.Rows, TableRow{Status: res.Status, Cells: report.MeasurementRow(res)})
			present[res.Status] = true
			if res.Status == engine.StatusFailed && res.Error != "" {
				t.Errors = append(t.Errors, report.CellName(res)+": "+res.Error)
			}
		}
	}
	for _, s := range statusOrder {
		if present[s] {
			t.NotesAfter = append(t.NotesAfter, statusNote(s))
		}
	}
	if report.AnyMarked(r.Results) {
		t.NotesAfter = append(t.NotesAfter, report.NoteFlagged)
	}
	if n := len(t.Rows); n > maxTableRows {
		t.Rows = t.Rows[:maxTableRows]
		t.NotesAfter = append(t.NotesAfter, fmt.Sprintf("The sheet shows the first %s of %s measurements: results.csv and report.md list every one.",
			report.Int(maxTableRows), report.Int(n)))
	}
	t.Errors = listed(t.Errors, "failed cells")
	return t
}
