package measure

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"path/filepath"
	"speedmatrix/engine"
	"speedmatrix/engine/trace"
	"strings"
)

// markerWords is how many words of a load prompt's start differ from one
// request to the next: with 8 tail letters, 16.7 million starts.
const markerWords = 8

// loadPrompts builds a load test's prompts. Each has exactly its drawn
// size (as the matrix's prompts, with /tokenize) and starts differently
// from every other request's, of this run and of any other, so that no
// request finds another's prompt in the prefix cache: vllm bench's random
// prompts have no shared prefix either, and a load test of shared prefixes
// would measure the cache. Token-id prompts (completions) put random ids
// right after the special tokens; text prompts start with words of the
// tail letters, which all tokenize alike, so one size search serves every
// request of that size.
type loadPrompts struct {
	p    *prompter
	salt uint64 // from the run id: another run's prompts start elsewhere
	// specials are the ids /tokenize puts before a text (ids mode).
	specials []int
	// fillerChars is, per size, how much filler a text prompt holds.
	fillerChars map[int]int
	dataset     []string
	// trace is the trace replayed (nil: none), whose prompts are built
	// from its blocks (traceRequest); traceOverhead is the tokens of its
	// text prompts besides their words, once prepared.
	trace         *trace.Trace
	traceOverhead int
	// shortest is the server's count of the shortest text prompt it can
	// be sent (its start and the chat template, no filler), once a size
	// asked for was below it; 0 until then.
	shortest int
}

func newLoadPrompts(p *prompter, dataset []string) *loadPrompts {
	h := fnv.New64a()
	h.Write([]byte(p.runID))
	return &loadPrompts{p: p, salt: h.Sum64(), fillerChars: map[int]int{}, dataset: dataset}
}

// idsMode reports whether prompts are token ids.
func (lp *loadPrompts) idsMode() bool { return lp.p.exact && lp.p.api == engine.APICompletions }

// prepare sizes the prompts of these requests before their rate starts,
// so that no sizing request runs during it.
func (lp *loadPrompts) prepare(ctx context.Context, reqs []loadRequest) error {
	if lp.dataset != nil {
		return nil
	}
	if lp.trace != nil && !lp.idsMode() {
		n, err := lp.traceWordsOverhead(ctx)
		lp.traceOverhead = n
		return err
	}
	if lp.idsMode() {
		if lp.specials == nil {
			s, err := lp.p.specialTokens(ctx)
			if err != nil {
				return fmt.Errorf("tokenize: %w", err)
			}
			lp.specials = append([]int{}, s...)
		}
		return nil
	}
	for _, r := range reqs {
		if _, ok := lp.fillerChars[r.InputTokens]; ok {
			continue
		}
		n, err := lp.size(ctx, r.InputTokens)
		if err != nil {
			return fmt.Errorf("size a prompt of %d tokens: %w", r.InputTokens, err)
		}
		lp.fillerChars[r.InputTokens] = n
	}
	return nil
}

// checkDataset refuses a dataset whose prompts, those a rate sends, do
// not fit the model with the longest output: counted with /tokenize (the
// chat template aside), and not checked without it (the server then
// refuses them, and they count as failed).
func (lp *loadPrompts) checkDataset(ctx context.Context, plan engine.LoadPlan, maxModelLen int) error {
	if lp.dataset == nil || !lp.p.exact || maxModelLen <= 0 {
		return nil
	}
	used := min(len(lp.dataset), max(plan.Requests, plan.Burst))
	for i := range used {
		ids, err := lp.p.client.Tokenize(ctx, lp.p.model, lp.dataset[i])
		if err != nil {
			return fmt.Errorf("tokenize the dataset: %w", err)
		}
		if len(ids)+plan.OutputTokens.Max > maxModelLen {
			return &engine.PlanError{Problems: []engine.PlanProblem{{Field: engine.FieldDataset, Problem: fmt.Sprintf(
				"prompt %d of %s has %d tokens: with %d output tokens it does not fit the model's max_model_len %d: drop it or shorten it",
				i+1, filepath.Base(plan.Dataset), len(ids), plan.OutputTokens.Max, maxModelLen)}}}
		}
	}
	return nil
}

// size finds how much filler a text prompt of tokens holds: searched with
// /tokenize, else from the calibrated characters per token (the server's
// count is then recorded per request and flagged when it differs).
func (lp *loadPrompts) size(ctx context.Context, tokens int) (int, error) {
	p := lp.p
	if !p.exact {
		n := int(math.Round((float64(tokens) - p.overhead) * p.charsPerToken))
		n -= len(lp.prefix(0)) - len(p.prefixFor(tokens))
		return clamp(n, 0, len(p.filler)), nil
	}
	cp := &contextPrompt{Tokens: tokens, prefix: lp.prefix(0), letters: p.tailLetters}
	if err := p.searchText(ctx, cp); err != nil {
		return 0, err
	}
	if cp.text == cp.prefix && cp.counted > tokens {
		lp.shortest = max(lp.shortest, cp.counted)
	}
	return len(cp.text) - len(cp.prefix), nil
}

// sizeReason says why the server counted prompts of other sizes than
// drawn: a server without /tokenize, whose prompts are sized by estimate,
// or, with it, sizes below the shortest prompt a test sends (shortest).
func (lp *loadPrompts) sizeReason() string {
	switch {
	case !lp.p.exact:
		return "the server has no /tokenize to size them exactly"
	case lp.shortest > 0:
		return fmt.Sprintf("the shortest prompt this test sends is %d tokens: %s", lp.shortest, shortestWhy)
	}
	return "the server counted them otherwise than its /tokenize"
}

// shortestWhy is why a load test's prompts have a least size.
const shortestWhy = "each starts with words of its own and the run's id, so that no request finds another's in the prefix cache, and the chat template adds its tokens"

// prefix is request i's start: its marker words, then the run's id.
func (lp *loadPrompts) prefix(i int) string {
	letters := lp.p.tailLetters
	n := uint64(len(letters))
	k := uint64(i) + lp.salt%1_000_003
	var b strings.Builder
	b.WriteString("Request")
	for range markerWords {
		b.WriteByte(' ')
		b.WriteByte(letters[k%n])
		k /= n
	}
	fmt.Fprintf(&b, "\n\nBenchmark run %s, load test. Read these notes, then continue them.\n\n", lp.p.runID)
	return b.String()
}

// request is request i's prompt, of tokens tokens (or the dataset prompt
// it sends): a text, or token ids.
func (lp *loadPrompts) request(i int, r loadRequest) (text string, ids []int) {
	if r.Prompt >= 0 {
		return lp.dataset[r.Prompt], nil
	}
	if lp.trace != nil {
		return lp.traceRequest(r)
	}
	p := lp.p
	if lp.idsMode() {
		body := p.bodyIDs
		ids = make([]int, 0, r.InputTokens)
		ids = append(ids, lp.specials...)
		for j := range markerWords {
			ids = append(ids, body[mix(lp.salt, uint64(i), uint64(j))%uint64(len(body))])
		}
		rest := clamp(r.InputTokens-len(ids), 0, len(body))
		return "", append(ids, body[:rest]...)
	}
	return lp.prefix(i) + p.filler[:lp.fillerChars[r.InputTokens]] + tailText(p.tailLetters, 0), nil
}

// mix hashes three numbers into one (splitmix64's finaliser).
func mix(a, b, c uint64) uint64 {
	x := a ^ (b * 0x9e3779b97f4a7c15) ^ (c * 0xbf58476d1ce4e5b9)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}
