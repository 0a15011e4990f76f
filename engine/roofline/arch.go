package roofline

import (
	"fmt"
	"speedmatrix/engine"
	"strings"
)

// Arch is a model's published architecture, as its config.json states it
// (parseConfig reads one; the simulator's profiles state theirs).
type Arch struct {
	ModelType                      string
	Layers, Hidden, Heads, KVHeads int
	HeadDim                        int
	// FullHeadDim and FullKVHeads are the full-attention layers' when they
	// differ from the sliding ones' (gemma 4's global_head_dim and
	// num_global_key_value_heads); 0: the same.
	FullHeadDim, FullKVHeads int
	// FullKEqV: full-attention layers use their keys as values, so their
	// cache holds K only (gemma 4's attention_k_eq_v).
	FullKEqV     bool
	Intermediate int // the dense MLP's width; 0 when every layer's MLP is routed experts
	// KVSharedLayers is how many last layers reuse an earlier layer's KV
	// cache (gemma's num_kv_shared_layers); DoubleWideShared says their MLP
	// is twice as wide (use_double_wide_mlp).
	KVSharedLayers   int
	DoubleWideShared bool
	// Experts, ExpertsPerToken and ExpertIntermediate describe routed
	// experts in every layer; SharedExpertIntermediate an always-active
	// shared expert's width.
	Experts, ExpertsPerToken, ExpertIntermediate int
	SharedExpertIntermediate                     int
	Vocab                                        int
	TiedEmbeddings                               bool
	// PerLayerInput is gemma's per-layer embedding width
	// (hidden_size_per_layer_input): a table looked up per token, plus
	// two small projections per layer.
	PerLayerInput int
	SlidingWindow int
	// Sliding says which layers use the sliding window (layer_types);
	// nil: none.
	Sliding []bool
	// WeightDType is how the weights are stored (BF16, FP16, FP32, FP8,
	// INT8, NVFP4, MXFP4, INT4); DType the unquantized tensors' dtype.
	WeightDType, DType string
}

// Bytes per stored parameter by weight dtype: the values plus their scales
// (NVFP4 one FP8 scale per 16 values, MXFP4 one per 32, INT4 an FP16 scale
// and a 4-bit zero point per group of 128).
var bytesPerParam = map[string]float64{
	"FP32": 4, "BF16": 2, "FP16": 2, "FP8": 1, "INT8": 1,
	"NVFP4": 0.5 + 1.0/16, "MXFP4": 0.5 + 1.0/32, "INT4": 0.5 + 2.5/128,
}

// computeDType is the tensor-core dtype a weight dtype's matrix products
// run in on a GPU that has it: FP8 checkpoints in FP8, NVFP4 and MXFP4 in
// FP4; weight-only INT4/INT8 and unquantized ones in BF16.
func computeDType(weightDType string) string {
	switch weightDType {
	case "FP8":
		return engine.FP8
	case "NVFP4", "MXFP4":
		return engine.FP4
	default:
		return engine.BF16
	}
}

// kvBytes is the bytes of one cached element by vLLM's --kv-cache-dtype,
// with per-(token, head) scales: modelBytes for "auto".
func kvBytes(kvCacheDType string, modelBytes float64) (perElem, perHead float64) {
	switch d := strings.ToLower(kvCacheDType); {
	case d == "" || d == "auto":
		return modelBytes, 0
	case strings.HasPrefix(d, "fp8"):
		return 1, 0
	case strings.HasPrefix(d, "int4"):
		return 0.5, 4 // one FP32 scale per token and head
	case strings.HasPrefix(d, "int8"):
		return 1, 4
	default:
		return 2, 0
	}
}

// Model derives the model facts from a: the bytes a decode step reads, the
// KV cache per token and the FLOPs per token. kvCacheDType is vLLM's
// --kv-cache-dtype ("" or "auto": the model's dtype); source names where
// a came from ("config.json", "simulated profile").
func (a Arch) Model(name, kvCacheDType, source string) (engine.RooflineModel, error) {
	if err := a.check(); err != nil {
		return engine.RooflineModel{}, err
	}
	wb, ok := bytesPerParam[a.WeightDType]
	if !ok {
		return engine.RooflineModel{}, fmt.Errorf("roofline unavailable: unknown weight dtype %q", a.WeightDType)
	}
	db, ok := bytesPerParam[a.DType]
	if !ok {
		db = 2
	}
	kvElem, kvHead := kvBytes(kvCacheDType, db)
	h := float64(a.Hidden)
	m := engine.RooflineModel{Name: name, WeightDType: a.WeightDType, ComputeDType: computeDType(a.WeightDType),
		KVCacheDType: kvCacheDType, SlidingWindow: a.SlidingWindow}
	var layerParams, attnPairs, slidingPairs, kv, slidingKV float64
	for i := 0; i < a.Layers; i++ {
		sliding := i < len(a.Sliding) && a.Sliding[i] && a.SlidingWindow > 0
		shared := i >= a.Layers-a.KVSharedLayers
		hd, kvh := float64(a.HeadDim), float64(a.KVHeads)
		kOnly := false
		if !sliding {
			if a.FullHeadDim > 0 {
				hd = float64(a.FullHeadDim)
			}
			if a.FullKVHeads > 0 {
				kvh = float64(a.FullKVHeads)
			}
			kOnly = a.FullKEqV
		}
		kvProj := 2.0
		if kOnly {
			kvProj = 1
		}
		q := h * float64(a.Heads) * hd
		layerParams += 2 * q // q and o projections
		pair := 4 * float64(a.Heads) * hd
		if sliding {
			slidingPairs += pair
		} else {
			attnPairs += pair
		}
		if !shared {
			layerParams += kvProj * h * kvh * hd
			perToken := kvProj * kvh * (hd*kvElem + kvHead)
			if sliding {
				slidingKV += perToken
			} else {
				kv += perToken
			}
		}
		width := float64(a.Intermediate)
		if shared && a.DoubleWideShared {
			width *= 2
		}
		layerParams += 3 * h * width // gated MLP: gate, up, down
		layerParams += 3 * h * float64(a.SharedExpertIntermediate)
		layerParams += 2 * h * float64(a.PerLayerInput)
		if a.Experts > 0 {
			layerParams += h * float64(a.Experts) // router
		}
	}
	lmHead := float64(a.Vocab) * h
	pleProj := h * float64(a.Layers*a.PerLayerInput)
	expert := 3 * h * float64(a.ExpertIntermediate)
	m.StepBytes = (layerParams+pleProj)*wb + lmHead*db
	m.LMHeadParams = lmHead
	m.ActiveParams = layerParams + pleProj + lmHead
	if a.Experts > 0 {
		m.Experts, m.ExpertsPerToken, m.MoELayers = a.Experts, a.ExpertsPerToken, a.Layers
		m.ExpertBytes = expert * wb
		m.ActiveParams += float64(a.Layers*a.ExpertsPerToken) * expert
	}
	m.WeightBytes = m.StepBytes + float64(a.Layers*a.Experts)*m.ExpertBytes
	if !a.TiedEmbeddings {
		m.WeightBytes += lmHead * db // the input embeddings, looked up, not read
	}
	m.WeightBytes += float64(a.Vocab*a.Layers*a.PerLayerInput) * db
	m.KVBytesPerToken, m.SlidingKVBytesPerToken = kv, slidingKV
	m.AttnFLOPsPerPair, m.SlidingAttnFLOPsPerPair = attnPairs, slidingPairs
	m.Sources = map[string]string{"architecture": source, "weights": source, "kv_cache": source}
	return m, nil
}

func (a Arch) check() error {
	var missing []string
	for _, f := range []struct {
		name string
		v    int
	}{{"num_hidden_layers", a.Layers}, {"hidden_size", a.Hidden}, {"num_attention_heads", a.Heads},
		{"num_key_value_heads", a.KVHeads}, {"head_dim", a.HeadDim}, {"vocab_size", a.Vocab}} {
		if f.v <= 0 {
			missing = append(missing, f.name)
		}
	}
	if a.Intermediate <= 0 && a.Experts <= 0 {
		missing = append(missing, "intermediate_size")
	}
	if a.Experts > 0 && (a.ExpertsPerToken <= 0 || a.ExpertIntermediate <= 0) {
		missing = append(missing, "experts per token and expert width")
	}
	if len(missing) > 0 {
		return fmt.Errorf("roofline unavailable: the model's %s is missing", strings.Join(missing, ", "))
	}
	for _, v := range []int{a.FullHeadDim, a.FullKVHeads, a.Intermediate, a.KVSharedLayers, a.Experts, a.ExpertsPerToken,
		a.ExpertIntermediate, a.SharedExpertIntermediate, a.PerLayerInput, a.SlidingWindow} {
		if v < 0 {
			return fmt.Errorf("roofline unavailable: the model's config.json has a negative size")
		}
	}
	if a.KVSharedLayers > a.Layers || a.ExpertsPerToken > a.Experts {
		return fmt.Errorf("roofline unavailable: the model's config.json shares more layers or picks more experts than it has")
	}
	return nil
}
