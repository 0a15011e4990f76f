package launch

import "testing"

// What vLLM's log says reaches the roofline: the weights and KV cache it
// holds, and the weights' dtype from its engine config line.
func TestRooflineFacts(t *testing.T) {
	for _, tc := range []struct {
		log  LogFacts
		want string
	}{
		{LogFacts{Quantization: "fp8", DType: "bfloat16"}, "FP8"},
		{LogFacts{Quantization: "awq", DType: "float16"}, "INT4"},
		{LogFacts{DType: "float32"}, "FP32"},
		{LogFacts{DType: "bfloat16"}, "BF16"},
	} {
		tc.log.WeightGiB, tc.log.KVCacheGiB, tc.log.KVCacheTokens = 15, 5, 40960
		f := RooflineFacts(tc.log, 2, "fp8")
		if f.WeightDType != tc.want || f.WeightGiB != 15 || f.KVCacheGiB != 5 || f.KVCacheTokens != 40960 || f.TP != 2 || f.KVCacheDType != "fp8" {
			t.Errorf("%+v: %+v, want weight dtype %s", tc.log, f, tc.want)
		}
	}
}
