package sim

import (
	"math"
	"testing"
)

// TestKVCacheAtOwnShare: every profile's own --gpu-memory-utilization
// gives its own KV cache, whatever its rig.
func TestKVCacheAtOwnShare(t *testing.T) {
	for _, p := range Profiles() {
		if got, mem := p.KVCacheAt(p.GPUMemoryUtilization(), 1); got != p.KVCacheTokens || mem <= 0 {
			t.Errorf("%s at its own %.2f: %d tokens (%.0f bytes), want %d", p.Name, p.GPUMemoryUtilization(), got, mem, p.KVCacheTokens)
		}
	}
}

// TestKVCacheAt follows vLLM's rule on tiny (8 GiB, 32 KiB a token, 3 GiB
// of KV cache at the default 0.9): each 0.01 of the GPU's memory is 82 MiB,
// 2,621 tokens; half-size entries hold twice the tokens.
func TestKVCacheAt(t *testing.T) {
	p := tinyProfile()
	gib := float64(1 << 30)
	for _, tc := range []struct {
		util, factor float64
		tokens       int
		memGiB       float64
	}{
		{0.9, 1, 98304, 3},
		{0.9, 0.5, 196608, 3},
		{0.95, 1, 111408, 3.4},  // 3.4 GiB / 32 KiB = 111,411.2 → 6,963 blocks
		{0.8, 1, 72080, 2.2},    // 72,089.6 → 4,505 blocks
		{0.4, 1, 0, -1},         // the weights and activations take 4.2 GiB, more than 0.4 of 8 GiB
		{0.525, 1, 0, 0},        // exactly nothing left
		{0.55, 0.5, 13104, 0.2}, // 0.2 GiB at 16 KiB a token: 13,107.2 → 819 blocks
		{0.99, 1, 121888, 3.72}, // 3.72 GiB: 121,896.96 → 7,618 blocks
	} {
		got, mem := p.KVCacheAt(tc.util, tc.factor)
		if got != tc.tokens || math.Abs(mem/gib-tc.memGiB) > 1e-9 {
			t.Errorf("KVCacheAt(%g, %g) = %d tokens, %.4f GiB; want %d, %.4f GiB", tc.util, tc.factor, got, mem/gib, tc.tokens, tc.memGiB)
		}
		if got%p.BlockSize != 0 {
			t.Errorf("KVCacheAt(%g, %g) = %d tokens: not whole blocks", tc.util, tc.factor, got)
		}
	}
	if got := p.KVTokensIn(gib, 1); got != 32768 {
		t.Errorf("KVTokensIn(1 GiB, 1) = %d, want 32,768", got)
	}
	if got := p.KVTokensIn(-gib, 1); got != 0 {
		t.Errorf("KVTokensIn(-1 GiB, 1) = %d, want 0", got)
	}
	if got := p.KVBytesFor(8192, 0.5); got != 8192*16<<10 {
		t.Errorf("KVBytesFor(8192, 0.5) = %g, want %d", got, 8192*16<<10)
	}
}

// TestGPUMemoryUtilization reads the profile's launch command.
func TestGPUMemoryUtilization(t *testing.T) {
	want := map[string]float64{"tiny": 0.9, "gemma-4-e2b-rtxpro6000": 0.83, "gemma-4-26b-a4b-nvfp4-rtx3090": 0.94, "llama-3.3-70b-awq-2x3090-tp2": 0.95}
	for _, p := range Profiles() {
		if w, ok := want[p.Name]; ok && p.GPUMemoryUtilization() != w {
			t.Errorf("%s: GPUMemoryUtilization = %g, want %g", p.Name, p.GPUMemoryUtilization(), w)
		}
	}
}

// TestWithDecodeFactor: every decode step of the scaled model takes factor
// times as long; prefill and the original profile do not change.
func TestWithDecodeFactor(t *testing.T) {
	p := tinyProfile().Perf
	before := p.decodeStepS(8, 8*2048)
	for _, factor := range []float64{1.25, 0.95, 1.1875} {
		q := p.WithDecodeFactor(factor)
		for _, b := range []int{1, 3, 8, 64, 100} {
			want := factor * p.decodeStepS(b, b*3000)
			if got := q.decodeStepS(b, b*3000); math.Abs(got-want) > 1e-15 {
				t.Errorf("×%g, batch %d: step %g s, want %g s", factor, b, got, want)
			}
		}
		if q.prefillChunkS(0, 1024) != p.prefillChunkS(0, 1024) || q.frontendS(1024) != p.frontendS(1024) {
			t.Errorf("×%g changed prefill or the front end", factor)
		}
	}
	if p.decodeStepS(8, 8*2048) != before {
		t.Error("WithDecodeFactor changed the profile it was called on")
	}
}

// TestNoPrefixCaching: a repeated prompt is computed in full again, and no
// prefix cache hit is counted.
func TestNoPrefixCaching(t *testing.T) {
	p := smallProfile(4096)
	p.NoPrefixCaching, p.Noise = true, Noise{}
	c := newCore(p)
	ids := harnessPrompt(4000, 3, 0)
	var ttfts []float64
	c.onFirst = func(_ *seq, s float64) { ttfts = append(ttfts, s) }
	now := 0.0
	for range 2 {
		q := harnessSeq(p, ids, 1)
		c.submit(q, now)
		now = runUntilDone(c, q, now)
	}
	if math.Abs(ttfts[1]-ttfts[0]) > 1e-12 {
		t.Errorf("TTFT of the repeated prompt %.6f s, of the first %.6f s: want the same", ttfts[1], ttfts[0])
	}
	if c.stats.prefixHits != 0 || c.stats.prefixQueries != 8000 {
		t.Errorf("prefix cache hits %d of %d queried tokens, want 0 of 8000", c.stats.prefixHits, c.stats.prefixQueries)
	}
}

// TestKnobsInVirtualTime: what a sweep over the stand-in vLLM's knobs
// should answer, in virtual time on tiny at 1K with 5 s windows. A decode
// factor of 1.25 (--enforce-eager) divides every cell's tok/s by 1.25;
// max_num_seqs 2 holds 4 or 8 clients to the tok/s of a batch of 2, about
// half and a quarter of what max_num_seqs 8 serves them.
func TestKnobsInVirtualTime(t *testing.T) {
	tokPerSec := func(maxNumSeqs int, factor float64, conc int) float64 {
		p := tinyProfile()
		p.MaxNumSeqs, p.Perf = maxNumSeqs, p.Perf.WithDecodeFactor(factor)
		return virtualDecode(p, 1024, conc, 4096, 5).TokPerSec
	}
	for _, tc := range []struct {
		name      string
		got, want float64 // ratio of tok/s
		tolerance float64
	}{
		{"eager ÷ graphs at 1", tokPerSec(8, 1.25, 1) / tokPerSec(8, 1, 1), 0.8, 0.01},
		{"eager ÷ graphs at 8", tokPerSec(8, 1.25, 8) / tokPerSec(8, 1, 8), 0.8, 0.01},
		{"max_num_seqs 2 ÷ 8 at 1", tokPerSec(2, 1, 1) / tokPerSec(8, 1, 1), 1, 0.001},
		{"max_num_seqs 2 ÷ 8 at 4", tokPerSec(2, 1, 4) / tokPerSec(8, 1, 4), 0.52, 0.02},
		{"max_num_seqs 2 ÷ 8 at 8", tokPerSec(2, 1, 8) / tokPerSec(8, 1, 8), 0.27, 0.02},
		{"max_num_seqs 2: 8 clients ÷ 4", tokPerSec(2, 1, 8) / tokPerSec(2, 1, 4), 1, 0.01},
	} {
		if math.Abs(tc.got-tc.want) > tc.tolerance {
			t.Errorf("%s: tok/s ratio %.3f, want %.2f ± %.3f", tc.name, tc.got, tc.want, tc.tolerance)
		}
	}
}
