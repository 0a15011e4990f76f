package sim

// loopPhraseTokens is the length of the phrase a looping request repeats.
const loopPhraseTokens = 40

// textState renders a request's output tokens in order: each is the
// pseudo-model's greedy choice after the prompt and the tokens before it
// (lm.go), but for forced ones: a needle's answer, a loop's phrase.
type textState struct {
	state    lmState // after the prompt and the tokens rendered so far
	next     int     // the next output token's index
	forced   []int32 // output tokens from forcedAt on (a needle's answer)
	forcedAt int
	dist     lmDist // the last token's distribution, when logprobs were asked
	offset   int    // completions' text_offset of the next token
}

// nextToken renders g's next output token; d is its distribution when the
// request asked for logprobs, else nil (the argmax alone is cheaper). It
// must be called once per token, in order.
func (s *Server) nextToken(g *genRequest, snap *snapshot) (id int32, d *lmDist) {
	t := &g.out
	i := t.next
	forced := int32(-1)
	switch {
	case snap.loop >= 0 && i >= snap.loop:
		forced = s.tok.loopToken(g.textBase, (i-snap.loop)%loopPhraseTokens)
	case i >= t.forcedAt && i < t.forcedAt+len(t.forced):
		forced = t.forced[i-t.forcedAt]
	}
	srcs := s.lm.sources(t.state.n, snap.batch)
	if g.lp.top != -1 {
		t.dist = s.lm.dist(t.state, srcs, forced)
		d = &t.dist
		id = d.id[0]
	} else {
		id = s.lm.argmax(t.state, srcs, forced)
	}
	t.state = t.state.then(id)
	t.next++
	return id, d
}

// loopToken is token j of the phrase a looping request repeats: words drawn
// from base, ending in a full stop.
func (t *tokenizer) loopToken(base uint64, j int) int32 {
	if j == loopPhraseTokens-1 {
		return byteBase + '.'
	}
	r := mix64(base ^ 0x1007 + uint64(j)*0x9e3779b97f4a7c15)
	return t.words[(r>>8)%uint64(len(t.words))]
}
