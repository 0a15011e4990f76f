package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestCSVReasoningColumns: a Valid decode cell whose replies reasoned
// fills reasoning_tokens, answer_tokens and answer_ttft_ms; one that
// didn't, or a prefill, leaves them empty.
func TestCSVReasoningColumns(t *testing.T) {
	decode := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 4}, Status: engine.StatusValid,
		TotalTokPerSec: 400, OutputTokens: 6881, Reasoning: engine.Reasoning{ReasoningTokens: 3468, AnswerTokens: 3413, AnswerTTFTMs: 14.6}}
	plain := decode
	plain.Reasoning = engine.Reasoning{}
	for _, tc := range []struct {
		name string
		r    engine.Result
		want []string
	}{
		{"a reasoning server", decode, []string{"3468", "3413", "14.60"}},
		{"no reasoning", plain, []string{"", "", ""}},
	} {
		row := csvRowOf(t, tc.r)
		i := slices.Index(CSVHeader, "reasoning_tokens")
		if got := row[i : i+3]; i < 0 || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// csvRowOf is r's row of results.csv, as WriteCSV writes it.
func csvRowOf(t *testing.T, r engine.Result) []string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, engine.Report{Results: []engine.Result{r}}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("results.csv: %d rows, %v", len(rows), err)
	}
	return rows[1]
}

// TestMarkdownPrefixCacheAndReasoning: report.md lists, for a matrix's
// cells and a load test's rates, what the prefix cache found and what the
// replies spent reasoning; a report with neither has no such table.
func TestMarkdownPrefixCacheAndReasoning(t *testing.T) {
	cell := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 2048, Concurrency: 4}, ContextLabel: "2K",
		Status: engine.StatusValid, TotalTokPerSec: 400, TTFTMs: 1.4,
		PrefixCache: &engine.PrefixCache{ServerHitRate: 0.9375, QueriedTokens: 65536, HitTokens: 61440},
		Reasoning:   engine.Reasoning{ReasoningTokens: 3468, AnswerTokens: 3413, AnswerTTFTMs: 14.6}}
	md := Markdown(engine.Report{Results: []engine.Result{cell}})
	for _, want := range []string{"### Prefix cache and reasoning", "| 93.8 % | — | 65,536 | 3,468 | 3,413 | 50.4 % |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	rate := engine.LoadResult{RateRPS: 4, Arrivals: engine.ArrivalsPoisson, Status: engine.StatusValid, Requests: 10, Completed: 10,
		PrefixCache: &engine.PrefixCache{ServerHitRate: 0, QueriedTokens: 10240}}
	md = Markdown(engine.Report{Load: &engine.LoadSection{Results: []engine.LoadResult{rate}}})
	if !strings.Contains(md, "| 4 req/s | 0.0 % | — | 10,240 | — | — | — | — | — |") {
		t.Errorf("a load test's report.md lacks its rate's prefix cache:\n%s", md)
	}
	cell.PrefixCache, cell.Reasoning = nil, engine.Reasoning{}
	if md := Markdown(engine.Report{Results: []engine.Result{cell}}); strings.Contains(md, "Prefix cache and reasoning") {
		t.Errorf("a report with neither has the table:\n%s", md)
	}
}
