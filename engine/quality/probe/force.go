package probe

import (
	"context"
	"errors"
	"fmt"

	"speedmatrix/engine/quality"
)

// maxForceRequests bounds the requests one teacher-forced pass may send:
// one per continuation token is the most a server that never agrees costs.
const maxForceRequests = quality.MaxContinuationTokens + 1

// force is the server's top-K at every position of cont after prompt,
// teacher-forced: the server generates greedily from where it stands, and
// at the first position where its token is not the reference's, the
// prompt is sent again extended with the reference's tokens up to and
// including that one, so that every position is read on the reference's
// prefix. A server that agrees costs one request; each divergence one
// more, whose prefill the prefix cache mostly saves. It also returns how
// many requests it sent.
func (s Server) force(ctx context.Context, prompt, cont []int, k int) ([]quality.TopK, int, error) {
	out := make([]quality.TopK, 0, len(cont))
	buf := make([]int, 0, len(prompt)+len(cont))
	requests := 0
	for pos := 0; pos < len(cont); {
		if requests++; requests > maxForceRequests {
			return nil, requests, errors.New("teacher forcing did not finish")
		}
		buf = append(append(buf[:0], prompt...), cont[:pos]...)
		toks, tops, err := s.generate(ctx, buf, len(cont)-pos, k)
		if err != nil {
			return nil, requests, err
		}
		for j, tok := range toks {
			out = append(out, tops[j])
			if tok != cont[pos+j] {
				toks = toks[:j+1]
				break
			}
		}
		pos += len(toks)
	}
	return out, requests, nil
}

// capped runs f at k and, when the server's cap is below k, again at the
// cap, telling note once. It returns the k that worked.
func capped(k int, note func(CapError), f func(k int) error) (int, error) {
	err := f(k)
	var c *CapError
	if !errors.As(err, &c) {
		return k, err
	}
	if note != nil {
		note(*c)
	}
	if err := f(c.Cap); err != nil {
		return c.Cap, fmt.Errorf("at the server's cap of %d logprobs: %w", c.Cap, err)
	}
	return c.Cap, nil
}
