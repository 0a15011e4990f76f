package vllm

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
		{"eight identical", gpus(8, "H200", 141*gib, 0), "RedHatAI/gemma-4-E2B-it", 8, 131072, 0.90},
		{"heads do not divide", gpus(3, "H200", 141*gib, 0), "RedHatAI/gemma-4-E2B-it", 2, 131072, 0.90},
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
	if cfg.TensorParallelSize != 2 || cfg.MaxModelLen != 8192 || cfg.GPUMemoryUtilization != 0.9 {
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
	cfg, err := ModelConfig(dir)
	if err != nil || configMaxLen(cfg) != 40960 {
		t.Errorf("ModelConfig = %v, %v", cfg, err)
	}
	if _, err := ModelConfig(filepath.Join(dir, "nothing")); err == nil {
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

func TestHubCacheDir(t *testing.T) {
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HOME", "/data/hf")
	if got := HubCacheDir(); got != "/data/hf/hub" {
		t.Errorf("HubCacheDir = %s", got)
	}
	t.Setenv("HF_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if got := HubCacheDir(); got != "/xdg/huggingface/hub" {
		t.Errorf("HubCacheDir = %s", got)
	}
}
