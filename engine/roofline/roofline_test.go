package roofline

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"speedmatrix/engine"
	"strings"
	"testing"
)

func near(got, want, relTol float64) bool { return math.Abs(got-want) <= relTol*math.Abs(want) }

func h100(t *testing.T) engine.RooflineGPU {
	t.Helper()
	g, err := NewGPU("NVIDIA H100 80GB HBM3", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A dense 8B model in BF16 reads its 16 GB of weights every step: on a
// 3.35 TB/s GPU one request at a short context makes at most
// 3.35e12 / 16e9 = 209.4 tok/s.
func TestDecodeDense8B(t *testing.T) {
	f := engine.NewRoofline(h100(t), engine.RooflineModel{WeightDType: "BF16", ComputeDType: engine.BF16, StepBytes: 16e9, WeightBytes: 16e9, ActiveParams: 8e9})
	c := f.Decode(0, 0, 1)
	if !near(c.TokS, 209.375, 1e-9) || c.Bound != engine.BoundMemory {
		t.Errorf("ceiling = %+v, want 209.4 tok/s bound by memory bandwidth", c)
	}
	// 1,000 requests of the same model: 16 GB per step at 3.35 TB/s is
	// 4.78 ms (209,375 tok/s), but 1,000 × 2 × 8e9 FLOPs at 989.5 TFLOP/s
	// take 16.2 ms: 61,844 tok/s, bound by compute.
	c = f.Decode(0, 0, 1000)
	if !near(c.TokS, 1000/(1000*16e9/989.5e12), 1e-9) || c.Bound != engine.BoundCompute || !near(c.MemoryTokS, 209375, 1e-9) {
		t.Errorf("C=1000 ceiling = %+v, want 61,844 tok/s bound by compute", c)
	}
}

// A step's KV cache: the shared prompt once, each request's own output.
func TestDecodeKVCache(t *testing.T) {
	g := engine.RooflineGPU{Name: "test", Count: 1, BandwidthGBs: 1000, BF16TFLOPs: 1000}
	f := engine.NewRoofline(g, engine.RooflineModel{ComputeDType: engine.BF16, StepBytes: 1e9, ActiveParams: 1e6, KVBytesPerToken: 1e5})
	// 1e9 + 1e5 × (10,000 + 4 × 1,000) = 2.4e9 bytes: 2.4 ms for 4 tokens.
	if c := f.Decode(10000, 1000, 4); !near(c.TokS, 4/2.4e-3, 1e-9) {
		t.Errorf("ceiling = %.1f, want 1,666.7", c.TokS)
	}
}

// Mixture of experts: C tokens choosing k of E experts touch
// E·(1−(1−k/E)^C) distinct ones; with E=8, k=2, C=4 that is 5.46875.
func TestDecodeMoE(t *testing.T) {
	if d := engine.DistinctExperts(8, 2, 4); !near(d, 5.46875, 1e-12) {
		t.Errorf("DistinctExperts(8,2,4) = %v, want 5.46875", d)
	}
	if d := engine.DistinctExperts(128, 8, 1); d != 8 {
		t.Errorf("DistinctExperts(128,8,1) = %v, want 8", d)
	}
	g := engine.RooflineGPU{Name: "test", Count: 1, BandwidthGBs: 1000, BF16TFLOPs: 1000}
	m := engine.RooflineModel{ComputeDType: engine.BF16, StepBytes: 1e9, ActiveParams: 1e6, Experts: 8, ExpertsPerToken: 2, MoELayers: 1, ExpertBytes: 0.5e9}
	f := engine.NewRoofline(g, m)
	// C=1: 1e9 + 2 × 0.5e9 = 2 GB → 2 ms → 500 tok/s.
	if c := f.Decode(0, 0, 1); !near(c.TokS, 500, 1e-9) {
		t.Errorf("C=1: %.2f tok/s, want 500", c.TokS)
	}
	// C=4: 1e9 + 5.46875 × 0.5e9 = 3.734375 GB → 3.734 ms → 1,071.1 tok/s.
	if c := f.Decode(0, 0, 4); !near(c.TokS, 4/3.734375e-3, 1e-9) {
		t.Errorf("C=4: %.2f tok/s, want 1,071.1", c.TokS)
	}
}

// Prefill of 8,192 tokens on an H100 SXM (989.5 TFLOP/s BF16) of a model
// with 8e9 active parameters, 0.5e9 of them the LM head, and 32 layers of
// 32 heads of 128 (4 × 32 × 128 × 32 = 524,288 FLOPs per query-key pair):
// 2 × 7.5e9 × 8,192 + 2 × 0.5e9 = 1.22881e14 FLOPs in the linear layers,
// 524,288 × 8,192 × 8,193 / 2 = 1.75944e13 in attention: 0.14197 s,
// 57,704 tok/s.
func TestPrefill(t *testing.T) {
	f := engine.NewRoofline(h100(t), engine.RooflineModel{ComputeDType: engine.BF16, StepBytes: 16e9, ActiveParams: 8e9, LMHeadParams: 0.5e9, AttnFLOPsPerPair: 524288})
	c := f.Prefill(8192)
	if !near(c.TokS, 57704, 1e-4) || c.Bound != engine.BoundCompute {
		t.Errorf("prefill ceiling = %+v, want 57,704 tok/s bound by compute", c)
	}
}

// Sliding-window layers attend to the last window tokens only.
func TestPrefillSlidingWindow(t *testing.T) {
	g := engine.RooflineGPU{Name: "test", Count: 1, BandwidthGBs: 1000, BF16TFLOPs: 1}
	f := engine.NewRoofline(g, engine.RooflineModel{ComputeDType: engine.BF16, StepBytes: 1, ActiveParams: 1, SlidingAttnFLOPsPerPair: 1e6, SlidingWindow: 4})
	// n = 10, window 4: pairs 4·5/2 + 6·4 = 34; FLOPs 2·1·10 + 34e6.
	want := 10 / ((20 + 34e6) / 1e12)
	if c := f.Prefill(10); !near(c.TokS, want, 1e-9) {
		t.Errorf("prefill = %.1f, want %.1f", c.TokS, want)
	}
}

func TestNVFP4OnAmpereRunsInBF16(t *testing.T) {
	g, err := NewGPU("NVIDIA GeForce RTX 3090", 1, 936.048)
	if err != nil {
		t.Fatal(err)
	}
	if g.BandwidthSource != "nvml" || g.BandwidthGBs != 936.048 || g.BF16TFLOPs != 71 {
		t.Errorf("GPU = %+v", g)
	}
	f := engine.NewRoofline(g, engine.RooflineModel{Name: "m", WeightDType: "NVFP4", ComputeDType: engine.FP4, StepBytes: 1e9, ActiveParams: 1e9})
	if !strings.Contains(strings.Join(f.Assumptions, "\n"), "no FP4 tensor cores: NVFP4 weights are multiplied in BF16") {
		t.Errorf("assumptions = %q", f.Assumptions)
	}
	// 2 FLOPs per parameter at the RTX 3090's 71 BF16 TFLOPS: 35,500 tok/s.
	if c := f.Prefill(1000).ComputeTokS; !near(c, 35500, 1e-9) {
		t.Errorf("prefill compute bound %.1f tok/s, want 35500 (FP4 weights at the BF16 peak)", c)
	}
}

func TestUnknownGPU(t *testing.T) {
	_, err := NewGPU("NVIDIA Quadro Imaginary 9000", 1, 500)
	if !errors.Is(err, ErrUnknownGPU) || err.Error() != "roofline unavailable: unknown GPU (NVIDIA Quadro Imaginary 9000)" {
		t.Fatalf("err = %v", err)
	}
	f := engine.RooflineUnavailable(err)
	if f.Available() || f.Decode(8192, 0, 1).TokS != 0 || f.Prefill(8192).TokS != 0 {
		t.Errorf("unavailable facts give a ceiling: %+v", f)
	}
}

func TestLookupPeak(t *testing.T) {
	for name, row := range map[string]string{
		"NVIDIA H100 80GB HBM3":      "H100 SXM",
		"NVIDIA H100 PCIe":           "H100 PCIe",
		"NVIDIA H100 NVL":            "H100 NVL",
		"NVIDIA H200":                "H200 SXM",
		"NVIDIA H200 NVL":            "H200 NVL",
		"NVIDIA B200":                "B200",
		"NVIDIA GB200":               "GB200",
		"NVIDIA A100-SXM4-80GB":      "A100 80GB SXM",
		"NVIDIA A100 80GB PCIe":      "A100 80GB PCIe",
		"NVIDIA A100-SXM4-40GB":      "A100 40GB",
		"NVIDIA L40S":                "L40S",
		"NVIDIA L40":                 "L40",
		"NVIDIA L4":                  "L4",
		"NVIDIA A10":                 "A10",
		"NVIDIA GeForce RTX 3090":    "RTX 3090",
		"NVIDIA GeForce RTX 3090 Ti": "RTX 3090 Ti",
		"NVIDIA GeForce RTX 4090":    "RTX 4090",
		"NVIDIA GeForce RTX 5090":    "RTX 5090",
		"NVIDIA RTX PRO 6000 Blackwell Server Edition": "RTX PRO 6000 Blackwell",
		"RTX PRO 6000 Blackwell Server Edition":        "RTX PRO 6000 Blackwell",
		"NVIDIA RTX 6000 Ada Generation":               "RTX 6000 Ada",
		"NVIDIA RTX A6000":                             "RTX A6000",
	} {
		if p, ok := lookupPeak(name); !ok || p.Row != row {
			t.Errorf("LookupPeak(%q) = %q, %v; want %q", name, p.Row, ok, row)
		}
	}
	for _, name := range []string{"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "NVIDIA A10G", "Simulated GPU", "NVIDIA Tesla T4"} {
		if p, ok := lookupPeak(name); ok {
			t.Errorf("LookupPeak(%q) = %q, want no row", name, p.Row)
		}
	}
	for _, p := range table {
		if p.BandwidthGBs <= 0 || p.BF16TFLOPs <= 0 || p.Source == "" || p.MemoryType == "" {
			t.Errorf("row %s lacks a figure or its source: %+v", p.Row, p)
		}
	}
}

func readConfig(t *testing.T, name string) Arch {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := parseConfig(data)
	if err != nil {
		t.Fatalf("ParseConfig(%s): %v", name, err)
	}
	return a
}

func model(t *testing.T, a Arch, kv string) engine.RooflineModel {
	t.Helper()
	m, err := a.Model("m", kv, "config.json")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Llama 3.1 8B: 32 layers of (4096² × 2 + 4096 × 1024 × 2 + 3 × 4096 ×
// 14336) = 6,979,321,856 parameters plus an untied LM head of 128,256 ×
// 4,096 = 525,336,576; its KV cache is 32 × 2 × 8 × 128 × 2 B = 128 KiB a
// token.
func TestConfigLlama(t *testing.T) {
	m := model(t, readConfig(t, "llama-3.1-8b.json"), "")
	if m.ActiveParams != 7504658432 || m.StepBytes != 15009316864 || m.KVBytesPerToken != 131072 || m.LMHeadParams != 525336576 {
		t.Errorf("llama: active %.0f, step bytes %.0f, KV %.0f, LM head %.0f", m.ActiveParams, m.StepBytes, m.KVBytesPerToken, m.LMHeadParams)
	}
	if m.WeightBytes != 15009316864+2*525336576 || m.Experts != 0 || m.SlidingWindow != 0 {
		t.Errorf("llama: weights %.0f (the input embeddings count, though only looked up), experts %d", m.WeightBytes, m.Experts)
	}
	if kv := model(t, readConfig(t, "llama-3.1-8b.json"), "fp8_e4m3"); kv.KVBytesPerToken != 65536 {
		t.Errorf("fp8 KV cache: %.0f bytes a token, want 65,536", kv.KVBytesPerToken)
	}
}

// The AWQ checkpoint stores the linear layers in 4 bits plus an FP16 scale
// and zero point per 128 (0.51953 bytes a parameter); the LM head stays FP16.
func TestConfigQuantizedAWQ(t *testing.T) {
	a := readConfig(t, "llama-3.1-8b-awq.json")
	if a.WeightDType != "INT4" || a.DType != "FP16" || computeDType(a.WeightDType) != engine.BF16 {
		t.Fatalf("awq: weights %s, dtype %s", a.WeightDType, a.DType)
	}
	if m := model(t, a, ""); m.StepBytes != 4676648960 {
		t.Errorf("awq step bytes = %.0f, want 4,676,648,960", m.StepBytes)
	}
}

// Qwen3-30B-A3B: every MLP is 128 routed experts of 768 (8 per token),
// weights in FP8: 3.04e9 active parameters.
func TestConfigMoEFP8(t *testing.T) {
	a := readConfig(t, "qwen3-30b-a3b-fp8.json")
	m := model(t, a, "")
	if a.Intermediate != 0 || m.Experts != 128 || m.ExpertsPerToken != 8 || m.MoELayers != 48 || m.ComputeDType != engine.FP8 {
		t.Fatalf("qwen3 moe: %+v", a)
	}
	if m.StepBytes != 1540882432 || m.ExpertBytes != 4718592 || m.ActiveParams != 3041656832 {
		t.Errorf("qwen3 moe: step %.0f, expert %.0f, active %.0f", m.StepBytes, m.ExpertBytes, m.ActiveParams)
	}
}

// gemma-4-E2B nests its language model under text_config: 7 of its 35
// layers are full attention (head dim 512), the last 20 reuse earlier
// layers' KV cache and have a double-wide MLP; per-layer embeddings are
// looked up. Counted by hand: 278,396,928 attention, 1,557,135,360 MLP,
// 41,287,680 per-layer-embedding projections and a tied LM head of
// 402,653,184: 2,279,473,152 parameters read a step.
func TestConfigGemmaNested(t *testing.T) {
	a := readConfig(t, "gemma-4-e2b.json")
	if a.Layers != 35 || a.Hidden != 1536 || !a.TiedEmbeddings || a.SlidingWindow != 512 || len(a.Sliding) != 35 || a.Sliding[4] || !a.Sliding[3] {
		t.Fatalf("gemma: %+v", a)
	}
	m := model(t, a, "")
	if m.ActiveParams != 2279473152 || m.StepBytes != 2*2279473152 {
		t.Errorf("gemma: active %.0f, step bytes %.0f", m.ActiveParams, m.StepBytes)
	}
	// Own KV: 3 full layers × 2 × 512 × 2 B; 12 sliding × 2 × 256 × 2 B.
	if m.KVBytesPerToken != 6144 || m.SlidingKVBytesPerToken != 12288 {
		t.Errorf("gemma KV: %.0f full, %.0f sliding bytes a token", m.KVBytesPerToken, m.SlidingKVBytesPerToken)
	}
}

// gemma-4-26B-A4B in NVFP4 with an int4 KV cache: the linear layers at
// 0.5625 bytes a parameter, the LM head in BF16; full-attention layers keep
// K only (keys are values), 5 × 2 heads × (512 × 0.5 + 4) bytes a token.
func TestConfigGemmaMoENVFP4(t *testing.T) {
	a := readConfig(t, "gemma-4-26b-a4b-nvfp4.json")
	if a.WeightDType != "NVFP4" || a.Experts != 128 || a.Intermediate != 2112 || !a.FullKEqV {
		t.Fatalf("gemma 26B: %+v", a)
	}
	m := model(t, a, "int4_per_token_head")
	if m.StepBytes != 2408040448 || m.ExpertBytes != 3345408 || m.KVBytesPerToken != 2600 || m.SlidingKVBytesPerToken != 52800 {
		t.Errorf("gemma 26B: step %.0f, expert %.0f, KV %.0f + sliding %.0f", m.StepBytes, m.ExpertBytes, m.KVBytesPerToken, m.SlidingKVBytesPerToken)
	}
}

func TestConfigRefused(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join("testdata", "deepseek-v3.json"))
	if _, err := parseConfig(data); err == nil || !strings.Contains(err.Error(), "multi-head latent attention") {
		t.Errorf("deepseek: %v", err)
	}
	_, err := parseConfig([]byte(`{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"vocab_size":32000,"intermediate_size":11008}`))
	if err == nil || err.Error() != "roofline unavailable: the model's num_hidden_layers is missing" {
		t.Errorf("missing layers: %v", err)
	}
}

// FromConfig finds config.json in the Hugging Face cache's newest snapshot.
func TestFromConfigHFCache(t *testing.T) {
	hub := t.TempDir()
	t.Setenv("HF_HUB_CACHE", hub)
	if _, err := fromConfig("meta-llama/Llama-3.1-8B", ""); err == nil || !strings.Contains(err.Error(), "no config.json of meta-llama/Llama-3.1-8B") {
		t.Fatalf("empty cache: %v", err)
	}
	snap := filepath.Join(hub, "models--meta-llama--Llama-3.1-8B", "snapshots", "abc123")
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join("testdata", "llama-3.1-8b.json"))
	os.WriteFile(filepath.Join(snap, "config.json"), data, 0o644)
	os.WriteFile(filepath.Join(snap, "model.safetensors.index.json"), []byte(`{"metadata":{"total_size":16060522496},"weight_map":{}}`), 0o644)
	m, err := fromConfig("meta-llama/Llama-3.1-8B", "")
	if err != nil {
		t.Fatal(err)
	}
	if m.StepBytes != 15009316864 || m.Sources["architecture"] != "config.json" || m.Sources["weights_on_disk"] != "model.safetensors.index.json: 16.06 GB" {
		t.Errorf("from cache: %.0f bytes, sources %v", m.StepBytes, m.Sources)
	}
}

// vLLM's log: "Model loading took 15.0 GiB", "Available KV cache memory:
// 40 GiB" over "GPU KV cache size: 327,680 tokens" = 131,072 bytes a token.
func TestApplyLog(t *testing.T) {
	m := model(t, readConfig(t, "llama-3.1-8b.json"), "")
	applyLog(&m, 15, 40, 327680)
	if m.KVBytesPerToken != 131072 || m.WeightBytes != 15*gib || m.Sources["kv_cache"] != "vllm log" || !strings.HasPrefix(m.Sources["weights"], "vllm log") {
		t.Errorf("after the log: %+v", m)
	}
	only := fromLog("m", "BF16", 15, 40, 327680)
	f := engine.NewRoofline(h100(t), only)
	if c := f.Decode(0, 0, 1); !near(c.TokS, 3350e9/(15*gib), 1e-9) || f.Prefill(1024).TokS != 0 {
		t.Errorf("log only: decode %+v (want weights ÷ bandwidth, no compute bound), prefill %+v (want none)", c, f.Prefill(1024))
	}
}

// FuzzParseConfig: no config.json makes the parser or the facts panic, and
// an accepted one gives finite, non-negative facts.
func FuzzParseConfig(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseConfig(data)
		if err != nil {
			return
		}
		m, err := a.Model("m", "", "config.json")
		if err != nil {
			return
		}
		for _, v := range []float64{m.StepBytes, m.WeightBytes, m.KVBytesPerToken, m.ActiveParams} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("facts %+v from %s", m, data)
			}
		}
	})
}

func TestConfigNegativeSizes(t *testing.T) {
	_, err := parseConfig([]byte(`{"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":2,"vocab_size":10,"intermediate_size":-5,"num_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":8,"enable_moe_block":true}`))
	if err == nil || !strings.Contains(err.Error(), "negative size") {
		t.Errorf("negative intermediate size: %v", err)
	}
}

// A model that nests its language part under llm_config or language_config
// (InternVL, DeepSeek-VL) reads as the same model unwrapped, as Suggest
// reads it: both take the sections from hfcache.
func TestConfigNestedSections(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "llama-3.1-8b.json"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := parseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, section := range []string{"llm_config", "language_config"} {
		a, err := parseConfig([]byte(`{"model_type": "vlm", "vision_config": {"hidden_size": 1}, "` + section + `": ` + string(data) + `}`))
		if err != nil || a.Layers != plain.Layers || a.Hidden != plain.Hidden || a.KVHeads != plain.KVHeads || a.Vocab != plain.Vocab {
			t.Errorf("under %s: %+v, %v; want %+v", section, a, err, plain)
		}
	}
}
