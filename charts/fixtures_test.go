package charts

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

var update = flag.Bool("update", false, "rewrite golden files and reference fixtures")

// seed003Rows is the 3090 reference report's All measurements table written out with
// separators. The reference report page's text glues cells together; "Per request
// tok/s" and TTFT were told apart with the heatmap's TTFT of the same cell
// ("119.832 ms TTFT" → 119.8 tok/s, 32 ms), which leaves 121.5 | 32 ms.
const seed003Rows = `
| Prefill | 8K | 1 | Valid | 5,438.0 | — | 1,474 ms | — | — | 1 | — | — |
| Prefill | 16K | 1 | Valid | 4,700.0 | — | 3,378 ms | — | — | 1 | — | — |
| Prefill | 32K | 1 | Valid | 3,687.0 | — | 8,571 ms | — | — | 1 | — | — |
| Prefill | 64K | 1 | Valid | 2,617.0 | — | 24,092 ms | — | — | 1 | — | — |
| Prefill | 128K | 1 | Valid | 1,645.0 | — | 76,536 ms | — | — | 1 | — | — |
| Sustained decode | 0 | 1 | Valid | 119.8 | 121.5 | 32 ms | 8.2 ms | 1.0 | 0 | 3,595 | 30.0 s |
| Sustained decode | 0 | 2 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 0 | 4 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 0 | 8 | Valid | 512.3 | 66.3 | 49 ms | 15.1 ms | 8.0 | 0 | 15,368 | 30.0 s |
| Sustained decode | 0 | 16 | Valid | 743.4 | 48.9 | 70 ms | 20.5 ms | 16.0 | 0 | 22,288 | 30.0 s |
| Sustained decode | 0 | 32 | Valid | 1,092.4 | 36.8 | 95 ms | 27.2 ms | 32.0 | 0 | 32,768 | 30.0 s |
| Sustained decode | 0 | 64 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 0 | 128 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 16K | 1 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 16K | 2 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 16K | 4 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 16K | 8 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 16K | 16 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 16K | 32 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 16K | 64 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 16K | 128 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 32K | 1 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 32K | 2 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 32K | 4 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 32K | 8 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 32K | 16 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 32K | 32 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 32K | 64 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 32K | 128 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 64K | 1 | Valid | 62.8 | 2009.0 | 218 ms | 0.5 ms | 1.0 | 0 | 1,885 | 30.0 s |
| Sustained decode | 64K | 2 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 64K | 4 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 64K | 8 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 64K | 16 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 64K | 32 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 64K | 64 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 64K | 128 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 128K | 1 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 128K | 2 | Valid | 83.2 | 41.7 | 597 ms | 24.0 ms | 2.0 | 0 | 2,494 | 30.0 s |
| Sustained decode | 128K | 4 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 128K | 8 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 128K | 16 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 128K | 32 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 128K | 64 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 128K | 128 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 248K | 1 | Looped | — | — | — | — | — | 0 | 0 | — |
| Sustained decode | 248K | 2 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 248K | 4 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 248K | 8 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 248K | 16 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 248K | 32 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 248K | 64 | Over capacity | — | — | — | — | — | — | — | — |
| Sustained decode | 248K | 128 | Over capacity | — | — | — | — | — | — | — | — |
`

const seed000Launch = `env MAX_JOBS=2 FLASHINFER_NVCC_THREADS=1 TORCHINDUCTOR_COMPILE_THREADS=1 "$HOME/env_rtxpro6k-redhatai-vllm-73a5831127a9d2b8/bin/vllm" serve RedHatAI/gemma-4-E2B-it --served-model-name gemma --trust-remote-code --tensor-parallel-size 1 --reasoning-parser gemma4 --enable-auto-tool-choice --tool-call-parser gemma4 --max-model-len 131072 --gpu-memory-utilization 0.83 --host 0.0.0.0 --port 8000 --api-key <redacted> --async-scheduling`

const seed003Launch = `# Untuned out-of-the-box baseline. Spec decode: none. KV cache: int4_per_token_head
# 1x RTX 3090 24GB (Zagitta/gpu-unlock), 350 W limit (VBIOS max), PCIe Gen4 x16 | AMD Ryzen 9 7900X 12C | 32 GB DDR5 | Ubuntu 24.04.5, NVIDIA driver 595.99.02
vllm serve RedHatAI/gemma-4-26B-A4B-it-NVFP4 --max-model-len 262144 --gpu-memory-utilization 0.94 --max-num-seqs 128 --enable-prefix-caching --trust-remote-code --language-model-only --kv-cache-dtype int4_per_token_head --attention-backend TRITON_ATTN`

func seedRun(model, served, tool string, maxOut int) engine.RunInfo {
	return engine.RunInfo{
		Model: model, ServedModel: served, Revision: "main", BenchmarkTool: tool,
		DecodeTest: "Fixed duration", PrefillMode: "Measured during decode warm-up",
		DurationS: 30, MaxOutputTokens: maxOut, API: "chat", Complete: true,
	}
}

func seedPlan(prefill, decode []int, maxOut int) engine.Plan {
	return engine.Plan{
		PrefillContexts: prefill, DecodeContexts: decode,
		Concurrency: []int{1, 2, 4, 8, 16, 32, 64, 128}, Duration: 30 * time.Second,
		MaxOutputTokens: maxOut, API: engine.APIChat, LoopDetection: true,
	}
}

// seed000Report is the RTX PRO 6000 reference report; its table comes from the reference text.
func seed000Report(t *testing.T) engine.Report {
	text, err := os.ReadFile(filepath.Join("testdata", "seeds", "seed000.txt"))
	if err != nil {
		t.Fatal(err)
	}
	k := engine.K
	return engine.Report{
		SchemaVersion: engine.SchemaVersion,
		Hardware: engine.HardwareInfo{Type: "Discrete GPU", OS: "linux", GPUs: []engine.GPUInfo{
			{Name: "NVIDIA RTX PRO 6000 Blackwell Server Edition", VRAMBytes: 96 << 30}}},
		Server: engine.ServerInfo{Name: "vllm", Version: "0.30.1rc1.dev452+g73a583112", Quantization: "BF16",
			Backend: "cuda", Repository: "github.com/vllm-project/vllm", Build: "cuda-13.2", Commit: "73a5831127a9",
			MaxModelLen: 131072},
		Run:           seedRun("RedHatAI/gemma-4-E2B-it", "gemma", "llm-inference-bench v0.7.6", 4096),
		LaunchCommand: seed000Launch,
		Plan: seedPlan([]int{8 * k, 16 * k, 32 * k, 64 * k, 123 * k, 128 * k},
			[]int{8 * k, 16 * k, 32 * k, 64 * k, 123 * k}, 4096),
		Results: parseSeedRows(t, string(text)),
	}
}

// seed003Report is the RTX 3090 reference report.
func seed003Report(t *testing.T) engine.Report {
	k := engine.K
	return engine.Report{
		SchemaVersion: engine.SchemaVersion,
		Hardware: engine.HardwareInfo{Type: "Discrete GPU", CPU: "AMD Ryzen 9 7900X", CPUCores: 12,
			RAMBytes: 32 << 30, OS: "Ubuntu 24.04.5", GPUs: []engine.GPUInfo{
				{Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}}},
		Server: engine.ServerInfo{Name: "vllm", Version: "0.32.0", Quantization: "NVFP4", Backend: "cuda",
			Build: "vllm/vllm-openai:v0.32.0-x86_64", MaxModelLen: 262144, MaxNumSeqs: 128},
		Run:           seedRun("RedHatAI/gemma-4-26B-A4B-it-NVFP4", "bench", "llm-inference-bench v0.8.0", 8192),
		LaunchCommand: seed003Launch,
		Plan: seedPlan([]int{8 * k, 16 * k, 32 * k, 64 * k, 128 * k},
			[]int{0, 16 * k, 32 * k, 64 * k, 128 * k, 248 * k}, 8192),
		Results: parseSeedRows(t, seed003Rows),
	}
}

// parseSeedRows reads the "| Prefill | 8K | 1 | Valid | … |" rows of a
// reference report's All measurements table into results.
func parseSeedRows(t *testing.T, text string) []engine.Result {
	var out []engine.Result
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| Prefill |") && !strings.HasPrefix(line, "| Sustained decode |") {
			continue
		}
		f := strings.Split(strings.Trim(line, "| "), " | ")
		if len(f) != 12 {
			t.Fatalf("reference row has %d cells: %q", len(f), line)
		}
		out = append(out, seedResult(t, f))
	}
	return out
}

func seedResult(t *testing.T, f []string) engine.Result {
	num := func(s string) float64 {
		s = strings.TrimSuffix(strings.TrimSuffix(s, " ms"), " s")
		mult := 1.0
		if strings.HasSuffix(s, "K") {
			s, mult = strings.TrimSuffix(s, "K"), 1000
		}
		if s == dash {
			return 0
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		if err != nil {
			t.Fatalf("reference figure %q: %v", s, err)
		}
		return v * mult
	}
	ctx := int(num(f[1]) / 1000 * engine.K)
	r := engine.Result{
		Cell:         engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: int(num(f[2]))},
		ContextLabel: f[1], Status: engine.Status(f[3]),
		TotalTokPerSec: num(f[4]), PerRequestTokPerSec: num(f[5]), TTFTMs: num(f[6]), ITLMs: num(f[7]),
		AvgActive: num(f[8]), Completed: int(num(f[9])), OutputTokens: int(num(f[10])), MeasuredS: num(f[11]),
		PromptTokens: ctx,
	}
	if f[0] == "Prefill" {
		r.Phase = engine.PhasePrefill
	}
	r.TTFTPct = engine.Percentiles{P50: r.TTFTMs, P90: r.TTFTMs, P99: r.TTFTMs}
	r.ITLPct = engine.Percentiles{P50: r.ITLMs, P90: r.ITLMs, P99: r.ITLMs}
	r.PerRequestPct = engine.Percentiles{P50: r.PerRequestTokPerSec, P90: r.PerRequestTokPerSec, P99: r.PerRequestTokPerSec}
	return r
}

// loadSeed reads a fixture written by TestSeedFixtures.
func loadSeed(t testing.TB, name string) engine.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var r engine.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// TestSeedFixtures keeps testdata/seed000.json and seed003.json equal to
// the reference tables above (rewrite them with -update).
func TestSeedFixtures(t *testing.T) {
	for name, r := range map[string]engine.Report{"seed000": seed000Report(t), "seed003": seed003Report(t)} {
		want, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		path := filepath.Join("testdata", name+".json")
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the reference tables; run go test -run TestSeedFixtures -update", path)
		}
		if n := len(r.Results); n != map[string]int{"seed000": 46, "seed003": 53}[name] {
			t.Errorf("%s: %d results", name, n)
		}
	}
}
