package report

import (
	"fmt"
	"strings"

	"speedmatrix/engine"
)

// CacheReasoningColumns are the headings of report.md's "Prefix cache and
// reasoning" table, one row per cell or rate that has either.
var CacheReasoningColumns = []string{
	"Cell or rate", "Prefix cache hit rate", "Trace implies", "Prompt tokens looked up", "Reasoning tokens", "Answer tokens", "Reasoning share",
	"TTFT p50", "First answer token p50",
}

// cacheReasoningRow is one row of that table: name, then what the server's
// prefix cache found and what the replies spent reasoning; Dash where the
// server or the replies gave nothing.
func cacheReasoningRow(name string, pc *engine.PrefixCache, re engine.Reasoning, ttft float64) []string {
	d := Dash
	row := []string{name, d, d, d, d, d, d, d, d}
	if pc.Measured() {
		row[1] = fixed1(100*pc.ServerHitRate) + " %"
		if pc.QueriedTokens > 0 {
			row[3] = Int(int(pc.QueriedTokens + 0.5))
		}
	}
	if pc != nil && pc.TraceHitRate != nil {
		row[2] = fixed1(100**pc.TraceHitRate) + " %"
	}
	if re.Reasoned() {
		row[4], row[5] = Int(re.ReasoningTokens), Int(re.AnswerTokens)
		row[6] = fixed1(100*re.ReasoningShare()) + " %"
		row[7], row[8] = loadMillis(ttft), loadMillis(re.AnswerTTFTMs)
	}
	return row
}

// writeCacheReasoning writes report.md's "Prefix cache and reasoning"
// table for rows (cacheReasoningRow); nothing when there are none.
func writeCacheReasoning(b *strings.Builder, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("### Prefix cache and reasoning\n\nwhat the server's prefix cache found of the prompts (its own counters, " +
		"over the cell or rate), and, where the replies streamed their thought, the tokens spent reasoning before the answer " +
		"and the time to the answer's first token\n\n")
	writeTable(b, CacheReasoningColumns, rows)
}

// CacheReasoningRows are the rows of the "Prefix cache and reasoning"
// table for r: its rates for a load test, its cells otherwise; none when
// no cell or rate has either figure.
func CacheReasoningRows(r engine.Report) [][]string {
	if r.Load != nil {
		return rateCacheReasoning(r.Load.Results)
	}
	return cellCacheReasoning(r.Results)
}

// cellCacheReasoning are the table's rows for a matrix's cells.
func cellCacheReasoning(results []engine.Result) [][]string {
	var rows [][]string
	for _, r := range results {
		if r.PrefixCache != nil || r.Reasoned() {
			rows = append(rows, cacheReasoningRow(CellName(r), r.PrefixCache, r.Reasoning, r.TTFTMs))
		}
	}
	return rows
}

// rateCacheReasoning are the table's rows for a load test's rates.
func rateCacheReasoning(results []engine.LoadResult) [][]string {
	var rows [][]string
	for _, r := range results {
		if r.PrefixCache != nil || r.Reasoned() {
			rows = append(rows, cacheReasoningRow(RateLabel(r), r.PrefixCache, r.Reasoning, r.TTFTMs.P50))
		}
	}
	return rows
}

// ReasoningText is what a cell's or a rate's replies spent reasoning, in
// words, for the cell details: "Reasoning: 50.4 % of the output (3,468
// reasoning, 3,413 answer tokens); first answer token p50 14.6 ms, TTFT
// 1.4 ms"; "" when the replies streamed no reasoning.
func ReasoningText(re engine.Reasoning, ttft float64) string {
	if !re.Reasoned() {
		return ""
	}
	return fmt.Sprintf("Reasoning: %s %% of the output (%s reasoning, %s answer tokens); first answer token p50 %s, TTFT %s",
		fixed1(100*re.ReasoningShare()), Int(re.ReasoningTokens), Int(re.AnswerTokens), loadMillis(re.AnswerTTFTMs), loadMillis(ttft))
}
