package report

import (
	"slices"
	"strings"

	"speedmatrix/engine"
)

// writeLoad writes a load test's sections of report.md, in place of the
// matrix's: the plan, the figures per rate, every latency at p50, p90 and
// p99, the trust checks, then the flags and the reasons of the rates that
// aren't Valid.
func writeLoad(b *strings.Builder, r engine.Report) {
	l := r.Load
	b.WriteString("## Load test\n\n")
	if r.Server.Simulated {
		b.WriteString("**" + MDText(r.Server.SimulatedLabel()) + ": every figure below comes from Speed Matrix's built-in simulator, not from a real server.**\n\n")
	}
	b.WriteString("Plan: " + MDText(LoadPlanLine(*l)) + "\n\n")
	if line := TraceLine(l.Trace); line != "" {
		b.WriteString(MDText(line) + ".\n\n")
	}
	if line := ConversationLine(l.Conversations); line != "" {
		b.WriteString(MDText(line) + ".\n\n")
	}
	if line := LoadLimitLine(*l); line != "" {
		b.WriteString(MDText(line) + "\n\n")
	}
	if len(l.Results) == 0 {
		b.WriteString("No rate was measured.\n\n")
		return
	}
	b.WriteString("### Per rate\n\n")
	rows := make([][]string, len(l.Results))
	for i, res := range l.Results {
		rows[i] = LoadRow(res)
	}
	writeTable(b, LoadColumns, rows)
	b.WriteString("### Latency\n\n")
	for i, res := range l.Results {
		rows[i] = LoadLatencyRow(res)
	}
	writeTable(b, LoadLatencyColumns, rows)
	b.WriteString(strings.Join(loadNotes(*l), " ") + "\n\n")
	writeTurns(b, l.Results)
	if l.Imported == nil { // another tool's file has none of our checks
		writeLoadChecks(b, l.Results)
	}
	writeCacheReasoning(b, CacheReasoningRows(r))
	writeLines(b, "", LoadFlagLines(l.Results))
	writeLines(b, "### Errors", LoadErrorLines(l.Results))
}

// loadNotes are the notes under a load test's tables: how its latencies
// count, and the markers that appear.
func loadNotes(l engine.LoadSection) []string {
	rs := l.Results
	notes := []string{LoadLatencyNote(l)}
	for _, r := range rs {
		if LoadMeasured(r) && len(r.Flags) > 0 {
			notes = append(notes, NoteLoadFlagged)
			break
		}
	}
	if slices.ContainsFunc(rs, LoadPartial) {
		notes = append(notes, NoteLoadPartial)
	}
	if anyFewForP99(rs) {
		notes = append(notes, NoteFewSamples)
	}
	return notes
}

// writeLoadChecks writes the load test's Checks table: the server's and
// the GPUs' figures beside ours, and how late the client sent.
func writeLoadChecks(b *strings.Builder, rs []engine.LoadResult) {
	b.WriteString("### Checks\n\nwhat the server's /metrics and the GPUs said during each rate, beside our own count, " +
		"and how late the client sent a request after its scheduled time\n\n")
	rows := make([][]string, len(rs))
	for i, res := range rs {
		rows[i] = LoadCheckRow(res)
	}
	writeTable(b, LoadCheckColumns, rows)
}

// writeLines writes a list under an optional heading; nothing when empty.
func writeLines(b *strings.Builder, heading string, lines []string) {
	if len(lines) == 0 {
		return
	}
	if heading != "" {
		b.WriteString(heading + "\n\n")
	}
	for _, l := range lines {
		b.WriteString("- " + MDText(l) + "\n")
	}
	b.WriteString("\n")
}
