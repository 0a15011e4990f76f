package report

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/engine"
)

// checkColumns are the headings of report.md's Checks table; the last one
// is written only when some cell has speculative-decoding counters.
var checkColumns = []string{
	"Context", "Requests at once", "Status", "Our tok/s", "Server tok/s", "Server vs ours",
	"Server active", "Preemptions", "Drain", "GPU throttle", "Spec decode",
}

// hasChecks reports whether a cell carries what the Checks table shows:
// the server's /metrics cross-check or a GPU throttle verdict.
func hasChecks(r engine.Result) bool { return r.Server != nil || throttleOf(r) != nil }

// writeChecks writes the Checks section: the run's throttle verdict, then
// one row per decode cell with the server's figures beside ours. It writes
// nothing when no cell carries check data (reports of servers without
// /metrics, machines without NVML).
func writeChecks(b *strings.Builder, r engine.Report) {
	if !slices.ContainsFunc(r.Results, hasChecks) {
		return
	}
	b.WriteString("## Checks\n\nwhat the server's /metrics and the GPUs said during each decode cell, beside our own count\n\n")
	if line, _ := ThrottleSummary(r.Results); line != "" {
		b.WriteString(line + "\n\n")
	}
	var rows [][]string
	spec := false
	for _, res := range OfPhase(r.Results, engine.PhaseDecode) {
		if hasChecks(res) {
			rows = append(rows, checkRow(res))
			spec = spec || (res.Server != nil && res.Server.SpecDecode != nil)
		}
	}
	if len(rows) == 0 {
		return
	}
	head := checkColumns
	if !spec {
		head = head[:len(head)-1]
		for i := range rows {
			rows[i] = rows[i][:len(head)]
		}
	}
	writeTable(b, head, rows)
}

// checkRow is one decode cell of the Checks table. Our tok/s is the
// headline figure, so a cell that isn't Valid shows Dash there; the
// server's and the GPUs' own observations are shown whatever the status.
func checkRow(r engine.Result) []string {
	d := Dash
	row := []string{label(r), fmt.Sprint(r.Concurrency), Mark(string(r.Status), r), d, d, d, d, d, d, d, d}
	if r.Measured() {
		row[3] = TokPerSec(r.TotalTokPerSec)
	}
	if s := r.Server; s != nil {
		if s.NotComparable == "" {
			row[4] = TokPerSec(s.TokPerSec)
			if r.Measured() && r.TotalTokPerSec > 0 {
				row[5] = Percent(s.TokPerSec/r.TotalTokPerSec - 1)
			}
		}
		row[6], row[7], row[8] = Fixed1(s.Active), Int(s.Preemptions), Seconds(r.DrainS)
		if sd := s.SpecDecode; sd != nil {
			row[10] = fmt.Sprintf("%s %% accepted · %.2f tokens per step", Fixed1(100*sd.AcceptanceRate), sd.MeanAcceptedLength)
		}
	}
	if t := throttleOf(r); t != nil {
		row[9] = t.Describe()
	}
	return row
}
