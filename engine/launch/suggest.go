package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/hfcache"
)

// Suggestion holds settings derived from the hardware and, when the model is
// in the local Hugging Face cache, from its config.json.
type Suggestion struct {
	TensorParallelSize   int
	GPUMemoryUtilization float64
	MaxModelLen          int      // 0 when the model's config.json is not at hand
	Notes                []string // why each value was chosen
}

// maxSuggestedUtilization is vLLM's own default; more is the user's call.
const maxSuggestedUtilization = 0.90

// Suggest derives settings for model from hw: a GPU memory utilization
// that leaves what other processes already use, a tensor-parallel size over
// the identical GPUs (see suggestTP), and the model's maximum length from
// its config.json in the local HF cache.
func Suggest(hw engine.HardwareInfo, model string) Suggestion {
	var s Suggestion
	cfg, _ := modelConfig(model)
	gpus := identicalGPUs(hw.GPUs)
	if len(gpus) == 0 {
		s.Notes = append(s.Notes, "no GPU detected: tensor-parallel size and memory utilization left to vLLM")
	} else {
		var note string
		s.GPUMemoryUtilization, s.Notes = suggestUtilization(gpus, s.Notes)
		s.TensorParallelSize, note = suggestTP(gpus, configInt(cfg, "num_attention_heads"), modelWeightBytes(model), s.GPUMemoryUtilization)
		s.Notes = append([]string{note}, s.Notes...)
	}
	if n := configMaxLen(cfg); n > 0 {
		s.MaxModelLen = n
		s.Notes = append(s.Notes, fmt.Sprintf("max model length %d from the model's config.json", n))
	}
	return s
}

// weightShare is the part of vLLM's share of a GPU's memory the weights may
// take; the rest is for the KV cache and activations.
const weightShare = 0.8

// suggestTP is the smallest tensor-parallel size over gpus (identical) whose
// share of the weights fits each GPU's budget (VRAM × utilization ×
// weightShare), and why. A size that does not divide the model's attention
// heads (when its config is known) is never chosen. Without the weights'
// size it spreads the model over every GPU, as far as the heads allow.
func suggestTP(gpus []engine.GPUInfo, heads int, weights int64, utilization float64) (int, string) {
	n := len(gpus)
	divides := func(t int) bool { return heads == 0 || heads%t == 0 }
	largest := n
	for !divides(largest) {
		largest--
	}
	headsNote := ""
	if largest < n {
		headsNote = fmt.Sprintf("; not %d: the model's %d attention heads must divide evenly", n, heads)
	}
	if weights <= 0 {
		return largest, fmt.Sprintf("tensor-parallel size %d over %d identical %s (the model's size is unknown: it is not in the local Hugging Face cache)%s",
			largest, n, gpus[0].Name, headsNote)
	}
	budget := float64(gpus[0].VRAMBytes) * utilization * weightShare
	size := fmt.Sprintf("the weights (%s)", gbText(float64(weights)))
	for t := 1; t <= n; t++ {
		if !divides(t) || float64(weights)/float64(t) > budget {
			continue
		}
		if t == 1 {
			note := fmt.Sprintf("tensor-parallel size 1: %s fit one %s", size, gpus[0].Name)
			if n > 1 {
				note += fmt.Sprintf(" (data_parallel_size %d would serve a copy on each of the %d GPUs)", n, n)
			}
			return 1, note
		}
		return t, fmt.Sprintf("tensor-parallel size %d: %s don't fit %s, %d do (%s each for weights)%s",
			t, size, gpusText(t-1, gpus[0].Name), t, gbText(budget), dividesNote(t, n, heads))
	}
	return largest, fmt.Sprintf("tensor-parallel size %d: even %s can't hold %s with room for the KV cache: use a quantized model, or pipeline_parallel_size over more nodes (Ray)%s",
		largest, gpusText(largest, gpus[0].Name), size, headsNote)
}

// dividesNote names the sizes between skipped because of the heads.
func dividesNote(t, n, heads int) string {
	if heads == 0 || t == 1 {
		return ""
	}
	for s := t - 1; s >= 2; s-- {
		if heads%s != 0 {
			return fmt.Sprintf("; sizes that don't divide the model's %d attention heads skipped", heads)
		}
	}
	return ""
}

func gpusText(n int, name string) string {
	if n == 1 {
		return "one " + name
	}
	return fmt.Sprintf("%d× %s", n, name)
}

func gbText(bytes float64) string {
	if bytes < 10e9 {
		return fmt.Sprintf("%.1f GB", bytes/1e9)
	}
	return fmt.Sprintf("%.0f GB", bytes/1e9)
}

// modelWeightBytes is the size of model's files: a local directory's
// *.safetensors and *.bin, or an HF id's downloaded blobs; 0 when unknown.
func modelWeightBytes(model string) int64 {
	if st, err := os.Stat(model); err == nil && st.IsDir() {
		var n int64
		for _, pattern := range []string{"*.safetensors", "*.bin"} {
			paths, _ := filepath.Glob(filepath.Join(model, pattern))
			for _, p := range paths {
				if info, err := os.Stat(p); err == nil {
					n += info.Size()
				}
			}
		}
		return n
	}
	return dirSize(filepath.Join(hfcache.RepoDir(hfcache.HubDir(), model), "blobs"))
}

// suggestUtilization leaves the memory other processes use plus 2 % spare.
func suggestUtilization(gpus []engine.GPUInfo, notes []string) (float64, []string) {
	usedFrac := 0.0
	for _, g := range gpus {
		if g.VRAMBytes > 0 {
			usedFrac = math.Max(usedFrac, float64(g.VRAMUsedBytes)/float64(g.VRAMBytes))
		}
	}
	u := math.Floor((1-usedFrac-0.02)*100) / 100
	if u > maxSuggestedUtilization {
		u = maxSuggestedUtilization
	}
	if u < 0.05 {
		return 0.05, append(notes, fmt.Sprintf("other processes use %.0f %% of GPU memory: stop them before starting vLLM", usedFrac*100))
	}
	return u, append(notes, fmt.Sprintf("GPU memory utilization %.2f: other processes use %.0f %% of GPU memory", u, usedFrac*100))
}

// Apply fills cfg's tensor-parallel size, memory utilization and max model
// length from s where cfg leaves them at zero.
func (s Suggestion) Apply(cfg ServerConfig) ServerConfig {
	if cfg.TensorParallelSize == 0 {
		cfg.TensorParallelSize = s.TensorParallelSize
	}
	if cfg.GPUMemoryUtilization == 0 {
		cfg.GPUMemoryUtilization = s.GPUMemoryUtilization
	}
	if cfg.MaxModelLen == 0 {
		cfg.MaxModelLen = s.MaxModelLen
	}
	return cfg
}

// identicalGPUs returns the largest set of GPUs with the same name and memory.
func identicalGPUs(gpus []engine.GPUInfo) []engine.GPUInfo {
	groups := map[string][]engine.GPUInfo{}
	var best string
	for _, g := range gpus {
		k := fmt.Sprintf("%s/%d", g.Name, g.VRAMBytes)
		groups[k] = append(groups[k], g)
		if len(groups[k]) > len(groups[best]) {
			best = k
		}
	}
	return groups[best]
}

// LocalModel is a model found in the local Hugging Face cache.
type LocalModel struct {
	ID          string // "ORG/NAME"
	Dir         string // the snapshot holding config.json
	MaxModelLen int    // from config.json, 0 when unknown
	SizeBytes   int64  // downloaded files
}

// LocalModels lists the models in the local Hugging Face cache (hfcache.HubDir),
// sorted by id; a missing cache is an empty list.
func LocalModels() ([]LocalModel, error) {
	return localModelsIn(hfcache.HubDir())
}

func localModelsIn(hub string) ([]LocalModel, error) {
	entries, err := os.ReadDir(hub)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list local models: %w", err)
	}
	var models []LocalModel
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), "models--")
		if !ok || !e.IsDir() {
			continue
		}
		m := LocalModel{ID: strings.Replace(name, "--", "/", 1)}
		repo := filepath.Join(hub, e.Name())
		if p, ok := hfcache.SnapshotConfig(repo); ok {
			m.Dir = filepath.Dir(p)
			cfg, _ := readConfig(p)
			m.MaxModelLen = configMaxLen(cfg)
		}
		m.SizeBytes = dirSize(filepath.Join(repo, "blobs"))
		models = append(models, m)
	}
	sort.Slice(models, func(i, j int) bool { return models[i].ID < models[j].ID })
	return models, nil
}

// modelConfig reads config.json of model: a local directory, or an HF id
// found in the local cache.
func modelConfig(model string) (map[string]any, error) {
	p, err := hfcache.ConfigPath(model)
	if err != nil {
		return nil, err
	}
	return readConfig(p)
}

func readConfig(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read model config: %w", err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("read model config %s: %w", path, err)
	}
	return cfg, nil
}

// configMaxLen is the model's maximum context from its config.json.
func configMaxLen(cfg map[string]any) int {
	for _, k := range []string{"max_position_embeddings", "max_sequence_length", "seq_length", "n_positions", "max_seq_len"} {
		if n := configInt(cfg, k); n > 0 {
			return n
		}
	}
	return 0
}

// configInt reads an integer key at the top level of config.json or in the
// nested config of a multimodal model's language part.
func configInt(cfg map[string]any, key string) int {
	if v, ok := cfg[key].(float64); ok && v > 0 && v < math.MaxInt32 {
		return int(v)
	}
	for _, sub := range hfcache.LanguageSections {
		if m, ok := cfg[sub].(map[string]any); ok {
			if v, ok := m[key].(float64); ok && v > 0 && v < math.MaxInt32 {
				return int(v)
			}
		}
	}
	return 0
}

func dirSize(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}
