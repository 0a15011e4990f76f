package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// counting returns 1, 2, … n, each times step.
func counting(n, step int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = (i + 1) * step
	}
	return v
}

// writeJSON saves v as a file in a fresh folder and returns its path.
func writeJSON(t *testing.T, name string, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wantImplausible checks that err is an ImplausibleError naming file and
// saying want.
func wantImplausible(t *testing.T, what string, err error, file, want string) {
	t.Helper()
	var ie *implausibleError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: err = %v, want an ImplausibleError naming %s and saying %q", what, err, file, want)
	}
}

// TestReadRejectsAPlanNoRunHas: a 700 KB report.json whose plan claims
// 31,623 × 31,623 cells (a billion) is refused before anything is laid out.
func TestReadRejectsAPlanNoRunHas(t *testing.T) {
	r := seedReport()
	r.Plan.DecodeContexts, r.Plan.Concurrency = counting(31623, 1), counting(31623, 1)
	path := writeJSON(t, "report.json", r)
	_, _, err := Read(path)
	wantImplausible(t, "31,623 × 31,623", err, path, "its plan: 31623 decode contexts, more than the 256 a plan may have")
	if _, err := Load(path); err == nil {
		t.Error("Load took the file Read refuses")
	}
}

// TestImportRejectsLevelsNoRunHas: an llm-inference-bench file with
// 100,000 × 100,000 levels is refused without building its matrix.
func TestImportRejectsLevelsNoRunHas(t *testing.T) {
	data, err := os.ReadFile(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	meta := doc["metadata"].(map[string]any)
	meta["context_lengths"], meta["concurrency_levels"] = counting(100000, 1), counting(100000, 1)
	path := writeJSON(t, "benchmark_results.json", doc)
	_, _, err = Read(path)
	wantImplausible(t, "100,000 × 100,000", err, path, "100000 decode contexts")
}

// TestLoadedRunsAreChecked: every figure a run never writes is refused,
// with a line that names the cell and the figure.
func TestLoadedRunsAreChecked(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(r *engine.Report)
		want   string
	}{
		{"negative context", func(r *engine.Report) { r.Results[3].ContextTokens = -8192 }, "a cell has context -8192 tokens, outside 0–10485760"},
		{"negative concurrency", func(r *engine.Report) { r.Results[3].Concurrency = -1 }, "Sustained decode 8K × -1 has concurrency -1, outside 1–4096"},
		{"negative tok/s", func(r *engine.Report) { r.Results[4].TotalTokPerSec = -1237.5 }, "Sustained decode 8K × 8 has a negative total tok/s (-1237.5)"},
		{"negative TTFT", func(r *engine.Report) { r.Results[0].TTFTMs = -203 }, "Prefill 8K × 1 has a negative TTFT (-203)"},
		{"negative percentile", func(r *engine.Report) { r.Results[3].TTFTPct.P99 = -1 }, "has a negative TTFT p99 (-1)"},
		{"negative low tail of a speed", func(r *engine.Report) { r.Results[3].PerRequestPct.P1 = -1 }, "has a negative per-request tok/s p1 (-1)"},
		{"negative measured time", func(r *engine.Report) { r.Results[3].MeasuredS = -30 }, "has a negative measured time (-30)"},
		{"absurd drift", func(r *engine.Report) {
			r.Results[4].Precision = &engine.CellPrecision{Drift: &engine.Drift{RelPer10s: -1e300, RelCI95: 0.01}}
		}, "Sustained decode 8K × 8 has a drift of -1e+300 per 10 s (± 0.01), outside what a window can measure"},
		{"prefix-cache hit rate above 1", func(r *engine.Report) { r.Results[4].PrefixCache = &engine.PrefixCache{ServerHitRate: 7} },
			"Sustained decode 8K × 8 has a prefix-cache hit rate of 7, above 1"},
		{"more prefix-cache hits than queries", func(r *engine.Report) {
			r.Results[0].PrefixCache = &engine.PrefixCache{ServerHitRate: 1, QueriedTokens: 8192, HitTokens: 1e9}
		}, "Prefill 8K × 1 has 1e+09 prefix-cache hits of 8192 queried tokens"},
		{"negative reasoning tokens", func(r *engine.Report) { r.Results[4].ReasoningTokens = -5 },
			"Sustained decode 8K × 8 has a negative reasoning tokens (-5)"},
		{"more reasoning than output", func(r *engine.Report) { r.Results[4].ReasoningTokens = 1e15 },
			"Sustained decode 8K × 8 has 1000000000000000 reasoning and 0 answer tokens of 37123 output tokens"},
		{"negative prefix-cache count", func(r *engine.Report) { r.Results[4].PrefixCache = &engine.PrefixCache{QueriedTokens: -1} },
			"Sustained decode 8K × 8 has a prefix-cache figure that is not a count (-1)"},
		{"negative partial figure", func(r *engine.Report) { r.Results[6].Partial = &engine.PartialFigures{ITLMs: -2} },
			"Sustained decode 64K × 1 has a negative partial time between tokens (-2)"},
		{"negative plan duration", func(r *engine.Report) { r.Plan.Duration = -30 * time.Second }, "its plan: duration -30s is negative"},
		{"negative plan concurrency", func(r *engine.Report) { r.Plan.Concurrency = []int{-4, 1} }, "its plan: concurrency -4 is outside 1–4096"},
		{"negative KV budget", func(r *engine.Report) { r.Plan.KVBudgetTokens = -1 }, "its plan: KV budget -1 tokens is negative"},
		{"SLO at p37", func(r *engine.Report) { r.Plan.SLO = engine.SLO{TTFT: time.Second, Percentile: 37} }, "its plan: 37 is not a percentile reports keep"},
		{"negative SLO bound", func(r *engine.Report) { r.Plan.SLO = engine.SLO{ITL: -time.Millisecond} }, "its plan: -1ms is negative"},
		{"SLO bound of years", func(r *engine.Report) { r.Plan.SLO = engine.SLO{TTFT: 1 << 62} }, "use at most 1 hour"},
		{"negative sample count", func(r *engine.Report) { r.Results[3].ITLPct.N = -5 }, "has a negative time between tokens samples (-5)"},
		{"negative run duration", func(r *engine.Report) { r.Run.DurationS = -30 }, "its run has a negative duration per cell (-30 s)"},
		{"negative chat template", func(r *engine.Report) { r.Run.ChatTemplateTokens = -8 }, "its run has a chat template of -8 tokens, outside 0–10485760"},
		{"cells span too many levels", func(r *engine.Report) {
			r.Results = r.Results[:3] // prefill only
			for _, c := range counting(engine.MaxLevels+1, 1) {
				r.Results = append(r.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: c}})
			}
		}, "its cells span 257 concurrency levels, more than the 256 a plan may have"},
	} {
		r := seedReport()
		c.change(&r)
		js, err := JSON(r)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = Decode(js, "run/report.json")
		wantImplausible(t, c.name, err, "run/report.json", c.want)
	}
}

// TestRunsWithinTheBoundsLoad: a run at the bounds, and the seed run,
// load back; so does an import of the real llm-inference-bench file.
func TestRunsWithinTheBoundsLoad(t *testing.T) {
	largest := seedReport()
	largest.Plan.PrefillContexts = counting(engine.MaxLevels, engine.K)
	largest.Plan.DecodeContexts = counting(engine.MaxLevels, engine.K)
	largest.Plan.Concurrency = counting(engine.MaxLevels, 1)
	for name, r := range map[string]engine.Report{"seed": seedReport(), "largest plan": largest} {
		dir := t.TempDir()
		if err := Save(dir, r); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err != nil {
			t.Errorf("%s: Load = %v", name, err)
		}
		if _, err := LoadSummary(dir); err != nil {
			t.Errorf("%s: LoadSummary = %v", name, err)
		}
	}
	if _, _, err := Read(libFixture); err != nil {
		t.Errorf("Read(%s) = %v", libFixture, err)
	}
}

func TestMoreCellsThanAPlanHas(t *testing.T) {
	data := `{"schema_version": 1, "results": [{}` + strings.Repeat(",{}", engine.MaxCells) + `]}`
	_, _, err := Decode([]byte(data), "many.json")
	wantImplausible(t, "65,793 cells", err, "many.json", "it has 65793 cells, more than the 65792 a plan may have")
}

func TestReadDataRefusesMoreThanItsLimit(t *testing.T) {
	if _, err := readLimited(bytes.NewReader(make([]byte, 10)), "big.json", 10); err != nil {
		t.Errorf("10 bytes within a limit of 10: %v", err)
	}
	_, err := readLimited(bytes.NewReader(make([]byte, 11)), "big.json", 10)
	wantImplausible(t, "11 bytes over a limit of 10", err, "big.json", "it is larger than")
}

func TestLoadSummaryChecksTheRun(t *testing.T) {
	r := seedReport()
	r.Results[3].TotalTokPerSec = -1
	dir := t.TempDir()
	js, err := JSON(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, JSONFile), js, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadSummary(dir)
	wantImplausible(t, "History's summary", err, dir, "has a negative total tok/s (-1)")
}
