package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// TestSLOFlagsBadInput: each bad SLO setting is one line in the words of
// its flag, on run and on report alike.
func TestSLOFlagsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"p95", []string{"--slo-ttft", "2s", "--slo-percentile", "95"}, "--slo-percentile: 95 is not a percentile reports keep: use 50, 90 or 99"},
		{"negative TTFT", []string{"--slo-ttft", "-2s"}, "--slo-ttft: -2s is negative: use a positive time, e.g. 2s, or 0 for no bound"},
		{"ITL of hours", []string{"--slo-itl", "2h"}, "--slo-itl: 2h0m0s is longer than any request waits for a token: use at most 1 hour"},
		{"two bad settings", []string{"--slo-ttft", "-1s", "--slo-percentile", "0"}, "--slo-ttft: -1s is negative"},
		{"percentile alone", []string{"--slo-percentile", "90"}, "--slo-percentile goes with --slo-ttft or --slo-itl"},
		{"no unit", []string{"--slo-itl", "50"}, "slo-itl"},
		{"a negative speed per user", []string{"--slo-user-tok-s", "-5"}, "--slo-user-tok-s: -5 is not a speed each request can get: give tok/s between 0 (no bound) and 1,000,000"},
		{"an absurd speed per user", []string{"--slo-user-tok-s", "1e300"}, "--slo-user-tok-s: 1e+300 is not a speed each request can get"},
		{"NaN per user", []string{"--slo-user-tok-s", "NaN"}, "--slo-user-tok-s: NaN is not a speed each request can get"},
	} {
		t.Run(c.name, func(t *testing.T) { wantOneLine(t, dir, c.args, c.want) })
	}
}

// wantOneLine checks that run (against the simulator, into dir) and
// report (of the seed fixture) both refuse args in one line saying want.
func wantOneLine(t *testing.T, dir string, args []string, want string) {
	t.Helper()
	out, err := runCLI(t, t.Context(), append([]string{"--sim", "tiny", "--out", dir}, args...)...)
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("run: error %v, want one line containing %q\n%s", err, want, out)
	}
	_, _, err = runReport(t, append([]string{"--in", seedFixture, "--out", t.TempDir()}, args...)...)
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("report: error %v, want one line containing %q", err, want)
	}
}

// TestRunSLO: a run with an SLO saves it in report.json's plan, judges its
// cells in report.md and results.csv, and prints the line per context.
func TestRunSLO(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	dir := filepath.Join(t.TempDir(), "out")
	args := append([]string{"--sim", "tiny", "--out", dir, "--slo-ttft", "1m", "--slo-itl", "1s", "--slo-percentile", "90"}, smallMatrix...)
	out, err := runCLI(t, t.Context(), args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Bounds no simulated cell misses, whatever the machine's load.
	if !strings.Contains(out, "SLO, simulated (profile tiny): 1K: up to 2 simultaneous requests meet TTFT p90 ≤ 60 s and ITL p90 ≤ 1 s (") {
		t.Errorf("output lacks the SLO line:\n%s", out)
	}
	rep, err := report.Load(dir)
	want := engine.SLO{TTFT: time.Minute, ITL: time.Second, Percentile: 90}
	if err != nil || rep.Plan.SLO != want {
		t.Fatalf("report.json's SLO %+v (%v), want %+v", rep.Plan.SLO, err, want)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	csv, _ := os.ReadFile(filepath.Join(dir, report.CSVFile))
	if !strings.Contains(string(md), "## SLO") || strings.Count(string(csv), ",TTFT p90 ≤ 60 s and ITL p90 ≤ 1 s,true,") != 2 {
		t.Errorf("report.md or results.csv do not judge the cells:\n%s\n%s", md, csv)
	}
	for _, r := range rep.Results {
		if r.Phase == engine.PhaseDecode && (r.TTFTPct.N == 0 || r.ITLPct.N == 0) {
			t.Errorf("%s: sample counts TTFT %d, ITL %d; want them recorded", report.CellName(r), r.TTFTPct.N, r.ITLPct.N)
		}
	}
}

// TestReportRejudges: report --in with SLO flags judges a saved run again:
// report.md, results.csv and the SLO picture say the new SLO, and
// report.json is not rewritten.
func TestReportRejudges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, _, err := runReport(t, "--in", seedFixture, "--out", dir, "--slo-ttft", "1s", "--slo-itl", "20ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"judged against TTFT p99 ≤ 1 s and ITL p99 ≤ 20 ms; report.json keeps the run's own SLO",
		"SLO 8K: up to ", filepath.Join(dir, "decode-slo") + " {.png,.svg}", filepath.Join(dir, report.MarkdownFile)} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if !strings.Contains(string(md), "## SLO\n\nTTFT p99 ≤ 1 s and ITL p99 ≤ 20 ms") {
		t.Errorf("report.md lacks the SLO section:\n%s", md)
	}
	for _, name := range []string{"decode-slo.png", "decode-slo.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, report.JSONFile)); err == nil {
		t.Error("judging again wrote report.json")
	}
}
