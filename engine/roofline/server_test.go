package roofline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/hw"
	"speedmatrix/hw/nvmlmock"
)

const llamaConfig = `{"model_type":"llama","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,
"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`

func TestForServer(t *testing.T) {
	t.Setenv("HF_HUB_CACHE", t.TempDir()) // an empty cache
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(llamaConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	rtx := engine.Report{Hardware: engine.HardwareInfo{GPUs: []engine.GPUInfo{{Name: "NVIDIA GeForce RTX 3090", PeakBandwidthGBs: 936.048}}}}
	f := ForServer(rtx, dir, ServerFacts{})
	if !f.Available() || f.GPU.BandwidthSource != "nvml" || f.Model.Sources["architecture"] != "config.json" ||
		!strings.Contains(strings.Join(f.Assumptions, "\n"), "tensor-parallel size is unknown") {
		t.Fatalf("local model folder: %+v", f)
	}
	launched := ForServer(rtx, dir, ServerFacts{WeightGiB: 14.99, KVCacheGiB: 5, KVCacheTokens: 40960, WeightDType: "BF16", TP: 2})
	if launched.GPU.Count != 2 || launched.Model.KVBytesPerToken != 131072 || launched.Model.Sources["kv_cache"] != "vllm log" {
		t.Errorf("launched with TP 2: %+v", launched)
	}
	logOnly := ForServer(rtx, "org/not-downloaded", ServerFacts{WeightGiB: 15, KVCacheGiB: 5, KVCacheTokens: 40960, WeightDType: "BF16", TP: 1})
	if !logOnly.Available() || !strings.Contains(strings.Join(logOnly.Assumptions, "\n"), "no config.json") {
		t.Errorf("vLLM's log alone: %+v", logOnly)
	}
	for _, tc := range []struct {
		name  string
		h     engine.Report
		model string
		want  string
	}{
		{"no GPU", engine.Report{}, dir, "roofline unavailable: no GPU detected on this machine"},
		{"unknown GPU", engine.Report{Hardware: engine.HardwareInfo{GPUs: []engine.GPUInfo{{Name: "NVIDIA Tesla T4"}}}}, dir, "roofline unavailable: unknown GPU (NVIDIA Tesla T4)"},
		{"no model", rtx, "", "roofline unavailable: the model is unknown"},
		{"not in the cache", rtx, "org/not-downloaded", "roofline unavailable: no config.json of org/not-downloaded in the Hugging Face cache"},
	} {
		if got := ForServer(tc.h, tc.model, ServerFacts{}); got.Available() || !strings.HasPrefix(got.Unavailable, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got.Unavailable, tc.want)
		}
	}
}

// The GPU of a DGX H200 as NVML reports it (6,144-bit bus at 3,201 MHz):
// its bandwidth from NVML, its peaks from the table's H200 row.
func TestRooflineFactsFromNVML(t *testing.T) {
	h, err := hw.DetectWith(nvmlmock.DGXH200())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(llamaConfig), 0o644)
	f := ForServer(engine.Report{Hardware: h.Info()}, dir, ServerFacts{TP: 1})
	if !f.Available() || f.GPU.BandwidthSource != "nvml" || int(f.GPU.BandwidthGBs) != 4916 || f.GPU.BF16TFLOPs != 989.5 ||
		!strings.HasPrefix(f.GPU.ComputeSource, "table: H200 SXM") {
		t.Errorf("H200 from NVML: %+v", f.GPU)
	}
}
