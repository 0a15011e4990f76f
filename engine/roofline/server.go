package roofline

import (
	"errors"
	"fmt"

	"speedmatrix/engine"
)

// ServerFacts is what a server launched here tells the roofline: from its
// start-up log the weights and KV cache it holds and the dtype of its
// weights; its tensor-parallel size and KV cache dtype from its settings.
// A zero value stands for a server someone else started.
type ServerFacts struct {
	WeightGiB, KVCacheGiB float64 // "Model loading took X GiB", "Available KV cache memory: Y GiB"
	KVCacheTokens         int     // "GPU KV cache size: N tokens"
	WeightDType           string  // "BF16", "FP8", "INT4", "FP32"
	TP                    int
	KVCacheDType          string
}

// ForServer gathers the roofline facts of a run from its header: the
// serving GPU from the Hardware section (NVML's bandwidth, the table's
// peaks), the model from vLLM's log when we launched it and from its
// config.json (model is its Hugging Face id or folder). What is missing makes the facts
// unavailable, saying which.
func ForServer(h engine.Report, model string, s ServerFacts) *engine.RooflineFacts {
	if h.Hardware.OnCPU() {
		return engine.RooflineUnavailable(errors.New("roofline unavailable: the server ran on the CPU, and the roofline models a GPU's bandwidth and compute"))
	}
	if len(h.Hardware.GPUs) == 0 {
		return engine.RooflineUnavailable(errors.New("roofline unavailable: no GPU detected on this machine"))
	}
	g := h.Hardware.GPUs[0]
	gpu, err := NewGPU(g.Name, max(s.TP, 1), g.PeakBandwidthGBs)
	if err != nil {
		return engine.RooflineUnavailable(err)
	}
	if model == "" {
		return engine.RooflineUnavailable(errors.New("roofline unavailable: the model is unknown"))
	}
	m, err := fromConfig(model, s.KVCacheDType)
	switch {
	case err == nil:
		applyLog(&m, s.WeightGiB, s.KVCacheGiB, s.KVCacheTokens)
	case s.WeightGiB > 0:
		m = fromLog(model, s.WeightDType, s.WeightGiB, s.KVCacheGiB, s.KVCacheTokens)
	default:
		return engine.RooflineUnavailable(err)
	}
	f := engine.NewRoofline(gpu, m)
	if s.TP == 0 {
		f.Assumptions = append(f.Assumptions, fmt.Sprintf("one %s serves the model (the server's tensor-parallel size is unknown)", g.Name))
	}
	if err != nil {
		f.Assumptions = append(f.Assumptions, "no config.json: every weight vLLM loaded is read each step, and the FLOPs are unknown (no compute bound, no prefill ceiling)")
	}
	return f
}
