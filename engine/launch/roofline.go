package launch

import (
	"speedmatrix/engine/roofline"
)

// RooflineFacts is what s tells the roofline.
func (s *Server) RooflineFacts() roofline.ServerFacts {
	return RooflineFacts(s.Facts(), max(s.cfg.TensorParallelSize, 1), s.cfg.KVCacheDType)
}

// RooflineFacts is what a server's log facts f, its tensor-parallel size
// and KV cache dtype tell the roofline.
func RooflineFacts(f LogFacts, tp int, kvCacheDType string) roofline.ServerFacts {
	return roofline.ServerFacts{WeightGiB: f.WeightGiB, KVCacheGiB: f.KVCacheGiB, KVCacheTokens: f.KVCacheTokens,
		WeightDType: logDType(f), TP: tp, KVCacheDType: kvCacheDType}
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
