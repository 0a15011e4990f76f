package charts

import (
	"fmt"
	"strconv"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// qualityFile is where every figure of a quality run is listed, whole.
const qualityFile = "quality.json"

// buildDriftTable is the drift per context (ctxs, already bounded): the
// figures with their 95 % intervals, the noise floor's, and the verdict.
func buildDriftTable(q engine.QualityReport, ctxs []engine.ContextDrift) Table {
	t := Table{Title: "Drift by context"}
	for i, h := range []string{"Context", "Positions", "Top-1 (95 % CI)", "KLD mean (95 % CI)", "KLD p99 (95 % CI)", "KLD max",
		"Δp mean", "First divergence", "Floor top-1", "Floor KLD mean", "Verdict"} {
		t.Columns = append(t.Columns, Column{Title: h, Right: i > 0 && i < 10})
	}
	signed := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, c := range ctxs {
		row := []string{engine.ContextLabel(c.ContextTokens), report.Int(c.Positions),
			withInterval(c.Top1Pct, c.CI.Top1Pct, formatQualityPct),
			withInterval(c.KLDMean, c.CI.KLDMean, formatNats), withInterval(c.KLDP99, c.CI.KLDP99, formatNats), formatNats(c.KLDMax),
			signed(c.DPMean), strconv.FormatFloat(c.FirstDivergenceMedian, 'f', -1, 64), "—", "—", "no noise floor to judge it by"}
		if f, ok := q.NoiseFloor.At(c.ContextTokens); ok {
			row[8], row[9] = withInterval(f.Top1Pct, f.CI.Top1Pct, formatQualityPct), withInterval(f.KLDMean, f.CI.KLDMean, formatNats)
		}
		if v, ok := q.VerdictAt(c.ContextTokens); ok {
			row[10] = v.Words(q.Budget)
		}
		t.Rows = append(t.Rows, TableRow{Status: engine.StatusValid, Cells: row})
	}
	if len(q.Contexts) > len(ctxs) {
		t.NotesAfter = append(t.NotesAfter, fmt.Sprintf("The table shows the first %s of %s contexts: %s lists every one.",
			report.Int(len(ctxs)), report.Int(len(q.Contexts)), qualityFile))
	}
	return t
}

// buildNeedleTable is the needle task per context, with the exact
// McNemar test against the reference's run of the same trials:
// "19/20 → 12/20, p = 0.016".
func buildNeedleTable(needle []engine.NeedleContext) Table {
	t := Table{Title: "Needle retrieval", Columns: []Column{{Title: "Context"}, {Title: "Trials", Right: true},
		{Title: "Right", Right: true}, {Title: "Accuracy (95 % CI)", Right: true}, {Title: "Against the reference"}}}
	shown := needle[:min(len(needle), engine.MaxLevels)]
	for _, n := range shown {
		t.Rows = append(t.Rows, TableRow{Status: engine.StatusValid, Cells: []string{engine.ContextLabel(n.ContextTokens),
			report.Int(len(n.Correct)), report.Int(engine.Right(n.Correct)), withInterval(n.AccuracyPct, n.CI, formatQualityPct), engine.PairedLine(n.Reference, "trials")}})
	}
	if len(needle) > len(shown) {
		t.NotesAfter = append(t.NotesAfter, fmt.Sprintf("The table shows the first %s of %s contexts: %s lists every one.",
			report.Int(len(shown)), report.Int(len(needle)), qualityFile))
	}
	return t
}

// buildTaskTable is the task file's run as one row, and the items that
// flipped against the reference's run, bounded; an empty table without a
// task run.
func buildTaskTable(tr *engine.TaskRun) (Table, []string) {
	t := Table{Title: "Tasks", Columns: []Column{{Title: "File"}, {Title: "Asked", Right: true}, {Title: "Right", Right: true},
		{Title: "Accuracy (95 % CI)", Right: true}, {Title: "Against the reference"}, {Title: "Flipped", Right: true}}}
	if tr == nil {
		return t, nil
	}
	pair, flipped := engine.PairedLine(tr.Reference, "items"), "—"
	if tr.Reference != nil {
		flipped = report.Int(len(tr.Flipped))
	}
	t.Rows = []TableRow{{Status: engine.StatusValid, Cells: []string{tr.File, fmt.Sprintf("%s of %s", report.Int(len(tr.Correct)), report.Int(tr.Items)),
		report.Int(engine.Right(tr.Correct)), withInterval(tr.AccuracyPct, tr.CI, formatQualityPct), pair, flipped}}}
	lines := make([]string, 0, min(len(tr.Flipped), maxListed))
	for _, f := range tr.Flipped[:min(len(tr.Flipped), maxListed)] {
		lines = append(lines, fmt.Sprintf("line %d, %s: %q", f.Line, f.Words(), engine.BoundText(f.Prompt, 160)))
	}
	return t, listedIn(lines, len(tr.Flipped), "flipped items", qualityFile)
}
