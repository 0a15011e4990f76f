package sim

// loopPhraseTokens is the length of the phrase a looping request repeats.
const loopPhraseTokens = 40

// outputToken returns the id of output token i (0-based) of a request whose
// text is drawn from base. Text is varied words with occasional commas and
// full stops (the next word then capitalised), so it has no period a loop
// detector could find. From loopFrom on (when ≥ 0) it repeats a fixed phrase.
func (t *tokenizer) outputToken(base uint64, i, loopFrom int) int32 {
	if loopFrom >= 0 && i >= loopFrom {
		return t.loopToken(base, (i-loopFrom)%loopPhraseTokens)
	}
	r := mix64(base + uint64(i)*0x9e3779b97f4a7c15)
	if i > 0 {
		switch r >> 60 {
		case 0:
			return byteBase + ','
		case 1:
			return byteBase + '.'
		}
	}
	w := (r >> 8) % uint64(len(t.words))
	if i > 0 && mix64(base+uint64(i-1)*0x9e3779b97f4a7c15)>>60 == 1 {
		return t.caps[w]
	}
	return t.words[w]
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
