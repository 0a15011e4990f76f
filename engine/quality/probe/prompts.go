package probe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"speedmatrix/engine"
)

// probeStream separates the probes' draws from other users of a seed.
const probeStream = 0x70726f62 // "prob"

// bytesPerToken is a first guess of natural text's bytes per token; the
// text is doubled when the guess falls short.
const bytesPerToken = 6

// promptIDs is probe i's prompt at contextTokens: the server's token ids
// of text from a seeded place on (the text repeated when short), cut to
// exactly contextTokens.
func (s Server) promptIDs(ctx context.Context, text string, contextTokens int, seed uint64, i int) ([]int, error) {
	rng := rand.New(rand.NewPCG(seed+uint64(i), probeStream))
	start := rng.IntN(len(text))
	size := contextTokens*bytesPerToken + 64
	for range 6 {
		ids, err := s.Client.Tokenize(ctx, s.Model, slice(text, start, size))
		if err != nil {
			return nil, fmt.Errorf("tokenize a probe: %w", err)
		}
		if len(ids) >= contextTokens {
			return ids[:contextTokens], nil
		}
		size *= 2
	}
	return nil, fmt.Errorf("the text gives fewer than %d tokens however much of it is sent", contextTokens)
}

// slice is size bytes of text from start on, wrapping to its beginning,
// cut at a space so that no word is split.
func slice(text string, start, size int) string {
	var b strings.Builder
	for at := start; b.Len() < size; at = 0 {
		b.WriteString(text[at:min(len(text), at+size-b.Len())])
		if b.Len() < size {
			b.WriteString("\n\n")
		}
	}
	out := strings.ToValidUTF8(b.String(), "")
	if i := strings.IndexByte(out, ' '); i >= 0 && i < 64 && start > 0 {
		out = out[i+1:]
	}
	return out
}

// fitted is contexts fitted to the server's max_model_len with output
// tokens after them, as a matrix run fits its contexts (engine.FitContexts),
// less any that nothing fits.
func (s Server) fitted(contexts []int, output int) []int {
	out := engine.FitContexts(contexts, s.MaxModelLen, output)
	for len(out) > 0 && out[0] < 1 {
		out = out[1:]
	}
	return out
}
