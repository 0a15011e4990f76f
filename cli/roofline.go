package cli

import (
	"errors"
	"fmt"

	"speedmatrix/engine"
	"speedmatrix/engine/roofline"
	"speedmatrix/engine/vllm"
)

// serverFacts is what a launched server tells the roofline: its start-up
// log's facts, its tensor-parallel size and KV cache dtype. A zero value
// stands for a server someone else started.
type serverFacts struct {
	log          vllm.LogFacts
	tp           int
	kvCacheDType string
}

// rooflineFacts gathers the roofline facts of a run from its header: the
// serving GPU from the Hardware section (NVML's bandwidth, the table's
// peaks), the model from vLLM's log when we launched it and from its
// config.json (model is its Hugging Face id or folder). What is missing makes the facts
// unavailable, saying which.
func rooflineFacts(h engine.Report, model string, s serverFacts) *roofline.Facts {
	if len(h.Hardware.GPUs) == 0 {
		return roofline.Unavailable(errors.New("roofline unavailable: no GPU detected on this machine"))
	}
	g := h.Hardware.GPUs[0]
	gpu, err := roofline.NewGPU(g.Name, max(s.tp, 1), g.PeakBandwidthGBs)
	if err != nil {
		return roofline.Unavailable(err)
	}
	if model == "" {
		return roofline.Unavailable(errors.New("roofline unavailable: the model is unknown"))
	}
	m, err := roofline.FromConfig(model, s.kvCacheDType)
	switch {
	case err == nil:
		m.ApplyLog(s.log.WeightGiB, s.log.KVCacheGiB, s.log.KVCacheTokens)
	case s.log.WeightGiB > 0:
		m = roofline.FromLog(model, logDType(s.log), s.log.WeightGiB, s.log.KVCacheGiB, s.log.KVCacheTokens)
	default:
		return roofline.Unavailable(err)
	}
	f := roofline.New(gpu, m)
	if s.tp == 0 {
		f.Assumptions = append(f.Assumptions, fmt.Sprintf("one %s serves the model (the server's tensor-parallel size is unknown)", g.Name))
	}
	if err != nil {
		f.Assumptions = append(f.Assumptions, "no config.json: every weight vLLM loaded is read each step, and the FLOPs are unknown (no compute bound, no prefill ceiling)")
	}
	return f
}

// logDType names the weights' dtype from the engine config line of vLLM's
// log: its quantization, else its dtype.
func logDType(f vllm.LogFacts) string {
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
