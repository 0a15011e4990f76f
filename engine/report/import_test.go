package report

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// libFixture is a real results file of llm-inference-bench 0.4.18 (see
// testdata/README.md): 1K and 2K × 1, 16 and 64 requests, 6 s per cell,
// 512 output tokens, against a server with 98,304 tokens of KV cache.
const libFixture = "testdata/llm-inference-bench-0.4.18.json"

func findCell(t *testing.T, rs []engine.Result, phase engine.Phase, ctx, conc int) engine.Result {
	t.Helper()
	i := slices.IndexFunc(rs, func(r engine.Result) bool {
		return r.Phase == phase && r.ContextTokens == ctx && r.Concurrency == conc
	})
	if i < 0 {
		t.Fatalf("no %s cell %d × %d in %d results", phase, ctx, conc, len(rs))
	}
	return rs[i]
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// TestImportLLMInferenceBench reads the real file: every figure below is
// the file's own (seconds turned into milliseconds).
func TestImportLLMInferenceBench(t *testing.T) {
	r, format, err := Read(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	if format != FormatLLMInferenceBench {
		t.Fatalf("format %q", format)
	}
	run := r.Run
	if run.Imported == nil || *run.Imported != (engine.Import{Tool: "llm-inference-bench", Version: "0.4.18", File: "llm-inference-bench-0.4.18.json"}) {
		t.Errorf("Imported = %+v", run.Imported)
	}
	if run.BenchmarkTool != "llm-inference-bench 0.4.18" || run.ServedModel != "tiny" || run.DurationS != 6 ||
		run.MaxOutputTokens != 512 || run.Endpoint != "http://127.0.0.1:38101" || !run.Complete || run.Incomplete != "" {
		t.Errorf("Run = %+v", run)
	}
	if got := run.StartedAt.Format("2006-01-02 15:04:05"); got != "2026-12-01 05:42:29" {
		t.Errorf("started %s, want the first event's 05:42:29 on the file's date", got)
	}
	if got := run.FinishedAt.Format("15:04:05.000000"); got != "05:43:35.684651" {
		t.Errorf("finished %s, want metadata.timestamp", got)
	}
	e := r.Server
	if e.Name != "vllm" || e.Version != "0.32.0" || e.MaxModelLen != 8192 || e.KVCacheTokens != 98304 || e.Simulated {
		t.Errorf("Engine = %+v", e)
	}
	if h := r.Hardware; h.OS != "Linux" || h.Kernel != "6.18.44-fc-v669" || len(h.GPUs) != 0 || !strings.Contains(h.Note, "nvidia-smi not found") {
		t.Errorf("Hardware = %+v", h)
	}
	p := r.Plan
	if !slices.Equal(p.PrefillContexts, []int{1024, 2048}) || !slices.Equal(p.DecodeContexts, []int{1024, 2048}) ||
		!slices.Equal(p.Concurrency, []int{1, 16, 64}) || p.Duration != 6*time.Second || p.MaxOutputTokens != 512 || p.LoopDetection {
		t.Errorf("Plan = %+v", p)
	}
	if len(r.Results) != 8 {
		t.Fatalf("%d results, want 2 prefill + 2 × 3 decode", len(r.Results))
	}

	pre := findCell(t, r.Results, engine.PhasePrefill, 1024, 1)
	if pre.Status != engine.StatusValid || pre.TotalTokPerSec != 37777 || !near(pre.TTFTMs, 27) || pre.PromptTokens != 1022 || pre.ContextLabel != "1K" {
		t.Errorf("prefill 1K = %+v", pre)
	}
	one := findCell(t, r.Results, engine.PhaseDecode, 1024, 1)
	if one.Status != engine.StatusValid || !near(one.TotalTokPerSec, 194.0128742739737) ||
		!near(one.PerRequestTokPerSec, 194.78696026651613) || !near(one.TTFTMs, 6.42286599986619) ||
		!near(one.ITLMs, 5.133813878669064) || one.AvgActive != 1 || one.OutputTokens != 1164 ||
		one.MeasuredS != 5.999602 || one.PromptTokens != 1022 || len(one.Flags) != 0 || one.Underfilled {
		t.Errorf("decode 1K × 1 = %+v", one)
	}
	if !near(one.TTFTPct.P99, 9.428072760019859) || !near(one.ITLPct.P90, 5.435987707189853) || !near(one.PerRequestPct.P50, 194.78696026651613) {
		t.Errorf("1K × 1 percentiles TTFT %+v ITL %+v per request %+v", one.TTFTPct, one.ITLPct, one.PerRequestPct)
	}
	c64 := findCell(t, r.Results, engine.PhaseDecode, 1024, 64)
	if !near(c64.TotalTokPerSec, 4863.426438965844) || c64.AvgActive != 63.8 || c64.OutputTokens != 29175 {
		t.Errorf("decode 1K × 64 = %+v", c64)
	}
	// 64 × (2,048 + 512) tokens don't fit 98,304: the tool skipped the cell
	// and wrote nothing for it.
	over := findCell(t, r.Results, engine.PhaseDecode, 2048, 64)
	if over.Status != engine.StatusOverCapacity || !strings.Contains(over.Error, "163,840 tokens exceed its budget of 98,304") {
		t.Errorf("decode 2K × 64 = %+v", over)
	}
	for _, want := range []string{"Measured by llm-inference-bench, not by Speed Matrix",
		"does not look for looping output", "measured for 6 s (ours: 30 s by default)", "completed_request_count"} {
		if !slices.ContainsFunc(run.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note says %q: %q", want, run.Notes)
		}
	}
}

// mutateFixture decodes the real file after f changed its JSON.
func mutateFixture(t *testing.T, f func(doc map[string]any)) engine.Report {
	t.Helper()
	data, err := os.ReadFile(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	f(doc)
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	r, _, err := Decode(data, "results.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cellOf is the fixture's result for ctx × conc.
func cellOf(doc map[string]any, ctx, conc int) map[string]any {
	for _, c := range doc["results"].([]any) {
		m := c.(map[string]any)
		if m["context_tokens"] == float64(ctx) && m["concurrency"] == float64(conc) {
			return m
		}
	}
	panic("no such cell")
}

// TestImportStatuses covers the cells the tool lost, skipped or doubted.
func TestImportStatuses(t *testing.T) {
	t.Run("interrupted", func(t *testing.T) {
		r := mutateFixture(t, func(doc map[string]any) {
			doc["results"] = doc["results"].([]any)[:3] // stopped with q after 3 cells: 1K × 64 and 2K × 16 are lost
		})
		if got := findCell(t, r.Results, engine.PhaseDecode, 2048, 16); got.Status != engine.StatusNotRun {
			t.Errorf("2K × 16 is %s, want Not run", got.Status)
		}
		if r.Run.Complete || !strings.Contains(r.Run.Incomplete, "no result for 2 cells") {
			t.Errorf("Complete %v, Incomplete %q", r.Run.Complete, r.Run.Incomplete)
		}
		if v := completeValue(r.Run); strings.Contains(v, "resume") {
			t.Errorf("Complete line %q offers to resume another tool's run", v)
		}
	})
	t.Run("skipped by hand", func(t *testing.T) {
		r := mutateFixture(t, func(doc map[string]any) {
			doc["results"] = doc["results"].([]any)[:4]
			doc["event_log"] = append(doc["event_log"].([]any), "05:43:30 cell skipped C=16 ctx=2k")
		})
		if got := findCell(t, r.Results, engine.PhaseDecode, 2048, 16); got.Status != engine.StatusCancelled || !r.Run.Complete {
			t.Errorf("2K × 16 is %s (complete %v), want Cancelled in a complete run", got.Status, r.Run.Complete)
		}
	})
	t.Run("failed streams", func(t *testing.T) {
		r := mutateFixture(t, func(doc map[string]any) {
			c := cellOf(doc, 1024, 16)
			c["num_errors"], c["num_completed"] = 2, 14
		})
		got := findCell(t, r.Results, engine.PhaseDecode, 1024, 16)
		if got.Status != engine.StatusFailed || got.Measured() || got.TotalTokPerSec != 0 ||
			got.Partial == nil || !near(got.Partial.TotalTokPerSec, 2168.6680207504783) || !strings.Contains(got.Error, "2 of 16 streams") {
			t.Errorf("1K × 16 = %+v", got)
		}
	})
	t.Run("capacity-limited", func(t *testing.T) {
		r := mutateFixture(t, func(doc map[string]any) {
			c := cellOf(doc, 1024, 64)
			c["capacity_limited"], c["effective_concurrency"] = true, 40.5
		})
		got := findCell(t, r.Results, engine.PhaseDecode, 1024, 64)
		if !got.Measured() || !got.Underfilled || len(got.Flags) != 1 || got.Flags[0].Kind != engine.FlagUnderfilled ||
			!strings.Contains(got.Flags[0].Message, "40.5 of 64") {
			t.Errorf("1K × 64 = status %s, underfilled %v, flags %+v", got.Status, got.Underfilled, got.Flags)
		}
	})
	t.Run("server counted more", func(t *testing.T) {
		r := mutateFixture(t, func(doc map[string]any) { cellOf(doc, 1024, 1)["server_gen_throughput"] = 220.0 })
		got := findCell(t, r.Results, engine.PhaseDecode, 1024, 1)
		if len(got.Flags) != 1 || got.Flags[0].Kind != engine.FlagServerCount || !strings.Contains(got.Flags[0].Message, "+13.4 %") {
			t.Errorf("flags %+v", got.Flags)
		}
	})
	t.Run("no metrics", func(t *testing.T) {
		r := mutateFixture(t, func(doc map[string]any) { doc["metadata"].(map[string]any)["metrics_available"] = false })
		if got := findCell(t, r.Results, engine.PhaseDecode, 1024, 16); got.AvgActive != 0 {
			t.Errorf("average active %v without /metrics, want it left empty", got.AvgActive)
		}
		if !slices.ContainsFunc(r.Run.Notes, func(n string) bool { return strings.Contains(n, "no /metrics") }) {
			t.Errorf("no note on the missing /metrics: %q", r.Run.Notes)
		}
	})
	t.Run("remote server", func(t *testing.T) {
		r := mutateFixture(t, func(doc map[string]any) {
			doc["startup_diagnostics"].(map[string]any)["server_url"] = "http://gpu-box:8000"
		})
		if h := r.Hardware; h.OS != "" || !strings.Contains(h.Note, "gpu-box") {
			t.Errorf("Hardware = %+v, want only a note that the server ran elsewhere", h)
		}
	})
}

// TestDecodeRejects: anything but the formats Decode reads gives the one-line
// FormatError that names the file and says what is wrong with it.
func TestDecodeRejects(t *testing.T) {
	fixture, err := os.ReadFile(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, data, reason string
	}{
		{"empty", "", "it is empty"},
		{"blank", " \n\t", "it is empty"},
		{"garbage", "PK\x03\x04 not a json file", "it is not valid JSON"},
		{"truncated", string(fixture[:len(fixture)/2]), "it is not valid JSON (unexpected EOF)"},
		{"array", "[1, 2]", "its JSON is array, not an object"},
		{"other JSON", `{"name": "something else"}`, "it has none of their keys"},
		{"two values", `{"metadata": {}, "benchmarks": []} {"a": 1}`, "more than one value"},
		{"no version", `{"metadata": {"model": "x"}, "results": []}`, "its metadata has no version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Decode([]byte(tc.data), "in.json")
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a FormatError", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "in.json is none of the formats Speed Matrix reads (a Speed Matrix report.json, an llm-inference-bench results file, vllm bench serve") ||
				!strings.Contains(msg, tc.reason) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line ending in %q", msg, tc.reason)
			}
		})
	}
	t.Run("wrong types", func(t *testing.T) {
		_, _, err := Decode([]byte(`{"metadata": {"version": "0.4.18", "concurrency_levels": "1,2"}, "results": []}`), "in.json")
		if err == nil || !strings.Contains(err.Error(), "looks like an llm-inference-bench results file but cannot be read") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestReadOwnReport: a report.json, or its folder, reads as Load reads it.
func TestReadOwnReport(t *testing.T) {
	want, err := Load("testdata/report.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, _ := os.ReadFile("testdata/report.json")
	if err := os.WriteFile(filepath.Join(dir, JSONFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"testdata/report.json", dir} {
		got, format, err := Read(path)
		if err != nil || format != formatReport || got.Run.Imported != nil || len(got.Results) != len(want.Results) {
			t.Errorf("Read(%s) = %d results, format %q, imported %v, err %v", path, len(got.Results), format, got.Run.Imported, err)
		}
	}
	if _, _, err := Read(filepath.Join(dir, "nope.json")); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing file: %v", err)
	}
}

// TestImportedReportRoundTrips: an import saved as report.json loads back
// as imported, and its Run section says so.
func TestImportedReportRoundTrips(t *testing.T) {
	r, _, err := Read(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	back, err := Load(dir)
	if err != nil || back.Run.Imported == nil || back.Run.Imported.Label() != "llm-inference-bench 0.4.18" || len(back.Run.Notes) != len(r.Run.Notes) {
		t.Fatalf("loaded back imported %+v, %d notes, err %v", back.Run.Imported, len(back.Run.Notes), err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	for _, want := range []string{"| Imported from | llm-inference-bench 0.4.18 (llm-inference-bench-0.4.18.json) |", "| Note | It does not look for looping output"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

func TestParseLIBLog(t *testing.T) {
	l := parseLIBLog([]string{
		"05:42:29 benchmark start engine=vllm",
		"05:42:29 startup engine vLLM 0.32.0 models=['tiny']",
		"05:42:29 startup KV cache budget from vLLM metrics: 98,304 tokens (6144 blocks x 16)",
		"05:42:29 startup model context length: 131,072 tokens",
		"not an event",
		"23:59:01 cell skipped C=8 ctx=128k",
		"23:59:02 cell skipped C=2 ctx=0",
	})
	if l.engine != "vLLM" || l.version != "0.32.0" || l.kvCacheTokens != 98304 || l.maxModelLen != 131072 {
		t.Errorf("log = %+v", l)
	}
	if !l.skipped[[2]int{128 * 1024, 8}] || !l.skipped[[2]int{0, 2}] || len(l.skipped) != 2 {
		t.Errorf("skipped = %v", l.skipped)
	}
	finished := time.Date(2026, 12, 2, 0, 10, 0, 0, time.UTC)
	if got := l.startOn(finished); !got.Equal(time.Date(2026, 12, 1, 5, 42, 29, 0, time.UTC)) {
		t.Errorf("a run finished after midnight started %v", got)
	}
	if got := parseLIBLog(nil).startOn(finished); !got.IsZero() {
		t.Errorf("no log: started %v, want unknown", got)
	}
}

func TestLIBGPUs(t *testing.T) {
	gpus := libGPUs("0, NVIDIA GeForce RTX 3090, 580.95.05, 00000000:01:00.0, 4, 16, 350.00\n1, NVIDIA H200, 580.95.05, 00000000:02:00.0, 5, 16, 700.00\nbad line")
	if len(gpus) != 2 || gpus[0].Name != "NVIDIA GeForce RTX 3090" || gpus[0].DriverVersion != "580.95.05" ||
		gpus[0].PCIeGen != 4 || gpus[0].PCIeWidth != 16 || gpus[1].PowerLimitW != 700 || gpus[1].Index != 1 {
		t.Errorf("gpus = %+v", gpus)
	}
}

// FuzzDecode: no input makes Decode panic, and what it accepts is a report.
func FuzzDecode(f *testing.F) {
	fixture, err := os.ReadFile(libFixture)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"", "[1]", `{"schema_version": 1}`, `{"metadata": {"version": "1"}, "results": [{}]}`, string(fixture),
		`{"completed": 1, "output_throughput": 1, "burstiness": Infinity, "mean_ttft_ms": NaN}`, `{"load_summary": {"requested_rate": 1}, "successes": {}}`} {
		f.Add([]byte(seed))
	}
	// The peers' real files, the small ones whole (GuideLLM's are 200 KB).
	for _, fx := range peerFixtures {
		if data, err := os.ReadFile(filepath.Join(peersDir, fx.file)); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, format, err := Decode(data, "fuzz.json")
		if err == nil && (r.SchemaVersion == 0 || format == "") {
			t.Errorf("accepted a report without schema version or format: %q", format)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("an error of more than one line: %q", err)
		}
		if err == nil && format.Imported() && (r.Run.Imported == nil || (r.Load == nil && format != FormatLLMInferenceBench)) {
			t.Errorf("an import of %s without its label or load section", format)
		}
	})
}
