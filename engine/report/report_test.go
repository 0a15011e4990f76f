package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// seedReport is part of the first reference report, as Run would produce it.
func seedReport() engine.Report {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	dec := func(ctx, c int, total, per, ttft, itl, active float64, completed, out int) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: c},
			ContextLabel: engine.ContextLabel(ctx), Status: engine.StatusValid, TotalTokPerSec: total,
			PerRequestTokPerSec: per, TTFTMs: ttft, ITLMs: itl, AvgActive: active, Completed: completed,
			OutputTokens: out, MeasuredS: 30, StartedAt: at, FinishedAt: at.Add(31 * time.Second),
			TTFTPct:  engine.Percentiles{P50: ttft, P90: ttft * 1.2, P99: ttft * 1.5, N: c + completed},
			ITLPct:   engine.Percentiles{P50: itl, P90: itl * 1.3, P99: itl * 2.5, N: out},
			Requests: []engine.RequestSample{{PromptTokens: ctx, OutputTokens: out, TTFTMs: ttft, TokensPerSec: per}}}
	}
	pre := func(ctx int, tps, ttft float64) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: ctx, Concurrency: 1},
			ContextLabel: engine.ContextLabel(ctx), Status: engine.StatusValid, TotalTokPerSec: tps, TTFTMs: ttft,
			Completed: 1, PromptTokens: ctx, StartedAt: at, FinishedAt: at}
	}
	over := dec(126720, 128, 0, 0, 0, 0, 0, 0, 0)
	over.Status, over.Requests, over.MeasuredS = engine.StatusOverCapacity, nil, 0
	looped := dec(126720, 64, 0, 0, 0, 0, 0, 0, 0)
	looped.Status, looped.MeasuredS = engine.StatusLooped, 0
	failed := dec(65536, 1, 0, 0, 0, 0, 0, 0, 0)
	failed.Status, failed.Error, failed.MeasuredS = engine.StatusFailed, "POST /v1/chat/completions: the server answered 500: CUDA out of memory: check the server log", 0
	under := dec(8192, 128, 9005.7, 74.1, 1147, 13.5, 118.0, 0, 300672)
	under.Underfilled = true
	return engine.Report{
		SchemaVersion: engine.SchemaVersion,
		Hardware: engine.HardwareInfo{Type: "Discrete GPU", OS: "linux",
			GPUs: []engine.GPUInfo{{Name: "RTX PRO 6000 Blackwell Server Edition", VRAMBytes: 97887 << 20}}},
		Server: engine.ServerInfo{Name: "vllm", Version: "0.30.1rc1.dev452+g73a583112", Quantization: "BF16",
			Backend: "cuda", Repository: "github.com/vllm-project/vllm", Build: "cuda-13.2", Commit: "73a5831127a9"},
		Run: engine.RunInfo{Model: "RedHatAI/gemma-4-E2B-it", ServedModel: "gemma", Revision: "main",
			BenchmarkTool: "speedmatrix v0.1.0", DecodeTest: engine.DecodeTestFixedDuration, PrefillMode: engine.PrefillModeDecodeWarmup,
			DurationS: 30, MaxOutputTokens: 4096, API: "chat", Endpoint: "http://127.0.0.1:8000", StartedAt: at,
			FinishedAt: at.Add(time.Hour), Complete: true},
		LaunchCommand: "vllm serve RedHatAI/gemma-4-E2B-it --served-model-name gemma --api-key <redacted>",
		Plan:          engine.DefaultPlan(),
		Results: []engine.Result{
			pre(8192, 40400, 203), pre(65536, 16040, 4038), pre(126720, 9534, 13001),
			dec(8192, 1, 167.7, 169.7, 36, 5.9, 1.0, 1, 5031), dec(8192, 8, 1237.5, 160.1, 128, 6.2, 8.0, 8, 37123), under,
			failed, dec(65536, 8, 839.6, 105.2, 558, 9.5, 8.0, 0, 25182), dec(65536, 128, 4138.5, 33.6, 7605, 29.8, 128, 0, 131584),
			dec(126720, 1, 86.7, 86.9, 404, 11.5, 1.0, 0, 2601), looped, over,
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

func TestGolden(t *testing.T) {
	r := seedReport()
	js, err := JSON(r)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", js)
	var csv bytes.Buffer
	if err := WriteCSV(&csv, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "results.csv", csv.Bytes())
	golden(t, "report.md", []byte(Markdown(r)))
}

func TestCSVHeaderIsExact(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, engine.Report{}); err != nil {
		t.Fatal(err)
	}
	const want = "phase,context_tokens,concurrency,status,total_tok_s,per_request_tok_s,ttft_ms,itl_ms,avg_active,completed,output_tokens,measured_s,server_tok_s,server_active,preemptions,gpu_throttle,error,simulated,target," +
		"ttft_p90_ms,ttft_p99_ms,itl_p90_ms,itl_p99_ms,ttft_samples,itl_samples,slo,slo_pass,total_tok_s_ci_pct,prefill_repeats,prefill_spread_pct,prefix_cache_hit_rate,reasoning_tokens,answer_tokens,answer_ttft_ms," +
		"tokens_per_joule,joules_per_token_above_idle,prefill_joules_per_1k,usd_per_mtok\n"
	if b.String() != want {
		t.Errorf("header %q, want %q", b.String(), want)
	}
}

func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := seedReport()
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{JSONFile, CSVFile, MarkdownFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	for _, path := range []string{dir, filepath.Join(dir, JSONFile)} {
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("Load(%s) differs from what was saved", path)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestSpeedLowTailKept: report.json keeps a speed's low tail (per-request
// tok/s p10 and p1, its slowest requests), and a file from before it was
// kept still loads, with none.
func TestSpeedLowTailKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := seedReport()
	r.Results[3].PerRequestPct = engine.Percentiles{P50: 41.2, P90: 45, P99: 47.1, P10: 38, P1: 35.2, N: 420}
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"p10": 38,`) || !strings.Contains(string(data), `"p1": 35.2,`) {
		t.Errorf("report.json lacks the per-request p10 and p1")
	}
	got, err := Load(dir)
	if err != nil || got.Results[3].PerRequestPct != r.Results[3].PerRequestPct {
		t.Errorf("loaded per-request percentiles %+v (%v), want %+v", got.Results[3].PerRequestPct, err, r.Results[3].PerRequestPct)
	}
	old := strings.NewReplacer(`"p10": 38,`, "", `"p1": 35.2,`, "").Replace(string(data))
	if err := os.WriteFile(filepath.Join(dir, JSONFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = Load(dir)
	if p := got.Results[3].PerRequestPct; err != nil || p.P10 != 0 || p.P1 != 0 || p.P99 != 47.1 {
		t.Errorf("an older report.json loads as %+v (%v)", p, err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "not found"},
		{write("bad.json", "{"), "not a speedmatrix report.json"},
		{write("old.json", `{"results":[]}`), "no schema_version"},
		{write("new.json", `{"schema_version": 99}`), "update speedmatrix"},
	}
	for _, c := range cases {
		if _, err := Load(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s) = %v, want an error with %q", filepath.Base(c.path), err, c.want)
		}
	}
}

func TestFormat(t *testing.T) {
	cases := []struct{ got, want string }{
		{TokPerSec(1237.5), "1,237.5"}, {TokPerSec(40412), "40.4K"}, {TokPerSec(16020), "16K"},
		{TokPerSec(9534), "9,534.0"}, {TokPerSec(9999.96), "10K"}, {TokPerSec(167.74), "167.7"},
		{Millis(36.4), "36 ms"}, {Millis(1147.2), "1,147 ms"}, {millisFine(5.94), "5.9 ms"},
		{seconds(30), "30.0 s"}, {wholeSeconds(30), "30 s"}, {Int(203607), "203,607"}, {Int(-1234), "-1,234"},
		{tokens(4096), "4,096 tokens"}, {GB(24 << 30), "24 GB"}, {GB(97887 << 20), "96 GB"},
		{contextRange([]int{0, 248 * 1024}), "0–248K"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestMarkdownMarksSimulated(t *testing.T) {
	r := seedReport()
	r.Server.Simulated, r.Server.SimProfile = true, "tiny"
	md := Markdown(r)
	if !strings.Contains(md, "| Simulated | simulated (profile tiny) |") || !strings.Contains(Subtitle(r), "simulated (profile tiny)") {
		t.Errorf("a simulated report must say so in the Engine section and subtitle:\n%s", md)
	}
}

func TestMatrixLine(t *testing.T) {
	cell := func(p engine.Phase, ctx, c int) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: p, ContextTokens: ctx, Concurrency: c}}
	}
	for _, tc := range []struct {
		name string
		rs   []engine.Result
		want string
	}{
		{"one of each", []engine.Result{cell(engine.PhaseDecode, 8192, 4)}, "1 context (8K) × 1 concurrency level (4)"},
		{"many", []engine.Result{cell(engine.PhasePrefill, 32768, 1), cell(engine.PhasePrefill, 8192, 1),
			cell(engine.PhaseDecode, 8192, 1), cell(engine.PhaseDecode, 32768, 8)},
			"2 contexts (8K–32K) × 2 concurrency levels (1–8) · prefill at 8K, 32K"},
		{"empty", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MatrixLine(engine.Report{Results: tc.rs}); got != tc.want {
				t.Errorf("MatrixLine = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGPUName(t *testing.T) {
	for in, want := range map[string]string{
		"NVIDIA GeForce RTX 3090":                      "RTX 3090",
		"NVIDIA RTX PRO 6000 Blackwell Server Edition": "RTX PRO 6000 Blackwell Server Edition",
		"NVIDIA H200": "H200",
		"Tesla T4":    "Tesla T4",
		"":            "unknown GPU",
	} {
		if got := GPUName(in); got != want {
			t.Errorf("GPUName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWhoseIsAddedNotChanged: report.json records whose hardware its
// Hardware section is as a field of its own; a report written before it
// (testdata/report.json) still loads, with Whose empty and its title as
// it was.
func TestWhoseIsAddedNotChanged(t *testing.T) {
	old, err := Load(filepath.Join("testdata", JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if old.Hardware.Whose != "" || ModelOnGPU(old) != "gemma-4-E2B-it on RTX PRO 6000 Blackwell Server Edition 96GB" {
		t.Errorf("the old report reads Whose %q, title %q", old.Hardware.Whose, ModelOnGPU(old))
	}
	old.Hardware.Whose = engine.HardwareOfRemote
	b, err := JSON(old)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"whose": "remote"`) || old.SchemaVersion != engine.SchemaVersion {
		t.Errorf("report.json lacks \"whose\": \"remote\", or the schema version moved (%d)", old.SchemaVersion)
	}
}
