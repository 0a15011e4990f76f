package vllm

import (
	"errors"
	"fmt"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/roofline"
)

// ServerFacts is what a launched server tells the roofline: its start-up
// log's facts, its tensor-parallel size and KV cache dtype. A zero value
// stands for a server someone else started.
type ServerFacts struct {
	Log          LogFacts
	TP           int
	KVCacheDType string
}

// RooflineFacts is what s tells the roofline.
func (s *Server) RooflineFacts() ServerFacts {
	return ServerFacts{Log: s.Facts(), TP: max(s.cfg.TensorParallelSize, 1), KVCacheDType: s.cfg.KVCacheDType}
}

// Roofline gathers the roofline facts of a run from its header: the
// serving GPU from the Hardware section (NVML's bandwidth, the table's
// peaks), the model from vLLM's log when we launched it and from its
// config.json (model is its Hugging Face id or folder). What is missing makes the facts
// unavailable, saying which.
func Roofline(h engine.Report, model string, s ServerFacts) *engine.RooflineFacts {
	if h.Hardware.OnCPU() {
		return engine.RooflineUnavailable(errors.New("roofline unavailable: the server ran on the CPU, and the roofline models a GPU's bandwidth and compute"))
	}
	if len(h.Hardware.GPUs) == 0 {
		return engine.RooflineUnavailable(errors.New("roofline unavailable: no GPU detected on this machine"))
	}
	g := h.Hardware.GPUs[0]
	gpu, err := roofline.NewGPU(g.Name, max(s.TP, 1), g.PeakBandwidthGBs)
	if err != nil {
		return engine.RooflineUnavailable(err)
	}
	if model == "" {
		return engine.RooflineUnavailable(errors.New("roofline unavailable: the model is unknown"))
	}
	m, err := roofline.FromConfig(model, s.KVCacheDType)
	switch {
	case err == nil:
		roofline.ApplyLog(&m, s.Log.WeightGiB, s.Log.KVCacheGiB, s.Log.KVCacheTokens)
	case s.Log.WeightGiB > 0:
		m = roofline.FromLog(model, logDType(s.Log), s.Log.WeightGiB, s.Log.KVCacheGiB, s.Log.KVCacheTokens)
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

// logDType names the weights' dtype from the engine config line of vLLM's
// log: its quantization, else its dtype.
func logDType(f LogFacts) string {
	switch f.Quantization {
	case "fp8":
		return "FP8"
	case "":
	default:
		return "INT4"
	}
	if f.DType == "float32" {
		return "FP32"
	}
	return "BF16"
}

// RooflineOnceKnown gives t, a server whose header has no roofline facts
// yet (one someone else started), the RooflineFor that finds them, on the
// hardware its header describes, for the model it turns out to serve. The
// simulator's profiles state their own, or none.
func RooflineOnceKnown(t *measure.Subject) {
	if t.Header.Roofline != nil || t.Header.Engine.Simulated {
		return
	}
	h := t.Header
	t.RooflineFor = func(model string) *engine.RooflineFacts { return Roofline(h, model, ServerFacts{}) }
}
