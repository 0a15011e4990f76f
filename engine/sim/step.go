package sim

// apply completes the planned step at model time endS: every decoding
// sequence gets its next token (and its accepted drafts), every prefill
// that completes gets its first token, and finished sequences leave.
func (c *core) apply(endS float64) {
	for _, q := range c.dec {
		if q.state != stRunning {
			continue
		}
		n := 1 + c.accept(q, c.draftLen(q))
		// vLLM observes one inter-token latency per sequence per step,
		// however many tokens the step yields.
		if c.onITL != nil {
			c.onITL(endS-q.lastTokS, 1)
		}
		c.emit(q, n, endS)
		q.computed = q.promptLen + q.generated - 1
	}
	for _, ch := range c.chunks {
		q := ch.q
		if q.state != stRunning {
			continue
		}
		q.computed += ch.k
		c.register(q)
		if q.computed == q.prefillTarget() && q.generated == 0 {
			if c.onFirst != nil {
				c.onFirst(q, endS-q.arrivalS)
			}
			c.emit(q, 1, endS)
		}
	}
	kept := c.running[:0]
	for _, q := range c.running {
		if q.generated >= q.stopAt {
			c.kv.release(q.blocks)
			q.blocks = nil
			c.end(q, q.reason)
			if q.internal {
				c.submitOther(endS)
			}
			continue
		}
		kept = append(kept, q)
	}
	clear(c.running[len(kept):])
	c.running = kept
}

// end counts q as finished for reason ("length", "stop" or "abort"); its
// blocks are already released.
func (c *core) end(q *seq, reason string) {
	c.stats.finished[reason]++
	if c.genAtFinish {
		c.stats.generationTokens += int64(q.generated)
	}
	q.state = stDone
}

// register adds the prompt blocks q has computed to the prefix cache,
// when the profile has one.
func (c *core) register(q *seq) {
	if c.prof.NoPrefixCaching {
		return
	}
	full := min(q.computed/c.kv.blockSize, len(q.hashes))
	for ; q.regBlocks < full; q.regBlocks++ {
		c.kv.register(q.blocks[q.regBlocks], q.hashes[q.regBlocks])
	}
}

// emit produces q's next n output tokens at model time nowS.
func (c *core) emit(q *seq, n int, nowS float64) {
	if q.generated == 0 {
		q.batch = powerOfTwoAtLeast(len(c.dec) + len(c.chunks))
	}
	q.generated += n
	q.lastTokS = nowS
	c.stats.stepTokens += int64(n)
	if !c.genAtFinish {
		c.stats.generationTokens += int64(n)
	}
	if l := c.prof.Loop; !q.decided && l.AfterTokens > 0 && q.generated >= l.AfterTokens {
		q.decided = true
		if l.matches(q.promptLen, c.inFlight()) {
			q.loopFrom = l.AfterTokens
		}
	}
	q.out.publish(q.generated, q.loopFrom, q.batch, q.generated >= q.stopAt)
}

// planned reports whether the last plan has any work.
func (c *core) planned() bool { return len(c.dec)+len(c.chunks) > 0 }

// firstTokenStep reports whether the planned step ends some sequence's
// prefill with its first token.
func (c *core) firstTokenStep() bool {
	for _, ch := range c.chunks {
		if ch.q.generated == 0 && ch.q.computed+ch.k == ch.q.prefillTarget() {
			return true
		}
	}
	return false
}

// powerOfTwoAtLeast is the least power of two ≥ n (1 for n ≤ 1).
func powerOfTwoAtLeast(n int) int {
	c := 1
	for c < n {
		c *= 2
	}
	return c
}
