package measure

import (
	"speedmatrix/engine/openai"
)

// tokenCounter turns chunks into token counts: deltas of continuous usage
// stats when the server sends them, otherwise one token per chunk of text,
// reconciled with the final usage when the request ends. Once a stream has
// been counted by text, a later usage is the final one and is left to the
// reconciliation, so it isn't counted as a burst of tokens at the end.
type tokenCounter struct {
	lastUsage  int
	estimating bool
}

func (c *tokenCounter) count(ch openai.Chunk) (chunkTokens, bool) {
	text := ch.Content != "" || ch.Reasoning != ""
	if ch.Usage != nil && !c.estimating {
		if delta := ch.Usage.CompletionTokens - c.lastUsage; delta > 0 {
			c.lastUsage = ch.Usage.CompletionTokens
			return chunkTokens{At: ch.Arrived, Tokens: float64(delta)}, true
		}
		if c.lastUsage > 0 {
			return chunkTokens{}, false
		}
	}
	if !text {
		return chunkTokens{}, false
	}
	c.estimating = true
	return chunkTokens{At: ch.Arrived, Tokens: 1, Estimated: true}, true
}
