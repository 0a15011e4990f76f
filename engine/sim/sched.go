package sim

type chunk struct {
	q *seq
	k int
}

// core is the scheduler of the simulated engine as a pure state machine over
// model time: the server drives it from one goroutine with a real clock,
// tests drive it with a virtual one.
type core struct {
	prof     Profile
	kv       *kvCache
	frontend []*seq // FIFO; readyS increasing
	feFreeS  float64
	waiting  []*seq
	running  []*seq // admission order; preemption takes from the end
	dec      []*seq
	chunks   []chunk
	drafted  int // most tokens a sequence drafts in the planned step
	stats    coreStats
	// genAtFinish counts a request's generation tokens when it ends
	// (Faults.GenTokensAtFinish) instead of step by step.
	genAtFinish bool
	lingering   []*seq // sequences whose client left, until they end
	others      int    // requests of the other load submitted so far
	// onFirst and onITL, when set, are called for every first token and
	// for every later step of a sequence (metrics).
	onFirst func(q *seq, ttftS float64)
	onITL   func(itlS float64, n int)
	noise   *noiseState // the profile's noise; nil: exact step times
}

// coreStats are the scheduler's counters, read for /metrics.
type coreStats struct {
	promptTokens, generationTokens int64
	stepTokens                     int64 // generated, step by step whatever genAtFinish says
	prefixQueries, prefixHits      int64
	preemptions                    int64
	finished                       map[string]int64
	spec                           specStats
}

func newCore(p Profile) *core {
	c := &core{
		prof:  p,
		kv:    newKVCache(p.KVCacheTokens/p.BlockSize, p.BlockSize),
		stats: coreStats{finished: map[string]int64{}},
		noise: newNoiseState(p.Noise, 0),
	}
	if p.SpecDecode != nil {
		c.stats.spec.acceptedPerPos = make([]int64, p.SpecDecode.NumSpeculativeTokens)
	}
	return c
}

// submit queues q at the front end at model time nowS.
func (c *core) submit(q *seq, nowS float64) {
	q.arrivalS = nowS
	q.loopFrom = -1
	q.state = stFrontend
	start := max(nowS, c.feFreeS)
	q.readyS = start + c.prof.Perf.frontendS(q.promptLen)
	c.feFreeS = q.readyS
	c.frontend = append(c.frontend, q)
}

// abort removes q wherever it is and frees its blocks.
func (c *core) abort(q *seq) {
	switch q.state {
	case stFrontend:
		c.frontend = remove(c.frontend, q)
	case stWaiting:
		c.waiting = remove(c.waiting, q)
	case stRunning:
		c.running = remove(c.running, q)
		c.kv.release(q.blocks)
		q.blocks = nil
	case stDone:
		return
	}
	c.end(q, "abort")
}

func remove(list []*seq, q *seq) []*seq {
	for i, x := range list {
		if x == q {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

// busy reports whether the scheduler has a step to run now.
func (c *core) busy() bool { return len(c.running) > 0 || len(c.waiting) > 0 }

// nextReadyS is when the next request leaves the front end; ok is false if none.
func (c *core) nextReadyS() (float64, bool) {
	if len(c.frontend) == 0 {
		return 0, false
	}
	return c.frontend[0].readyS, true
}

// inFlight is the number of requests the server holds.
func (c *core) inFlight() int { return len(c.frontend) + len(c.running) + len(c.waiting) }

// plan builds the step that starts at nowS and returns its duration
// (0: nothing to do).
func (c *core) plan(nowS float64) float64 {
	for len(c.frontend) > 0 && c.frontend[0].readyS <= nowS {
		q := c.frontend[0]
		c.frontend = c.frontend[1:]
		q.state = stWaiting
		c.waiting = append(c.waiting, q)
	}
	c.expire(nowS)
	c.dec, c.chunks, c.drafted = c.dec[:0], c.chunks[:0], 0
	budget := c.prof.MaxBatchedTokens
	ctxTokens := 0
	for i := 0; i < len(c.running) && budget > 0; i++ {
		q := c.running[i]
		if !q.inDecode() {
			continue
		}
		k := c.draftLen(q)
		if !c.grow(q, k) {
			break // q itself was preempted: it was the last one
		}
		c.dec = append(c.dec, q)
		c.drafted = max(c.drafted, k)
		ctxTokens += q.promptLen + q.generated
		budget -= min(budget, 1+k)
	}
	for _, q := range c.running {
		if budget == 0 {
			break
		}
		if !q.inDecode() {
			k := min(q.prefillTarget()-q.computed, budget)
			c.chunks = append(c.chunks, chunk{q, k})
			budget -= k
		}
	}
	for budget > 0 && len(c.waiting) > 0 && len(c.running) < c.prof.MaxNumSeqs {
		q := c.waiting[0]
		if !c.allocate(q) {
			break
		}
		c.waiting = c.waiting[1:]
		q.state = stRunning
		c.running = append(c.running, q)
		k := min(q.prefillTarget()-q.computed, budget)
		c.chunks = append(c.chunks, chunk{q, k})
		budget -= k
	}
	return c.noise.stretch(c.stepCostS(ctxTokens))
}

func (c *core) stepCostS(ctxTokens int) float64 {
	p := c.prof.Perf
	d := p.decodeStepS(len(c.dec), ctxTokens)
	if sd := c.prof.SpecDecode; sd != nil {
		d += sd.DraftTokenS * float64(c.drafted)
	}
	if len(c.dec) == 0 && len(c.chunks) > 0 {
		d = p.PrefillStepS
	}
	for _, ch := range c.chunks {
		d += p.prefillChunkS(ch.q.computed, ch.k)
	}
	return d
}

// grow gives a decoding q the blocks its next token and k drafts need,
// preempting the most recently admitted sequences while the cache is full.
// It reports false when q itself had to be preempted.
func (c *core) grow(q *seq, k int) bool {
	need := (q.promptLen + q.generated + k + c.kv.blockSize - 1) / c.kv.blockSize
	for len(q.blocks) < need {
		if b, ok := c.kv.alloc(); ok {
			q.blocks = append(q.blocks, b)
			continue
		}
		victim := c.running[len(c.running)-1]
		c.preempt(victim)
		if victim == q {
			return false
		}
	}
	return true
}

// preempt frees q's blocks and puts it at the head of the waiting queue; it
// will recompute its tokens (vLLM's recompute preemption).
func (c *core) preempt(q *seq) {
	c.running = c.running[:len(c.running)-1]
	c.kv.release(q.blocks)
	q.blocks, q.computed, q.regBlocks = nil, 0, 0
	q.state = stWaiting
	c.waiting = append([]*seq{q}, c.waiting...)
	c.stats.preemptions++
}

// allocate gives q the blocks of its prefill target, taking cached prompt
// blocks from the prefix cache; it reports false when they do not fit.
func (c *core) allocate(q *seq) bool {
	target := q.prefillTarget()
	bs := c.kv.blockSize
	need := (target + bs - 1) / bs
	maxHits := (target - 1) / bs // at least one token is always computed
	if c.prof.NoPrefixCaching {
		maxHits = 0
	}
	hits, inLRU := c.kv.hits(q.hashes[:min(len(q.hashes), maxHits)])
	if c.kv.available()-inLRU < need-hits {
		return false
	}
	for _, h := range q.hashes[:hits] {
		q.blocks = append(q.blocks, c.kv.take(h))
	}
	for len(q.blocks) < need {
		b, _ := c.kv.alloc()
		q.blocks = append(q.blocks, b)
	}
	q.computed, q.regBlocks = hits*bs, hits
	if !q.counted {
		q.counted = true
		c.stats.promptTokens += int64(q.promptLen)
		c.stats.prefixQueries += int64(q.promptLen)
		c.stats.prefixHits += int64(hits * bs)
	}
	return true
}
