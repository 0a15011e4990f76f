package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
)

const gib = 1 << 30

// fakeHub makes a Hugging Face hub cache with one model and returns its dir.
func fakeHub(t *testing.T, id, config string) string {
	t.Helper()
	hub := filepath.Join(t.TempDir(), "hub")
	repo := filepath.Join(hub, "models--"+strings.ReplaceAll(id, "/", "--"))
	writeFile(t, filepath.Join(repo, "refs", "main"), "abc123\n")
	writeFile(t, filepath.Join(repo, "snapshots", "abc123", "config.json"), config)
	writeFile(t, filepath.Join(repo, "snapshots", "old999", "config.json"), `{"max_position_embeddings": 2048}`)
	writeFile(t, filepath.Join(repo, "blobs", "b1"), strings.Repeat("w", 1000))
	writeFile(t, filepath.Join(repo, "blobs", "b2"), strings.Repeat("w", 24))
	t.Setenv("HF_HUB_CACHE", hub)
	return hub
}

func gpus(n int, name string, vram, used uint64) []engine.GPUInfo {
	var g []engine.GPUInfo
	for i := 0; i < n; i++ {
		g = append(g, engine.GPUInfo{Index: i, Name: name, VRAMBytes: vram, VRAMUsedBytes: used})
	}
	return g
}

func TestSuggest(t *testing.T) {
	fakeHub(t, "RedHatAI/gemma-4-E2B-it", `{"architectures": ["Gemma4ForConditionalGeneration"],
		"text_config": {"max_position_embeddings": 131072, "num_attention_heads": 8}}`)
	tests := []struct {
		name        string
		gpus        []engine.GPUInfo
		model       string
		tp, maxLen  int
		utilization float64
	}{
		{"one free GPU", gpus(1, "RTX PRO 6000", 96*gib, 0), "RedHatAI/gemma-4-E2B-it", 1, 131072, 0.90},
		{"desktop in use", gpus(1, "RTX 3090", 24*gib, 3*gib), "RedHatAI/gemma-4-E2B-it", 1, 131072, 0.85},
		{"eight identical, the model fits one", gpus(8, "H200", 141*gib, 0), "RedHatAI/gemma-4-E2B-it", 1, 131072, 0.90},
		{"mixed GPUs", append(gpus(2, "RTX 4090", 24*gib, gib), engine.GPUInfo{Name: "RTX 3060", VRAMBytes: 12 * gib}), "not/cached", 2, 0, 0.90},
		{"no GPU", nil, "not/cached", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Suggest(engine.HardwareInfo{GPUs: tt.gpus}, tt.model)
			if s.TensorParallelSize != tt.tp || s.MaxModelLen != tt.maxLen || s.GPUMemoryUtilization != tt.utilization {
				t.Errorf("Suggest = %+v, want tp %d, max len %d, utilization %.2f", s, tt.tp, tt.maxLen, tt.utilization)
			}
			if len(s.Notes) == 0 {
				t.Error("no notes")
			}
		})
	}
	cfg := Suggest(engine.HardwareInfo{GPUs: gpus(2, "H200", 141*gib, 0)}, "RedHatAI/gemma-4-E2B-it").
		Apply(ServerConfig{Model: "RedHatAI/gemma-4-E2B-it", MaxModelLen: 8192})
	if cfg.TensorParallelSize != 1 || cfg.MaxModelLen != 8192 || cfg.GPUMemoryUtilization != 0.9 {
		t.Errorf("Apply = %+v (must keep the user's max model len)", cfg)
	}
}

func TestSuggestBusyGPU(t *testing.T) {
	s := Suggest(engine.HardwareInfo{GPUs: gpus(1, "RTX 3090", 24*gib, 23*gib)}, "m")
	if s.GPUMemoryUtilization != 0.05 || !strings.Contains(strings.Join(s.Notes, "\n"), "stop them") {
		t.Errorf("Suggest = %+v", s)
	}
}

func TestModelConfigLocalDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "config.json"), `{"max_position_embeddings": 40960}`)
	cfg, err := modelConfig(dir)
	if err != nil || configMaxLen(cfg) != 40960 {
		t.Errorf("ModelConfig = %v, %v", cfg, err)
	}
	if _, err := modelConfig(filepath.Join(dir, "nothing")); err == nil {
		t.Error("a missing model has a config")
	}
}

func TestLocalModels(t *testing.T) {
	hub := fakeHub(t, "Qwen/Qwen3-0.6B", `{"max_position_embeddings": 40960}`)
	writeFile(t, filepath.Join(hub, "datasets--x--y", "refs", "main"), "z")
	if err := os.MkdirAll(filepath.Join(hub, "models--org--partial"), 0o755); err != nil {
		t.Fatal(err)
	}
	models, err := LocalModels()
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 || models[0].ID != "Qwen/Qwen3-0.6B" || models[0].MaxModelLen != 40960 || models[0].SizeBytes != 1024 ||
		filepath.Base(models[0].Dir) != "abc123" || models[1].ID != "org/partial" || models[1].Dir != "" {
		t.Errorf("LocalModels = %+v", models)
	}
	t.Setenv("HF_HUB_CACHE", filepath.Join(t.TempDir(), "none"))
	if models, err := LocalModels(); err != nil || len(models) != 0 {
		t.Errorf("missing cache: %v, %v", models, err)
	}
}

// addModel puts a model of weights bytes (a sparse blob) in the hub.
func addModel(t *testing.T, hub, id, config string, weights int64) {
	t.Helper()
	repo := filepath.Join(hub, "models--"+strings.ReplaceAll(id, "/", "--"))
	writeFile(t, filepath.Join(repo, "refs", "main"), "abc123\n")
	writeFile(t, filepath.Join(repo, "snapshots", "abc123", "config.json"), config)
	blob := writeFile(t, filepath.Join(repo, "blobs", "weights"), "")
	if err := os.Truncate(blob, weights); err != nil {
		t.Fatal(err)
	}
}

// TestSuggestTensorParallel: the smallest size whose share of the weights
// fits, never one that doesn't divide the attention heads.
func TestSuggestTensorParallel(t *testing.T) {
	hub := fakeHub(t, "tiny/model", `{"num_attention_heads": 8}`)
	addModel(t, hub, "meta-llama/Llama-3.1-70B-Instruct", `{"num_attention_heads": 64, "max_position_embeddings": 131072}`, 141e9)
	addModel(t, hub, "forty/heads", `{"num_attention_heads": 40}`, 60e9)
	addModel(t, hub, "no/config", `{}`, 30e9)
	tests := []struct {
		name  string
		gpus  []engine.GPUInfo
		model string
		tp    int
		note  string
	}{
		{"fits one: TP 1 and a hint at data parallel", gpus(2, "RTX 3090", 24*gib, 0), "tiny/model", 1, "data_parallel_size 2"},
		{"70B on H200s: TP 2", gpus(8, "H200", 141*gib, 0), "meta-llama/Llama-3.1-70B-Instruct", 2, "don't fit one H200, 2 do"},
		{"70B on 4090s: TP 8", gpus(8, "RTX 4090", 24*gib, 0), "meta-llama/Llama-3.1-70B-Instruct", 8, "8 do"},
		{"3 does not divide 40 heads: TP 4", gpus(4, "RTX 3090", 24*gib, 0), "forty/heads", 4, "don't divide the model's 40 attention heads"},
		{"fits nowhere, 3 GPUs: the largest that divides", gpus(3, "RTX 3090", 24*gib, 0), "forty/heads", 2, "not 3: the model's 40 attention heads"},
		{"heads unknown", gpus(2, "RTX 3090", 24*gib, 0), "no/config", 2, "don't fit one RTX 3090, 2 do"},
		{"size unknown: every GPU", gpus(4, "H200", 141*gib, 0), "not/cached", 4, "the model's size is unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Suggest(engine.HardwareInfo{GPUs: tt.gpus}, tt.model)
			if s.TensorParallelSize != tt.tp || !strings.Contains(s.Notes[0], tt.note) {
				t.Errorf("Suggest = TP %d, notes %q; want TP %d and a note with %q", s.TensorParallelSize, s.Notes, tt.tp, tt.note)
			}
		})
	}
}
