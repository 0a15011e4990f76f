package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"speedmatrix/engine"
	"speedmatrix/engine/secret"
)

// CSVHeader is the exact header of results.csv: the twelve figures of the
// reference reports' table, then the trust checks and the error, then
// what the run measured, on every row, so that the file says it alone:
// simulated (true for the built-in simulator) and target (Target); then
// the p90 and p99 of TTFT and time between tokens with the number of
// samples behind each (a p99 of fewer than engine.MinP99Samples is one of
// the slowest few), and the SLO (report.SLOText) with each judged cell's
// verdict; then the 95 % interval of total tok/s in percent of it
// (engine.Precision), empty where it is unknown; then how many cold
// requests a Valid prefill cell is the median of and their spread in
// percent (engine.Result.PrefillRepeats, PrefillSpreadPct), empty on
// decode rows, for one request's spread and in reports from before
// repeats; then the server's prefix-cache hit rate over the cell
// (engine.PrefixCache, 0–1); then, for a Valid decode cell whose replies
// streamed reasoning, its output split into reasoning and answer tokens
// and the median time to the first answer token (engine.Reasoning); then
// a Valid cell's energy (engine.CellEnergy: tokens per joule, output
// tokens for decode and prompt tokens for prefill; J per output token
// above the GPUs' idle power; a prefill cell's J per 1K prompt tokens)
// and a decode cell's price per million output tokens under the user's
// prices (engine.CostOf), each empty where unknown.
// Columns are only ever added at the end.
var CSVHeader = []string{
	"phase", "context_tokens", "concurrency", "status", "total_tok_s", "per_request_tok_s", "ttft_ms", "itl_ms",
	"avg_active", "completed", "output_tokens", "measured_s",
	"server_tok_s", "server_active", "preemptions", "gpu_throttle", "error",
	"simulated", "target",
	"ttft_p90_ms", "ttft_p99_ms", "itl_p90_ms", "itl_p99_ms", "ttft_samples", "itl_samples",
	"slo", "slo_pass",
	"total_tok_s_ci_pct",
	"prefill_repeats", "prefill_spread_pct",
	"prefix_cache_hit_rate",
	"reasoning_tokens", "answer_tokens", "answer_ttft_ms",
	"tokens_per_joule", "joules_per_token_above_idle", "prefill_joules_per_1k", "usd_per_mtok",
}

// target names what a run measured as --target names it: sim:PROFILE for
// the built-in simulator, else its endpoint with any password hidden (""
// when the report does not say).
func target(r engine.Report) string {
	if r.Server.Simulated {
		return "sim:" + r.Server.SimProfile
	}
	return secret.URL(r.Run.Endpoint)
}

// WriteCSV writes one row per cell. Figures that don't apply to the phase,
// or that a cell whose status isn't Valid doesn't have, are empty: a Failed
// cell's partial figures stay in report.json.
//
// The check columns (server_tok_s, server_active, preemptions,
// gpu_throttle) are the server's and the GPUs' own observations, not ours,
// so they are written wherever the engine recorded them, whatever the
// status: beside a Failed cell they help tell why it failed. server_tok_s
// is empty when the server's counters can't be compared with ours; error
// holds the reason of every cell that isn't Valid (Failed, Cancelled, Not
// run, …).
func WriteCSV(w io.Writer, r engine.Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	simulated, target := strconv.FormatBool(r.Server.Simulated), target(r)
	for _, res := range r.Results {
		row := csvRow(res)
		row[17], row[18] = simulated, target
		csvSLO(row, r.Plan.SLO, res)
		csvEnergy(row[34:38], res, r.Run.Prices)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvRow(r engine.Result) []string {
	row := make([]string, len(CSVHeader))
	row[0], row[1], row[2], row[3] = string(r.Phase), strconv.Itoa(r.ContextTokens), strconv.Itoa(r.Concurrency), string(r.Status)
	csvChecks(row, r)
	if !r.Measured() {
		row[16] = r.Error
		return row
	}
	row[4] = num(r.TotalTokPerSec, 2)
	row[6] = num(r.TTFTMs, 2)
	row[9] = strconv.Itoa(r.Completed)
	if r.Phase == engine.PhaseDecode {
		row[5] = num(r.PerRequestTokPerSec, 2)
		row[7] = num(r.ITLMs, 3)
		row[8] = num(r.AvgActive, 2)
		row[10] = strconv.Itoa(r.OutputTokens)
		row[11] = num(r.MeasuredS, 3)
		csvPercentiles(row, r)
		reasoningColumns(row[31:34], r.Reasoning)
		if p := r.Precision; p != nil && p.TotalTokPerSec.Known() {
			row[27] = num(p.TotalTokPerSec.RelCI95*100, 2)
		}
	}
	if r.Phase == engine.PhasePrefill && r.PrefillRepeats > 0 {
		row[28] = strconv.Itoa(r.PrefillRepeats)
		if r.PrefillRepeats > 1 {
			row[29] = num(r.PrefillSpreadPct, 2)
		}
	}
	return row
}

// csvPercentiles fills a Valid decode cell's p90 and p99 columns and their
// sample counts; empty when the report did not keep them (older files,
// imports without them).
func csvPercentiles(row []string, r engine.Result) {
	if p := r.TTFTPct; p.P99 > 0 {
		row[19], row[20] = num(p.P90, 2), num(p.P99, 2)
	}
	if p := r.ITLPct; p.P99 > 0 {
		row[21], row[22] = num(p.P90, 3), num(p.P99, 3)
	}
	if n := r.TTFTPct.N; n > 0 {
		row[23] = strconv.Itoa(n)
	}
	if n := r.ITLPct.N; n > 0 {
		row[24] = strconv.Itoa(n)
	}
}

// csvSLO fills the SLO columns: the SLO on every row when it is on, and
// the verdict of each cell it judges (empty for the others).
func csvSLO(row []string, slo engine.SLO, r engine.Result) {
	row[25] = SLOText(slo)
	if c, ok := slo.Judge(r); ok {
		row[26] = strconv.FormatBool(c.Pass)
	}
}

// csvEnergy fills a Valid cell's energy and cost columns.
func csvEnergy(cols []string, r engine.Result, prices *engine.Prices) {
	if e := r.Energy; e != nil && r.Measured() {
		cols[0] = num(e.TokensPerJoule, 4)
		if e.JoulesPerTokenAboveIdle > 0 && r.Phase == engine.PhaseDecode {
			cols[1] = num(e.JoulesPerTokenAboveIdle, 5)
		}
		if e.PrefillJoulesPer1K > 0 {
			cols[2] = num(e.PrefillJoulesPer1K, 3)
		}
	}
	if c, ok := engine.CostOf(r, prices); ok {
		cols[3] = num(c.TotalUSD, 4)
	}
}

// csvChecks fills the check columns of row from what r recorded.
func csvChecks(row []string, r engine.Result) {
	if s := r.Server; s != nil {
		if s.NotComparable == "" {
			row[12] = num(s.TokPerSec, 2)
		}
		row[13] = num(s.Active, 2)
		row[14] = strconv.Itoa(s.Preemptions)
	}
	if t := throttleOf(r); t != nil {
		row[15] = t.Verdict
	}
	row[30] = prefixCacheColumn(r.PrefixCache)
}

// reasoningColumns fills reasoning_tokens, answer_tokens and
// answer_ttft_ms (results.csv and load.csv) where the replies streamed
// reasoning; they stay empty otherwise.
func reasoningColumns(cols []string, r engine.Reasoning) {
	if !r.Reasoned() {
		return
	}
	cols[0], cols[1], cols[2] = strconv.Itoa(r.ReasoningTokens), strconv.Itoa(r.AnswerTokens), num(r.AnswerTTFTMs, 2)
}

// prefixCacheColumn is the prefix_cache_hit_rate column of results.csv and
// load.csv: the server's hit rate (0–1) over the cell or rate, the
// server's own observation and so written whatever the status; empty
// where its /metrics had no prefix-cache figures.
func prefixCacheColumn(p *engine.PrefixCache) string {
	if !p.Measured() {
		return ""
	}
	return num(p.ServerHitRate, 4)
}

func num(v float64, decimals int) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
