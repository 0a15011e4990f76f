package sim

import (
	"testing"
)

// smallProfile is tiny with a KV cache of blocks blocks.
func smallProfile(blocks int) Profile {
	p := tinyProfile()
	p.KVCacheTokens = blocks * p.BlockSize
	return p
}

func TestKVCachePrefixReuseAndLRU(t *testing.T) {
	c := newKVCache(4, 16)
	ids := harnessPrompt(48, 1, 0)
	hs := blockHashes(ids, 16)
	if len(hs) != 3 {
		t.Fatalf("48 tokens make %d full blocks, want 3", len(hs))
	}
	var blocks []int32
	for _, h := range hs {
		b, ok := c.alloc()
		if !ok {
			t.Fatal("alloc failed on an empty cache")
		}
		c.register(b, h)
		blocks = append(blocks, b)
	}
	c.release(blocks)
	if n, inLRU := c.hits(hs); n != 3 || inLRU != 3 {
		t.Fatalf("after release: %d hits (%d in LRU), want 3 (3)", n, inLRU)
	}
	// Two new blocks: one free block, then the least recently used cached
	// block (the prompt's first) is evicted, which breaks the chain.
	for range 2 {
		if _, ok := c.alloc(); !ok {
			t.Fatal("alloc failed with cached blocks to evict")
		}
	}
	if n, _ := c.hits(hs); n != 0 {
		t.Errorf("%d hits after the first block was evicted, want 0", n)
	}
	if c.available() != 2 || c.used != 2 {
		t.Errorf("available %d, used %d: want 2 and 2", c.available(), c.used)
	}
}

func TestRepeatedPromptIsCheapToPrefill(t *testing.T) {
	p := smallProfile(4096)
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
	front := p.Perf.frontendS(len(ids))
	cold, warm := ttfts[0]-front, ttfts[1]-front
	if warm > cold/10 {
		t.Errorf("prefill of a repeated 4,000-token prompt took %.4f s, the cold one %.4f s: want ≤ 1/10", warm, cold)
	}
	if c.stats.prefixHits != 3984 || c.stats.prefixQueries != 8000 {
		t.Errorf("prefix cache hits %d of %d queried tokens, want 3984 of 8000", c.stats.prefixHits, c.stats.prefixQueries)
	}
}

func TestMaxNumSeqsQueuesTheRest(t *testing.T) {
	p := smallProfile(4096)
	p.MaxNumSeqs = 4
	c := newCore(p)
	for i := range 10 {
		c.submit(harnessSeq(p, harnessPrompt(100, 5, uint64(i)), 50), 0)
	}
	now := 1.0 // past every front-end delay
	for range 20 {
		d := c.plan(now)
		if len(c.running) > 4 {
			t.Fatalf("%d sequences running, max-num-seqs is 4", len(c.running))
		}
		now += d
		c.apply(now)
	}
	if len(c.running) != 4 || len(c.waiting) != 6 {
		t.Errorf("running %d, waiting %d: want 4 and 6", len(c.running), len(c.waiting))
	}
}

func TestChunkedPrefillRespectsBudget(t *testing.T) {
	p := smallProfile(4096)
	c := newCore(p)
	c.submit(harnessSeq(p, harnessPrompt(5000, 9, 0), 10), 0)
	steps := 0
	for now := 1.0; c.stats.generationTokens == 0; steps++ {
		d := c.plan(now)
		tokens := 0
		for _, ch := range c.chunks {
			tokens += ch.k
		}
		if tokens > p.MaxBatchedTokens {
			t.Fatalf("a step prefilled %d tokens, budget %d", tokens, p.MaxBatchedTokens)
		}
		now += d
		c.apply(now)
	}
	if want := (5000 + p.MaxBatchedTokens - 1) / p.MaxBatchedTokens; steps != want {
		t.Errorf("5,000 prompt tokens took %d steps, want %d chunks", steps, want)
	}
}

// TestPreemptionWhenKVFull fills a small cache with long generations: the
// scheduler must preempt, and every sequence must still finish with all its
// tokens.
func TestPreemptionWhenKVFull(t *testing.T) {
	p := smallProfile(64) // 1,024 tokens
	c := newCore(p)
	var qs []*seq
	for i := range 6 {
		q := harnessSeq(p, harnessPrompt(100, 11, uint64(i)), 200)
		qs = append(qs, q)
		c.submit(q, 0)
	}
	now := 0.0
	for _, q := range qs {
		now = runUntilDone(c, q, now)
		if c.kv.used > c.kv.numBlocks() {
			t.Fatal("more blocks used than exist")
		}
	}
	for i, q := range qs {
		if q.state != stDone || q.generated != 200 {
			t.Errorf("sequence %d: state %d with %d tokens, want done with 200", i, q.state, q.generated)
		}
	}
	if c.stats.preemptions == 0 {
		t.Error("6 × 300 tokens in a 1,024-token cache ran without preemption")
	}
	if c.kv.used != 0 {
		t.Errorf("%d blocks still used after every sequence finished", c.kv.used)
	}
}

func TestDecodeStepGrowsWithBatchAndContext(t *testing.T) {
	for _, p := range Profiles() {
		pf := p.Perf
		for _, b := range []int{1, 2, 4, 8, 16, 32, 64} {
			if pf.decodeStepS(2*b, 2*b*4096) <= pf.decodeStepS(b, b*4096) {
				t.Errorf("%s: a step of %d sequences is not slower than of %d", p.Name, 2*b, b)
			}
			if pf.decodeStepS(b, b*8192) <= pf.decodeStepS(b, b*4096) {
				t.Errorf("%s: a step of %d sequences does not grow with context", p.Name, b)
			}
		}
		if pf.prefillChunkS(0, 2000) >= pf.prefillChunkS(6000, 2000) {
			t.Errorf("%s: a prefill chunk does not cost more after a longer context (attention)", p.Name)
		}
	}
}

func TestLoopRules(t *testing.T) {
	l := Loop{AfterTokens: 10, Rules: []LoopRule{{0, 99, []int{2, 4}}, {1000, 2000, []int{1}}}}
	for _, tc := range []struct {
		prompt, inFlight int
		want             bool
	}{
		{50, 1, false}, {50, 2, true}, {50, 3, true}, {50, 4, true}, {50, 5, false}, {50, 8, false},
		{1500, 1, true}, {1500, 2, false}, {500, 1, false},
	} {
		if got := l.matches(tc.prompt, tc.inFlight); got != tc.want {
			t.Errorf("prompt %d with %d in flight: loops %v, want %v", tc.prompt, tc.inFlight, got, tc.want)
		}
	}
	if !(Loop{AfterTokens: 10}).matches(5, 7) {
		t.Error("a loop without rules must match every request")
	}
}

func TestProfilesValid(t *testing.T) {
	for _, p := range Profiles() {
		if err := p.Validate(); err != nil {
			t.Error(err)
		}
		if p.KVCacheTokens < p.MaxModelLen {
			t.Errorf("%s: KV cache of %d tokens can't hold one max_model_len request", p.Name, p.KVCacheTokens)
		}
	}
	if _, err := LookupProfile("nope"); err == nil {
		t.Error("LookupProfile(nope) succeeded")
	}
}
