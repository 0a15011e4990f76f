package sim

import "testing"

// BenchmarkNextToken measures rendering one output token: the argmax alone
// (no logprobs asked), under load with the batch jitter, under an FP8 KV
// cache at 8K of context, and with top-20 logprobs.
func BenchmarkNextToken(b *testing.B) {
	for _, tc := range []struct {
		name     string
		numerics Numerics
		batch    int
		context  int
		top      int
	}{
		{"argmax", Numerics{}, 1, 1000, -1},
		{"argmax-batch8", Numerics{}, 8, 1000, -1},
		{"argmax-fp8-8K", Numerics{KVCacheDType: "fp8"}, 1, 8192, -1},
		{"logprobs-20", Numerics{}, 1, 1000, 20},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := &Server{tok: sharedTokenizer()}
			s.lm = newPseudoModel(s.tok, "bench", tc.numerics)
			st := lmStart(s.lm.key)
			st.n = tc.context
			g := &genRequest{lp: lpRequest{top: tc.top, prompt: -1}, out: textState{state: st}}
			snap := &snapshot{loop: -1, batch: tc.batch}
			for b.Loop() {
				s.nextToken(g, snap)
			}
		})
	}
}
