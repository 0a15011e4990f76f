package report

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/engine"
)

// CheckColumns are the headings of the Checks table (report.md and the
// app's Checks tab); the last one is shown only when some cell has
// speculative-decoding counters (see CheckHeader).
var CheckColumns = []string{
	"Context", "Requests at once", "Status", "Our tok/s", "Server tok/s", "Server vs ours",
	"Server active", "Preemptions", "Drain", "GPU throttle", "Spec decode",
}

// hasChecks reports whether a cell carries what the Checks table shows:
// the server's /metrics cross-check or a GPU throttle verdict.
func hasChecks(r engine.Result) bool { return r.Server != nil || throttleOf(r) != nil }

// CheckResults are the rows of the Checks table: the decode cells of rep
// that carry check data, in the run's order. It is empty for reports of
// servers without /metrics on machines without NVML.
func CheckResults(rep engine.Report) []engine.Result {
	var out []engine.Result
	for _, res := range ofPhase(rep.Results, engine.PhaseDecode) {
		if hasChecks(res) {
			out = append(out, res)
		}
	}
	return out
}

// CheckHeader is the Checks table's headings for rows: CheckColumns, less
// the Spec decode column when no row has speculative-decoding counters.
// A row is CheckRow cut to the header's length.
func CheckHeader(rows []engine.Result) []string {
	spec := slices.ContainsFunc(rows, func(r engine.Result) bool { return r.Server != nil && r.Server.SpecDecode != nil })
	if spec {
		return CheckColumns
	}
	return CheckColumns[:len(CheckColumns)-1]
}

// writeChecks writes the Checks section: the run's throttle verdict, then
// one row per decode cell with the server's figures beside ours. It writes
// nothing when no cell carries check data (reports of servers without
// /metrics, machines without NVML).
func writeChecks(b *strings.Builder, r engine.Report) {
	pcie := PCIeWarnings(r.Results)
	if !slices.ContainsFunc(r.Results, hasChecks) && len(pcie) == 0 {
		return
	}
	b.WriteString("## Checks\n\nwhat the server's /metrics and the GPUs said during each decode cell, beside our own count\n\n")
	if line, _ := ThrottleSummary(r.Results); line != "" {
		b.WriteString(MDText(line) + "\n\n")
	}
	for _, line := range pcie {
		b.WriteString(MDText(line) + "\n\n")
	}
	results := CheckResults(r)
	if len(results) == 0 {
		return
	}
	head := CheckHeader(results)
	rows := make([][]string, len(results))
	for i, res := range results {
		rows[i] = CheckRow(res)[:len(head)]
	}
	writeTable(b, head, rows)
}

// CheckRow is one decode cell of the Checks table, one field per
// CheckColumns. Our tok/s is the headline figure, so a cell that isn't
// Valid shows Dash there; the server's and the GPUs' own observations are
// shown whatever the status.
func CheckRow(r engine.Result) []string {
	d := Dash
	row := []string{r.ContextName(), fmt.Sprint(r.Concurrency), Mark(string(r.Status), r), d, d, d, d, d, d, d, d}
	if r.Measured() {
		row[3] = TokPerSec(r.TotalTokPerSec)
	}
	if s := r.Server; s != nil {
		if s.NotComparable == "" {
			row[4] = TokPerSec(s.TokPerSec)
		}
		if v, ok := ServerVsOurs(r); ok {
			row[5] = Percent(v)
		}
		row[6], row[7], row[8] = fixed1(s.Active), Int(s.Preemptions), seconds(r.DrainS)
		if sd := s.SpecDecode; sd != nil {
			row[10] = fmt.Sprintf("%s %% accepted · %.2f tokens per step", fixed1(100*sd.AcceptanceRate), sd.MeanAcceptedLength)
		}
	}
	if t := throttleOf(r); t != nil {
		row[9] = t.Describe()
	}
	return row
}

// ServerVsOurs is how far the server's tok/s is from ours (+0.05: the
// server counted 5 % more), and whether both were counted: the cell is
// Valid and the server's counters are comparable.
func ServerVsOurs(r engine.Result) (float64, bool) {
	s := r.Server
	if s == nil || s.NotComparable != "" || !r.Measured() || r.TotalTokPerSec <= 0 {
		return 0, false
	}
	return s.TokPerSec/r.TotalTokPerSec - 1, true
}

// PrefixCacheText is what the server's prefix cache found of a cell's or
// a rate's prompts, in words: "Prefix cache: 98.4 % of 1,024 prompt tokens
// found there (the server's counters, from before the cell to after its
// requests drained)", and for a trace's replay what its hash ids imply;
// "" without figures.
func PrefixCacheText(p *engine.PrefixCache) string {
	var s string
	switch {
	case p == nil:
		return ""
	case !p.Measured():
		s = "Prefix cache: no figures from the server for it"
	case p.QueriedTokens > 0:
		s = fmt.Sprintf("Prefix cache: %s %% of %s prompt tokens found there (the server's counters, from before the cell to after its requests drained)",
			fixed1(100*p.ServerHitRate), Int(int(p.QueriedTokens+0.5)))
	default:
		s = fmt.Sprintf("Prefix cache: %s %% hit rate (%s)", fixed1(100*p.ServerHitRate), p.Source)
	}
	if p.TraceHitRate != nil {
		s += fmt.Sprintf("; the trace's hash ids imply %s %% with an unbounded cache", fixed1(100**p.TraceHitRate))
	}
	return s
}
