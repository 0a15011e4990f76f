package sweep

import (
	"strings"
	"testing"

	"speedmatrix/engine"
)

// decodeCell is a decode result of total tok/s v (0: status st) with a
// 95 % half-width of ci (a fraction; 0: unknown).
func decodeCell(ctx, conc int, st engine.Status, v, ci float64) engine.Result {
	r := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: conc}, Status: st, TotalTokPerSec: v, TTFTMs: float64(ctx) / 100}
	if ci > 0 {
		r.Precision = &engine.CellPrecision{TotalTokPerSec: engine.Precision{RelCI95: ci, Buckets: 10, Batches: 5, Method: "batch means"}}
	}
	return r
}

func twoByTwo() (Sweep, map[string]engine.Report) {
	plan := engine.Plan{DecodeContexts: []int{1024, 8192}, Concurrency: []int{1, 8}}
	s := New("server.toml", plan, named([]Config{{Name: BaselineName, Baseline: true}, {Name: "a"}, {Name: "b"}}), "test")
	runs := map[string]engine.Report{
		BaselineName: {Server: engine.ServerInfo{KVCacheTokens: 1000}, Results: []engine.Result{
			decodeCell(1024, 1, engine.StatusValid, 100, 0.01), decodeCell(1024, 8, engine.StatusValid, 500, 0.01),
			decodeCell(8192, 1, engine.StatusValid, 90, 0.01), decodeCell(8192, 8, engine.StatusOverCapacity, 0, 0)}},
		"a": {Server: engine.ServerInfo{KVCacheTokens: 2000}, Results: []engine.Result{
			decodeCell(1024, 1, engine.StatusValid, 101, 0.01), decodeCell(1024, 8, engine.StatusValid, 600, 0.01),
			decodeCell(8192, 1, engine.StatusValid, 80, 0.01), decodeCell(8192, 8, engine.StatusValid, 400, 0)}},
	}
	s.Configs[2].Status, s.Configs[2].Reason = StatusFailed, "out of memory"
	return s, runs
}

func TestAnalyze(t *testing.T) {
	s, runs := twoByTwo()
	a := Analyze(s, runs)
	want := map[string]string{
		"1K × 1": "1K × 1: a, no difference (+1.0%, windows ±2.0 %) over baseline",
		"1K × 8": "1K × 8: a, +20.0% over baseline",
		"8K × 1": "8K × 1: baseline, +12.5% over a",
		"8K × 8": "8K × 8: a, Over capacity there over baseline",
	}
	if len(a.Cells) != 4 {
		t.Fatalf("%d cells", len(a.Cells))
	}
	for _, ca := range a.Cells {
		if got := CellLine(ca); got != want[ca.Label] {
			t.Errorf("%s: %q, want %q", ca.Label, got, want[ca.Label])
		}
		if len(ca.Entries) != 3 || ca.Entries[2].Status != "" {
			t.Errorf("%s: entries %+v: the failed configuration has no status", ca.Label, ca.Entries)
		}
	}
	// 8K × 8: a alone is Valid; its figure has no interval, so no runner-up margin.
	if last := a.Cells[3]; last.OverRunnerUp != nil || last.OverBaseline.Status != engine.StatusOverCapacity {
		t.Errorf("8K × 8: %+v", last)
	}
	h := a.Headlines
	if h[0].PeakTokS != 500 || h[0].PeakCell != "1K × 8" || h[0].SingleTokS != 100 || h[0].KVCacheTokens != 1000 {
		t.Errorf("baseline headline %+v", h[0])
	}
	// The largest cell both runs have Valid is 8K × 1.
	if h[0].TTFTCell != "8K × 1" || h[1].TTFTCell != "8K × 1" || h[0].TTFTP50Ms != 81.92 || h[2].Status != StatusFailed || h[2].PeakTokS != 0 {
		t.Errorf("headlines %+v", h)
	}
}

func TestNoiseFloorWhereUnknown(t *testing.T) {
	for _, tt := range []struct {
		tokS float64
		same bool
	}{{101.2, true}, {101.5, false}} {
		m := margin(Entry{Config: "a", Status: engine.StatusValid, TokS: tt.tokS, CIPct: UnknownNoisePct},
			Entry{Config: "b", Status: engine.StatusValid, TokS: 100, CIPct: 0.3})
		if m.NoDifference != tt.same || m.NoisePct != UnknownNoisePct+0.3 {
			t.Errorf("%.1f against 100 ± 0.3 %% and an unknown interval: %+v", tt.tokS, m)
		}
	}
}

func TestLoopedAndQualityAreSaid(t *testing.T) {
	s, runs := twoByTwo()
	s.Configs[1].Settings = []Setting{{"kv_cache_dtype", `"fp8"`}}
	s.Configs = named(s.Configs)
	r := runs["a"]
	r.Results[0].Status = engine.StatusLooped
	runs["a"] = r
	a := Analyze(s, runs)
	if len(a.Looped) != 1 || a.Looped[0] != "a: 1K × 1" {
		t.Errorf("Looped = %v", a.Looped)
	}
	s.Answer = &a
	md := Markdown(s, runs, basis)
	for _, w := range []string{"| a † |", "**Not the same model output:** a (kv_cache_dtype)", "**Looped cells**", "a: 1K × 1", "out of memory"} {
		if !strings.Contains(md, w) {
			t.Errorf("sweep.md lacks %q:\n%s", w, md)
		}
	}
}

func TestSimulatedIsSaidEverywhere(t *testing.T) {
	s, runs := twoByTwo()
	for k, r := range runs {
		r.Server.Simulated, r.Server.SimProfile = true, "tiny"
		runs[k] = r
	}
	s.Simulated = true
	if md := Markdown(s, runs, basis); !strings.Contains(md, "(SIMULATED)") || !strings.Contains(md, "**Simulated:**") {
		t.Errorf("sweep.md does not say simulated:\n%s", md)
	}
	var b strings.Builder
	var buf = new(bytesBuffer)
	if err := WriteCSV(&buf.Buffer, s, runs); err != nil {
		t.Fatal(err)
	}
	b.WriteString(buf.String())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasPrefix(lines[0], "config,phase,") || len(lines) != 1+3*4 {
		t.Fatalf("sweep.csv:\n%s", b.String())
	}
	for _, l := range lines[1:] {
		if !strings.Contains(l, ",true,sim:tiny,") && !strings.HasPrefix(l, "b,") {
			t.Errorf("row not labelled simulated: %s", l)
		}
		if strings.HasPrefix(l, "b,") && (!strings.Contains(l, "Not run") || !strings.Contains(l, "out of memory") || !strings.Contains(l, ",true,")) {
			t.Errorf("failed configuration's row: %s", l)
		}
	}
}

// TestHostileNamesStayText: a --vary-file table's name and a server's
// start-up reason are escaped as report.md escapes a server's strings.
func TestHostileNamesStayText(t *testing.T) {
	s, runs := twoByTwo()
	hostile := "<script>alert(1)</script>|[x](y)\nz"
	s.Configs[1].Name = hostile
	runs[hostile] = runs["a"]
	s.Configs[2].Reason = hostile
	md := Markdown(s, runs, basis)
	for _, raw := range []string{"<script>", "[x](y)", "alert(1)</script>|", "\nz"} {
		if strings.Contains(md, raw) {
			t.Errorf("sweep.md holds %q raw:\n%s", raw, md)
		}
	}
}

// TestMarkdownSaysWhatTheRuleCompares: sweep.md states the "no difference"
// rule as a comparison of two windows' ±, each not a re-run's, where it
// once called them both runs' 95 % intervals.
func TestMarkdownSaysWhatTheRuleCompares(t *testing.T) {
	s, runs := twoByTwo()
	md := Markdown(s, runs, "")
	for _, want := range []string{"A margin within the sum of both windows' ± reads \"no difference\". " + engine.RerunCaveat,
		"no difference (+1.0%, windows ±2.0 %)"} {
		if !strings.Contains(md, want) {
			t.Errorf("sweep.md lacks %q", want)
		}
	}
	if strings.Contains(md, "both runs' 95 % intervals") {
		t.Error("sweep.md still calls the windows' ± both runs' 95 % intervals")
	}
}
