package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// sloReport is seedReport judged against TTFT p99 ≤ 2 s and ITL p99 ≤ 30 ms:
// 8K meets it up to 8 requests (128 misses on ITL), 64K up to 8 (128
// misses on TTFT), 123K at its one valid cell.
func sloReport() engine.Report {
	r := seedReport()
	r.Plan.SLO = engine.SLO{TTFT: 2 * time.Second, ITL: 30 * time.Millisecond}
	return r
}

// TestGoldenSLO: report.md's SLO section and results.csv's SLO columns,
// byte for byte, and report.json keeps the SLO and the sample counts.
func TestGoldenSLO(t *testing.T) {
	r := sloReport()
	golden(t, "slo.report.md", []byte(Markdown(r)))
	var csv bytes.Buffer
	if err := WriteCSV(&csv, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "slo.results.csv", csv.Bytes())
	js, err := JSON(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"slo": {`, `"ttft_ns": 2000000000`, `"itl_ns": 30000000`, `"n": 5031`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("report.json lacks %s", want)
		}
	}
}

// TestSLOLines: one line per decode context, in the words of the issue,
// for each way a context can fare.
func TestSLOLines(t *testing.T) {
	for _, c := range []struct {
		name string
		slo  engine.SLO
		want []string
	}{
		{"off", engine.SLO{}, nil},
		{"TTFT and ITL at p99", engine.SLO{TTFT: 2 * time.Second, ITL: 30 * time.Millisecond}, []string{
			"8K: up to 8 simultaneous requests meet TTFT p99 ≤ 2 s and ITL p99 ≤ 30 ms (1,238 tok/s)",
			"64K: up to 8 simultaneous requests meet TTFT p99 ≤ 2 s and ITL p99 ≤ 30 ms (840 tok/s)",
			"123.75K: up to 1 simultaneous request meets TTFT p99 ≤ 2 s and ITL p99 ≤ 30 ms (87 tok/s)",
		}},
		{"every level meets it", engine.SLO{TTFT: time.Minute, Percentile: 50}, []string{
			"8K: up to 128 simultaneous requests meet TTFT p50 ≤ 60 s (9,006 tok/s), the most measured",
			"64K: up to 128 simultaneous requests meet TTFT p50 ≤ 60 s (4,139 tok/s), the most measured",
			"123.75K: up to 1 simultaneous request meets TTFT p50 ≤ 60 s (87 tok/s)",
		}},
		{"none meets it", engine.SLO{ITL: 500 * time.Microsecond, Percentile: 90}, []string{
			"8K: even 1 request at a time misses ITL p90 ≤ 0.5 ms",
			"64K: even 8 simultaneous requests, the fewest measured, miss ITL p90 ≤ 0.5 ms",
			"123.75K: even 1 request at a time misses ITL p90 ≤ 0.5 ms",
		}},
	} {
		r := seedReport()
		r.Plan.SLO = c.slo
		if got := SLOLines(r); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	r := seedReport()
	r.Plan.SLO = engine.SLO{TTFT: time.Second}
	r.Results = slices.DeleteFunc(r.Results, func(res engine.Result) bool { return res.ContextTokens == 126720 && res.Status == engine.StatusValid })
	if got := SLOLines(r); len(got) != 3 || got[2] != "123.75K: no valid cell to judge against TTFT p99 ≤ 1 s" {
		t.Errorf("a context without a valid cell: %q", got)
	}
}

// TestPercentileCells: All measurements shows p90 and p99 of a Valid
// decode cell, marks a p99 of fewer than 100 samples, and shows none for
// prefill or percentiles a report did not keep.
func TestPercentileCells(t *testing.T) {
	dec := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 4}, Status: engine.StatusValid,
		TTFTPct: engine.Percentiles{P50: 100, P90: 150.4, P99: 1720, N: 12}, ITLPct: engine.Percentiles{P50: 5, P90: 6.25, P99: 9.04, N: 4000}}
	unknownN := dec
	unknownN.TTFTPct.N, unknownN.ITLPct.N = 0, 0
	noPct := dec
	noPct.TTFTPct, noPct.ITLPct = engine.Percentiles{}, engine.Percentiles{}
	prefill := dec
	prefill.Phase = engine.PhasePrefill
	failed := dec
	failed.Status = engine.StatusFailed
	for _, c := range []struct {
		name string
		r    engine.Result
		want []string
	}{
		{"12 TTFT samples", dec, []string{"150 ms", "1,720 ms " + FewSamplesMarker, "6.3 ms", "9.0 ms"}},
		{"counts unknown", unknownN, []string{"150 ms", "1,720 ms", "6.3 ms", "9.0 ms"}},
		{"not kept", noPct, []string{Dash, Dash, Dash, Dash}},
		{"prefill", prefill, []string{Dash, Dash, Dash, Dash}},
		{"failed", failed, []string{Dash, Dash, Dash, Dash}},
	} {
		if got := PercentileCells(c.r); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	md := Markdown(engine.Report{Results: []engine.Result{dec}})
	if !strings.Contains(md, "| TTFT p90 | TTFT p99 | Time between tokens p90 | Time between tokens p99 |") || !strings.Contains(md, NoteFewSamples) {
		t.Errorf("All measurements lacks the percentile columns or the note on few samples:\n%s", md)
	}
}

// TestHostileSLOAndPercentiles: a report.json whose SLO and percentiles
// are absurd but within the bounds loads, and report.md and results.csv
// still come out whole.
func TestHostileSLOAndPercentiles(t *testing.T) {
	r := seedReport()
	r.Plan.SLO = engine.SLO{TTFT: time.Hour, ITL: time.Nanosecond, Percentile: 90}
	r.Results[3].TTFTPct = engine.Percentiles{P50: 1e300, P90: 1e308, P99: 0, N: 1<<63 - 1}
	r.Results[4].ITLPct = engine.Percentiles{P50: 3, P90: 1, P99: 2, N: 1}
	js, err := JSON(r)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Decode(js, "report.json")
	if err != nil {
		t.Fatalf("an SLO within the bounds: %v", err)
	}
	md := Markdown(got)
	if !strings.Contains(md, "## SLO") || !strings.Contains(md, "8K: even 1 request at a time misses TTFT p90 ≤ 3,600 s and ITL p90 ≤ 0.000001 ms") {
		t.Errorf("report.md's SLO section:\n%s", md)
	}
	if err := WriteCSV(&bytes.Buffer{}, got); err != nil {
		t.Error(err)
	}
}
