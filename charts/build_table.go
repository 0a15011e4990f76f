package charts

import (
	"fmt"
	"strconv"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// tableColumns are the seeds' "All measurements" columns.
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
			t.Rows = append(t.Rows, TableRow{Status: res.Status, Cells: tableCells(res)})
			present[res.Status] = true
			if res.Status == engine.StatusFailed && res.Error != "" {
				t.Errors = append(t.Errors, fmt.Sprintf("%s %s × %d: %s", res.Phase.Title(), contextLabel(res), res.Concurrency, res.Error))
			}
		}
	}
	for _, s := range statusOrder {
		if present[s] {
			t.NotesAfter = append(t.NotesAfter, statusNote(s))
		}
	}
	return t
}

// tableCells formats one result as the seeds' table row does: figures for
// Valid cells, dashes where a figure does not apply or was not measured.
func tableCells(res engine.Result) []string {
	d := Dash
	cells := []string{res.Phase.Title(), contextLabel(res), strconv.Itoa(res.Concurrency), string(res.Status),
		d, d, d, d, d, d, d, d}
	switch {
	case res.Phase == engine.PhasePrefill && res.Measured():
		cells[4] = report.TokPerSec(res.TotalTokPerSec)
		cells[6] = report.Millis(res.TTFTMs)
		cells[9] = report.Int(res.Completed)
	case res.Measured():
		cells[4] = report.TokPerSec(res.TotalTokPerSec)
		cells[5] = report.PerRequest(res.PerRequestTokPerSec)
		cells[6] = report.Millis(res.TTFTMs)
		cells[7] = report.MillisFine(res.ITLMs)
		cells[8] = strconv.FormatFloat(res.AvgActive, 'f', 1, 64)
		cells[9] = report.Int(res.Completed)
		cells[10] = report.Int(res.OutputTokens)
		cells[11] = report.Seconds(res.MeasuredS)
	case res.Status == engine.StatusLooped || res.Status == engine.StatusFailed:
		// The seeds keep the counts of a discarded cell: "0" and "0".
		cells[9] = report.Int(res.Completed)
		cells[10] = report.Int(res.OutputTokens)
	}
	return cells
}
