package measure

import (
	"context"
	"fmt"
)

// forRepeat returns the prompt of prefill repeat k (1 ≤ k < repeats) at the
// context of cp: as long as cp, but starting with "k) ", so that it shares
// not even its first block of tokens with cp or another repeat, and the
// server's prefix cache (vLLM's hashes of whole blocks, chained from the
// first token; SGLang's radix tree) holds nothing of it. It is built for
// one request and not kept.
func (p *prompter) forRepeat(ctx context.Context, cp *contextPrompt, k int) (*contextPrompt, error) {
	rp := &contextPrompt{Tokens: cp.Tokens, prefix: p.repeatPrefix(cp.Tokens, k), letters: cp.letters}
	err := p.fill(ctx, rp, func() error {
		// Without /tokenize: cp's filler, which the server's counts have
		// sized, less the characters the longer prefix adds. The repeat's
		// own count (usage.prompt_tokens) is what its rate is made of.
		body := cp.text[len(cp.prefix):]
		rp.text = rp.prefix + body[:clamp(len(body)-(len(rp.prefix)-len(cp.prefix)), 0, len(body))]
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("build the prompt of prefill repeat %d: %w", k, err)
	}
	return rp, nil
}

// repeatPrefix is prefixFor with the repeat's number first: the very first
// token after any the server adds (BOS, a chat template's) differs.
func (p *prompter) repeatPrefix(tokens, k int) string {
	return fmt.Sprintf("%d) %s", k, p.prefixFor(tokens))
}
