package roofline

import "speedmatrix/engine"

const gib = 1 << 30

// applyLog puts what vLLM's start-up log measured over what the config
// predicts: the weights on the GPU ("Model loading took X GiB") and the KV
// cache per token ("Available KV cache memory: Y GiB" ÷ "GPU KV cache
// size: N tokens"). A model with sliding-window layers keeps the config's
// KV figures: vLLM's token count then mixes the two kinds of layer.
func applyLog(m *engine.RooflineModel, weightGiB, kvGiB float64, kvTokens int) {
	if m.Sources == nil {
		m.Sources = map[string]string{}
	}
	if weightGiB > 0 {
		m.WeightBytes = weightGiB * gib
		m.Sources["weights"] = "vllm log (bytes read per step: " + sourceOr(m, "architecture", "assumed dense") + ")"
	}
	if kvGiB > 0 && kvTokens > 0 && m.SlidingKVBytesPerToken == 0 {
		m.KVBytesPerToken = kvGiB * gib / float64(kvTokens)
		m.Sources["kv_cache"] = "vllm log"
	}
}

func sourceOr(m *engine.RooflineModel, key, fallback string) string {
	if s := m.Sources[key]; s != "" {
		return s
	}
	return fallback
}

// fromLog is the model facts from vLLM's log alone, when no config.json is
// at hand: the model is taken as dense (every weight read each step) and
// its FLOPs are unknown, so there is no compute bound and no prefill
// ceiling.
func fromLog(name, weightDType string, weightGiB, kvGiB float64, kvTokens int) engine.RooflineModel {
	m := engine.RooflineModel{Name: name, WeightDType: weightDType, ComputeDType: computeDType(weightDType), Sources: map[string]string{}}
	applyLog(&m, weightGiB, kvGiB, kvTokens)
	m.StepBytes = m.WeightBytes
	return m
}
