package engine

import "testing"

func TestFitContext(t *testing.T) {
	got := FitContexts([]int{8 * K, 128 * K, 256 * K}, 131072, 4096)
	if len(got) != 2 || got[0] != 8*K || ContextLabel(got[1]) != "123.75K" {
		t.Errorf("fitContexts = %v, want [8K 123.75K] (131,072 − 4,096 − reserve = 126,720 tokens)", got)
	}
	if fitContext(128*K, 0, 4096) != 128*K {
		t.Error("an unknown max_model_len must leave the context as asked")
	}
}

// TestOverflow: a cell is over the KV cache when its requests' tokens are
// more than it holds, over max_num_seqs when there are more requests than
// the server runs; unknown limits never make it over.
func TestOverflow(t *testing.T) {
	l := Limits{KVCacheTokens: 98304, MaxNumSeqs: 64}
	for _, c := range []struct {
		ctx, n, out int
		want        Overflow
	}{
		{8192, 8, 4096, fits},          // 98,304: exactly the cache
		{8192, 16, 4096, OverKVCache},  // 196,608
		{256, 128, 256, OverMaxSeqs},   // 65,536 tokens fit, 128 requests don't
		{8192, 128, 4096, OverKVCache}, // both: the KV cache is named
	} {
		if got := l.Overflow(c.ctx, c.n, c.out); got != c.want {
			t.Errorf("Overflow(%d, %d, %d) = %d, want %d", c.ctx, c.n, c.out, got, c.want)
		}
		if l.OverCapacity(c.ctx, c.n, c.out) != (c.want != fits) {
			t.Errorf("OverCapacity(%d, %d, %d) disagrees with Overflow", c.ctx, c.n, c.out)
		}
	}
	if (Limits{}).Overflow(1<<20, 1024, 4096) != fits {
		t.Error("unknown limits make a cell over capacity")
	}
}
