package roofline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/hfcache"
)

// rawConfig is the part of a Hugging Face config.json the roofline reads.
// Multimodal models (gemma 3 and 4, llava) nest the language model's under
// one of hfcache.LanguageSections.
type rawConfig struct {
	ModelType       string    `json:"model_type"`
	Layers          int       `json:"num_hidden_layers"`
	Hidden          int       `json:"hidden_size"`
	Heads           int       `json:"num_attention_heads"`
	KVHeads         int       `json:"num_key_value_heads"`
	HeadDim         int       `json:"head_dim"`
	GlobalHeadDim   int       `json:"global_head_dim"`
	GlobalKVHeads   int       `json:"num_global_key_value_heads"`
	KEqV            bool      `json:"attention_k_eq_v"`
	Intermediate    int       `json:"intermediate_size"`
	KVShared        int       `json:"num_kv_shared_layers"`
	DoubleWide      bool      `json:"use_double_wide_mlp"`
	EnableMoEBlock  bool      `json:"enable_moe_block"`
	NumExperts      int       `json:"num_experts"`
	NumLocalExperts int       `json:"num_local_experts"`
	TopKExperts     int       `json:"top_k_experts"`
	ExpertsPerTok   int       `json:"num_experts_per_tok"`
	MoEIntermediate int       `json:"moe_intermediate_size"`
	SharedExpert    int       `json:"shared_expert_intermediate_size"`
	Vocab           int       `json:"vocab_size"`
	Tied            *bool     `json:"tie_word_embeddings"`
	PerLayerInput   int       `json:"hidden_size_per_layer_input"`
	SlidingWindow   int       `json:"sliding_window"`
	LayerTypes      []string  `json:"layer_types"`
	TorchDType      string    `json:"torch_dtype"`
	DType           string    `json:"dtype"`
	KVLoRARank      int       `json:"kv_lora_rank"`
	Quantization    *rawQuant `json:"quantization_config"`
}

type rawQuant struct {
	Method string `json:"quant_method"`
	Format string `json:"format"`
	Bits   int    `json:"bits"`
	// compressed-tensors keeps the scheme in config_groups.
	Groups map[string]struct {
		Weights struct {
			NumBits int    `json:"num_bits"`
			Type    string `json:"type"`
		} `json:"weights"`
	} `json:"config_groups"`
}

// parseConfig reads a Hugging Face config.json: the language model's
// architecture (nested under one of hfcache.LanguageSections when there is
// one), its dtype and its quantization.
func parseConfig(data []byte) (Arch, error) {
	var outer rawConfig
	if err := json.Unmarshal(data, &outer); err != nil {
		return Arch{}, fmt.Errorf("read config.json: %w", err)
	}
	c := outer
	if raw, ok := hfcache.LanguageConfig(data); ok {
		c = rawConfig{}
		if err := json.Unmarshal(raw, &c); err != nil {
			return Arch{}, fmt.Errorf("read config.json: %w", err)
		}
		if c.Tied == nil {
			c.Tied = outer.Tied
		}
		if c.Quantization == nil {
			c.Quantization = outer.Quantization
		}
		if c.TorchDType == "" && c.DType == "" {
			c.TorchDType, c.DType = outer.TorchDType, outer.DType
		}
	}
	engine.BoundStrings(&c) // a downloaded file: its names reach the report
	if c.KVLoRARank > 0 {
		return Arch{}, fmt.Errorf("roofline unavailable: %s uses multi-head latent attention, which the roofline does not model", c.ModelType)
	}
	a := Arch{ModelType: c.ModelType, Layers: c.Layers, Hidden: c.Hidden, Heads: c.Heads, KVHeads: c.KVHeads,
		HeadDim: c.HeadDim, FullHeadDim: c.GlobalHeadDim, FullKVHeads: c.GlobalKVHeads, FullKEqV: c.KEqV,
		Intermediate: c.Intermediate, KVSharedLayers: c.KVShared, DoubleWideShared: c.DoubleWide,
		Vocab: c.Vocab, TiedEmbeddings: c.Tied != nil && *c.Tied, PerLayerInput: c.PerLayerInput,
		SlidingWindow: c.SlidingWindow, SharedExpertIntermediate: c.SharedExpert}
	if a.KVHeads == 0 {
		a.KVHeads = a.Heads // multi-head attention
	}
	if a.HeadDim == 0 && a.Heads > 0 {
		a.HeadDim = a.Hidden / a.Heads
	}
	a.Experts = max(c.NumExperts, c.NumLocalExperts)
	a.ExpertsPerToken = max(c.TopKExperts, c.ExpertsPerTok)
	a.ExpertIntermediate = c.MoEIntermediate
	if a.Experts > 0 && !c.EnableMoEBlock {
		// Mixtral-style (intermediate_size is an expert's width) and
		// Qwen-MoE-style (moe_intermediate_size): every MLP is routed.
		if a.ExpertIntermediate == 0 {
			a.ExpertIntermediate = a.Intermediate
		}
		a.Intermediate = 0
	}
	if len(c.LayerTypes) > 0 {
		a.Sliding = make([]bool, len(c.LayerTypes))
		for i, t := range c.LayerTypes {
			a.Sliding[i] = strings.Contains(t, "sliding")
		}
	} else if a.SlidingWindow > 0 && c.ModelType == "mistral" {
		a.Sliding = make([]bool, a.Layers)
		for i := range a.Sliding {
			a.Sliding[i] = true
		}
	}
	if len(a.Sliding) == 0 {
		a.SlidingWindow = 0
	}
	a.DType = dtypeName(c.TorchDType + c.DType)
	a.WeightDType = a.DType
	if q := c.Quantization; q != nil {
		wd, err := q.weightDType()
		if err != nil {
			return Arch{}, err
		}
		a.WeightDType = wd
	}
	return a, a.check()
}

func dtypeName(s string) string {
	switch strings.ToLower(s) {
	case "float32":
		return "FP32"
	case "float16":
		return "FP16"
	default:
		return "BF16"
	}
}

// weightDType names the stored weights' dtype from quantization_config.
func (q rawQuant) weightDType() (string, error) {
	method := strings.ToLower(q.Method)
	switch {
	case strings.Contains(strings.ToLower(q.Format), "nvfp4"), method == "modelopt_fp4":
		return "NVFP4", nil
	case method == "mxfp4":
		return "MXFP4", nil
	case method == "fp8" || strings.Contains(strings.ToLower(q.Format), "float-quantized"):
		return "FP8", nil
	case method == "gptq" || method == "awq" || method == "bitsandbytes":
		if q.Bits == 8 {
			return "INT8", nil
		}
		return "INT4", nil
	case method == "compressed-tensors":
		for _, g := range q.Groups {
			switch {
			case g.Weights.NumBits == 4 && g.Weights.Type == "float":
				return "NVFP4", nil
			case g.Weights.NumBits == 4:
				return "INT4", nil
			case g.Weights.NumBits == 8 && g.Weights.Type == "float":
				return "FP8", nil
			case g.Weights.NumBits == 8:
				return "INT8", nil
			}
		}
	}
	return "", fmt.Errorf("roofline unavailable: unknown quantization %q (format %q)", q.Method, q.Format)
}

// indexBytes is the weights' size on disk from model.safetensors.index.json
// beside config.json (metadata.total_size); 0 when there is none.
func indexBytes(configPath string) float64 {
	data, err := os.ReadFile(filepath.Join(filepath.Dir(configPath), "model.safetensors.index.json"))
	if err != nil {
		return 0
	}
	var idx struct {
		Metadata struct {
			TotalSize float64 `json:"total_size"`
		} `json:"metadata"`
	}
	if json.Unmarshal(data, &idx) != nil {
		return 0
	}
	return idx.Metadata.TotalSize
}

// fromConfig reads the model facts of model (a Hugging Face id or a local
// directory) from its config.json; kvCacheDType is vLLM's --kv-cache-dtype.
func fromConfig(model, kvCacheDType string) (engine.RooflineModel, error) {
	path, err := hfcache.ConfigPath(model)
	if err != nil {
		return engine.RooflineModel{}, fmt.Errorf("roofline unavailable: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return engine.RooflineModel{}, fmt.Errorf("roofline unavailable: %w", err)
	}
	a, err := parseConfig(data)
	if err != nil {
		return engine.RooflineModel{}, err
	}
	m, err := a.Model(model, kvCacheDType, "config.json")
	if err != nil {
		return engine.RooflineModel{}, err
	}
	if disk := indexBytes(path); disk > 0 {
		m.Sources["weights_on_disk"] = fmt.Sprintf("model.safetensors.index.json: %.2f GB", disk/1e9)
	}
	return m, nil
}
