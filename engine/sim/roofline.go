package sim

import (
	"speedmatrix/engine"
	"speedmatrix/engine/roofline"
)

// Roofline is the physical setup a profile stands for: the published
// architecture of its model and vLLM's KV cache dtype. Its GPU is
// Profile.GPUName, looked up in the roofline's GPU table.
type Roofline struct {
	Arch         roofline.Arch
	KVCacheDType string // vLLM's --kv-cache-dtype; "" for the model's dtype
}

// RooflineFacts are the roofline facts of a run against p, nil for a
// profile that states none (tiny).
func (p Profile) RooflineFacts() *engine.RooflineFacts {
	if p.Roofline == nil {
		return nil
	}
	g, err := roofline.NewGPU(p.GPUName, p.GPURig().Count, 0)
	if err != nil {
		return engine.RooflineUnavailable(err)
	}
	m, err := p.Roofline.Arch.Model(p.Model, p.Roofline.KVCacheDType, "simulated profile (the model's published config.json)")
	if err != nil {
		return engine.RooflineUnavailable(err)
	}
	return engine.NewRoofline(g, m)
}

// layerTypes marks every n-th layer of layers full attention, the others
// sliding: gemma's layer_types.
func layerTypes(layers, n int) []bool {
	s := make([]bool, layers)
	for i := range s {
		s[i] = (i+1)%n != 0
	}
	return s
}

// gemma4E2BArch is google/gemma-4-E2B-it's text_config (config.json on
// Hugging Face): 35 layers of 1,536, 8 query heads and 1 KV head of 256
// (512 in the full-attention layers, every 5th), a 512-token window, the
// last 20 layers sharing earlier layers' KV cache with a double-wide MLP,
// per-layer embeddings of 256, a tied vocabulary of 262,144; BF16.
func gemma4E2BArch() roofline.Arch {
	return roofline.Arch{ModelType: "gemma4_text", Layers: 35, Hidden: 1536, Heads: 8, KVHeads: 1, HeadDim: 256,
		FullHeadDim: 512, Intermediate: 6144, KVSharedLayers: 20, DoubleWideShared: true,
		Vocab: 262144, TiedEmbeddings: true, PerLayerInput: 256, SlidingWindow: 512, Sliding: layerTypes(35, 5),
		WeightDType: "BF16", DType: "BF16"}
}

// gemma4_26BA4BArch is google/gemma-4-26B-A4B-it's text_config: 30 layers
// of 2,816, 16 query heads, 8 KV heads of 256 in the sliding layers (window
// 1,024) and 2 of 512 with keys as values in the full ones (every 6th), a
// dense MLP of 2,112 beside 128 experts of 704 (8 per token), a tied
// vocabulary of 262,144; RedHatAI's checkpoint stores the linear layers in
// NVFP4, the rest in BF16.
func gemma4_26BA4BArch() roofline.Arch {
	return roofline.Arch{ModelType: "gemma4_text", Layers: 30, Hidden: 2816, Heads: 16, KVHeads: 8, HeadDim: 256,
		FullHeadDim: 512, FullKVHeads: 2, FullKEqV: true, Intermediate: 2112,
		Experts: 128, ExpertsPerToken: 8, ExpertIntermediate: 704,
		Vocab: 262144, TiedEmbeddings: true, SlidingWindow: 1024, Sliding: layerTypes(30, 6),
		WeightDType: "NVFP4", DType: "BF16"}
}

// llama33_70BArch is meta-llama/Llama-3.3-70B-Instruct's config.json: 80
// layers of 8,192, 64 query heads and 8 KV heads of 128, an MLP of 28,672,
// an untied vocabulary of 128,256; the AWQ checkpoint stores the linear
// layers in 4 bits with a scale and zero point per group of 128.
func llama33_70BArch() roofline.Arch {
	return roofline.Arch{ModelType: "llama", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128,
		Intermediate: 28672, Vocab: 128256, WeightDType: "INT4", DType: "BF16"}
}
