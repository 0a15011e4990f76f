package report

import (
	"strings"

	"speedmatrix/engine"
)

// LoadColumns are the headings of a load test's per-rate table
// (report.md's Per rate, the report sheet's table).
var LoadColumns = []string{
	"Rate", "Status", "Completed", "Failed", "Duration", "Requests/s", "Output tok/s", "Goodput",
	"TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "E2E p50", "E2E p99",
}

// LoadRow is one rate of the per-rate table, one field per LoadColumns. The
// request counts are shown whatever the status; the figures wherever
// requests completed (LoadHasFigures; Dash otherwise), beside the status
// that says whether the rate ran to its end. A flagged Valid rate's status
// ends with FlagMarker.
func LoadRow(r engine.LoadResult) []string {
	row := []string{RateLabel(r), string(r.Status), Int(r.Completed), Int(r.Failed), seconds(r.DurationS)}
	if LoadMeasured(r) && len(r.Flags) > 0 {
		row[1] += " " + FlagMarker
	}
	if !LoadHasFigures(r) {
		for len(row) < len(LoadColumns) {
			row = append(row, Dash)
		}
		return row
	}
	return append(row, reqPerSec(r.RequestThroughputRPS), TokPerSec(r.OutputTokPerSec), reqPerSec(r.GoodputRPS),
		pctMillis(r.TTFTMs, 50), pctMillis(r.TTFTMs, 99), pctMillis(r.ITLMs, 50), pctMillis(r.ITLMs, 99),
		pctMillis(r.E2EMs, 50), pctMillis(r.E2EMs, 99))
}

// LoadLatencyColumns are the headings of report.md's Latency table: every
// latency at p50, p90 and p99.
var LoadLatencyColumns = []string{
	"Rate", "TTFT p50", "TTFT p90", "TTFT p99", "TPOT p50", "TPOT p90", "TPOT p99",
	"ITL p50", "ITL p90", "ITL p99", "E2E p50", "E2E p90", "E2E p99",
}

// LoadLatencyRow is one rate of the Latency table; Dash for a rate without
// figures (LoadHasFigures).
func LoadLatencyRow(r engine.LoadResult) []string {
	row := []string{RateLabel(r)}
	for _, pct := range []engine.Percentiles{r.TTFTMs, r.TPOTMs, r.ITLMs, r.E2EMs} {
		for _, p := range []int{50, 90, 99} {
			if LoadHasFigures(r) {
				row = append(row, pctMillis(pct, p))
			} else {
				row = append(row, Dash)
			}
		}
	}
	return row
}

// LoadCheckColumns are the headings of a load test's Checks table.
var LoadCheckColumns = []string{
	"Rate", "Status", "Our tok/s", "Server tok/s", "Server vs ours", "Server active", "Preemptions", "Drain",
	"GPU throttle", "Client late by", "Most in flight",
}

// LoadCheckRow is one rate of the Checks table: the server's and the GPUs'
// observations beside our output tok/s, shown whatever the status, and how
// far behind its schedule the client fell.
func LoadCheckRow(r engine.LoadResult) []string {
	d := Dash
	row := []string{RateLabel(r), string(r.Status), d, d, d, d, d, d, d, loadMillis(r.BehindMs), Int(r.MaxInFlight)}
	if LoadHasFigures(r) {
		row[2] = TokPerSec(r.OutputTokPerSec)
	}
	if s := r.Server; s != nil {
		if s.NotComparable == "" {
			row[3] = TokPerSec(s.TokPerSec)
		}
		if v, ok := LoadServerVsOurs(r); ok {
			row[4] = Percent(v)
		}
		row[5], row[6], row[7] = fixed1(s.Active), Int(s.Preemptions), seconds(r.DrainS)
	}
	if r.Telemetry != nil && r.Telemetry.Throttle != nil {
		row[8] = r.Telemetry.Throttle.Describe()
	}
	return row
}

// LoadServerVsOurs is how far the server's generated tok/s is from our
// output tok/s over the rate's duration (+0.05: the server counted 5 %
// more), and whether both were counted.
func LoadServerVsOurs(r engine.LoadResult) (float64, bool) {
	s := r.Server
	if s == nil || s.NotComparable != "" || !LoadMeasured(r) || r.OutputTokPerSec <= 0 {
		return 0, false
	}
	return s.TokPerSec/r.OutputTokPerSec - 1, true
}

// LoadFlagLines lists, in the order given, one line per rate that carries
// flags: "16 req/s: preempted 14 times: KV cache pressure; …".
func LoadFlagLines(rs []engine.LoadResult) []string {
	var lines []string
	for _, r := range rs {
		if len(r.Flags) == 0 {
			continue
		}
		msgs := make([]string, len(r.Flags))
		for i, f := range r.Flags {
			msgs[i] = f.Message
			if msgs[i] == "" {
				msgs[i] = string(f.Kind)
			}
		}
		lines = append(lines, RateLabel(r)+": "+strings.Join(msgs, "; "))
	}
	return lines
}

// LoadErrorLines lists the reason of every rate that isn't Valid: "8
// req/s: Failed: …".
func LoadErrorLines(rs []engine.LoadResult) []string {
	var lines []string
	for _, r := range rs {
		if !LoadMeasured(r) {
			line := RateLabel(r) + ": " + string(r.Status)
			if why := StatusReason(r.Status, r.Error); why != "" {
				line += ": " + why
			}
			lines = append(lines, line)
		}
	}
	return lines
}

// StatusReason is the reason given for a status, "" when there is none or
// it only repeats the status (a cancelled rate's "cancelled": "Cancelled ·
// cancelled" said it twice).
func StatusReason(status engine.Status, reason string) string {
	if strings.EqualFold(strings.TrimSpace(reason), string(status)) {
		return ""
	}
	return reason
}
