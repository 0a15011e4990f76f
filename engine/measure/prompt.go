package measure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"speedmatrix/engine"
	"strings"

	"speedmatrix/engine/openai"
)

// tailTokens is how many tokens at the end of every prompt differ from one
// request to the next, so that requests sharing a context's cached prefix
// still produce different outputs.
const tailTokens = 4

// prompter builds prompts of an exact number of tokens (or as close as the
// server lets us know). With /tokenize it is exact: completions get token ids
// cut from the tokenized filler, chat gets a text whose length is searched
// with /tokenize. Without it, characters per token are calibrated from the
// server's usage.prompt_tokens.
type prompter struct {
	client *openai.Client
	model  string
	api    engine.API
	runID  string
	// maxModelLen bounds the calibration probes (0: unknown).
	maxModelLen int

	exact   bool
	filler  string
	bodyIDs []int // the filler's tokens without the special tokens /tokenize adds
	// overhead is the tokens the server adds around a text: the chat
	// template, or BOS; for calibrated prompts the fitted intercept.
	overhead      float64
	charsPerToken float64
	// tailLetters are the letters of the tails (tailText): those whose
	// tails all tokenize alike; every letter until setup checks them.
	tailLetters string
	cache       map[int]*contextPrompt
}

// contextPrompt is the prompt of one (run, context): a shared part every
// request of the context starts with, and a short tail that differs.
type contextPrompt struct {
	Tokens int // the requested size
	prefix string
	ids    []int  // completions with /tokenize: the whole prompt, tail replaced per request
	text   string // otherwise: the shared text; request adds its tail
	bodyID []int
	shared *openai.SharedPrompt // the start of every request, as sent
	// letters are the tails' letters (prompter.tailLetters).
	letters string
	// counted is the server's count of text, as searchText found it (0:
	// not searched): above Tokens when even its prefix alone is longer.
	counted int
}

func newPrompter(client *openai.Client, model string, api engine.API, runID string) *prompter {
	return &prompter{client: client, model: model, api: api, runID: runID, tailLetters: tailAlphabet, cache: map[int]*contextPrompt{}}
}

// setup tokenizes the filler (or calibrates without /tokenize) once per run,
// sized for the largest context of the plan.
func (p *prompter) setup(ctx context.Context, maxTokens int) error {
	p.filler = fillerText(max(6*(maxTokens+2*engine.K), 64*engine.K))
	specials, err := p.specialTokens(ctx)
	if errors.Is(err, openai.ErrNotSupported) || foreignTokenize(err) {
		return p.calibrate(ctx)
	}
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	for {
		ids, err := p.tokenizeBody(ctx, specials)
		if err != nil {
			return fmt.Errorf("tokenize the filler text: %w", err)
		}
		if len(ids) >= maxTokens+tailTokens || len(p.filler) > 64*maxTokens+64*engine.K {
			p.exact, p.bodyIDs = true, ids
			p.charsPerToken = float64(len(p.filler)) / float64(max(1, len(ids)))
			break
		}
		p.filler = fillerText(2 * len(p.filler))
	}
	if p.api == engine.APIChat {
		if err := p.pickTailLetters(ctx); err != nil {
			return err
		}
		return p.measureChatOverhead(ctx)
	}
	return nil
}

// foreignTokenize reports a first /tokenize answer that refuses vLLM's
// request body as malformed (400, 422) rather than the model or its
// length: a /tokenize of another API (GuideLLM's mock server wants "text",
// not "prompt"). The run sizes prompts by calibration then, as on a server
// without /tokenize, instead of stopping at it.
func foreignTokenize(err error) bool {
	var apiErr *openai.APIError
	return errors.As(err, &apiErr) && (apiErr.StatusCode == http.StatusBadRequest || apiErr.StatusCode == http.StatusUnprocessableEntity) &&
		!errors.Is(err, openai.ErrModelNotFound) && !errors.Is(err, openai.ErrContextTooLong) && !errors.Is(err, openai.ErrUnauthorized)
}

// pickTailLetters keeps the letters whose tails tokenize to as many tokens
// as most letters' do. A text prompt is sized once for its context with
// tail 0, and every request sends its own tail: with a tokenizer that has
// " a" but not " q" as one token (the real vLLM rig's small byte-level BPE),
// a quarter of the chat prompts of a cell were one token over.
func (p *prompter) pickTailLetters(ctx context.Context) error {
	byCount := map[int]string{}
	best := 0
	for _, c := range tailAlphabet {
		ids, err := p.client.Tokenize(ctx, p.model, "x"+tailText(string(c), 0))
		if err != nil {
			return fmt.Errorf("tokenize: %w", err)
		}
		byCount[len(ids)] += string(c)
		if len(byCount[len(ids)]) > len(byCount[best]) {
			best = len(ids)
		}
	}
	// Fewer letters than 8 would repeat tails within 4,096 requests, and a
	// repeated tail is a prefix cache hit: keep them all then, a token off.
	if len(byCount[best]) >= 8 {
		p.tailLetters = byCount[best]
	}
	return nil
}

// tokenizeBody tokenizes the filler paragraph by paragraph, in pieces well
// under any model's context (a server may refuse to tokenize more than
// max_model_len), without the special tokens /tokenize adds to each piece.
// Completions prompts are these ids as they are: any sequence of valid ids
// is a prompt of exactly its length.
func (p *prompter) tokenizeBody(ctx context.Context, specials []int) ([]int, error) {
	const piece = 16 * engine.K
	var ids []int
	for rest := p.filler; rest != ""; {
		n := len(rest)
		if n > piece {
			n = strings.LastIndex(rest[:piece], "\n\n") + 2
			if n < 2 {
				n = piece
			}
		}
		got, err := p.client.Tokenize(ctx, p.model, rest[:n])
		if err != nil {
			return nil, err
		}
		ids = append(ids, got[commonPrefix(got, specials):]...)
		rest = rest[n:]
	}
	return ids, nil
}

// specialTokens returns the ids /tokenize puts before every text (BOS):
// what two one-letter texts have in common. (An empty text would be simpler,
// but some servers refuse an empty prompt.)
func (p *prompter) specialTokens(ctx context.Context) ([]int, error) {
	x, err := p.client.Tokenize(ctx, p.model, "x")
	if err != nil {
		return nil, err
	}
	y, err := p.client.Tokenize(ctx, p.model, "y")
	if err != nil {
		return nil, err
	}
	return x[:commonPrefix(x, y)], nil
}

func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// measureChatOverhead asks the server once how many tokens its chat template
// adds to a text: usage.prompt_tokens of a tiny chat request minus the
// tokens /tokenize counts for the same text.
func (p *prompter) measureChatOverhead(ctx context.Context) error {
	text := p.filler[:200]
	ids, err := p.client.Tokenize(ctx, p.model, text)
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	used, err := p.promptTokensOf(ctx, text)
	if err != nil {
		return fmt.Errorf("measure the chat template's size: %w", err)
	}
	p.overhead = float64(used - len(ids))
	return nil
}

// chatTemplateTokens is what the chat template adds to each prompt, as
// measureChatOverhead measured it; 0 for completions, and where the server
// has no /tokenize (the overhead is then a fitted intercept, not a count).
func (p *prompter) chatTemplateTokens() int {
	if p == nil || p.api != engine.APIChat || !p.exact || p.overhead < 0 {
		return 0
	}
	return int(p.overhead + 0.5)
}

// promptTokensOf sends text with max_tokens 1 and returns usage.prompt_tokens.
func (p *prompter) promptTokensOf(ctx context.Context, text string) (int, error) {
	st, err := p.client.Stream(ctx, openai.StreamRequest{
		API: string(p.api), Model: p.model, Prompt: text, MaxTokens: 1,
	}, nil)
	if err != nil {
		return 0, err
	}
	if st.Usage == nil || st.Usage.PromptTokens == 0 {
		return 0, errors.New("the server reported no usage.prompt_tokens: use a server that reports usage")
	}
	return st.Usage.PromptTokens, nil
}

// calibrate fits characters per token and the fixed overhead from two
// requests of different lengths, for servers without /tokenize. The long
// probe is about 8,000 tokens, fewer when the server's max_model_len is
// smaller: sized from the short probe's count, it fits the model with room
// to spare, and a server that still finds it too long gets it halved.
func (p *prompter) calibrate(ctx context.Context) error {
	long := min(calibrationChars, len(p.filler))
	budget := math.MaxInt // tokens a probe may have
	if p.maxModelLen > 0 {
		budget = max(1, p.maxModelLen-engine.TemplateReserveTokens-1)
	}
	short := min(long/8, budget) // at least a character per token: it fits
	p1, err := p.promptTokensOf(ctx, p.probeText(9999, short))
	if err != nil {
		return fmt.Errorf("calibrate prompt size: %w", err)
	}
	if budget < math.MaxInt {
		// p1 counts the overhead too, so this under-estimates the
		// characters per token: the long probe errs short.
		long = min(long, int(0.9*float64(budget)*float64(short)/float64(max(1, p1))))
	}
	var p2 int
	for {
		if long <= short {
			return fmt.Errorf("calibrate prompt size: the server's context (%d tokens) is too short to size prompts without /tokenize", p.maxModelLen)
		}
		p2, err = p.promptTokensOf(ctx, p.probeText(9999, long))
		if errors.Is(err, openai.ErrContextTooLong) && long/2 > short {
			long /= 2
			continue
		}
		if err != nil {
			return fmt.Errorf("calibrate prompt size: %w", err)
		}
		break
	}
	if p2 <= p1 {
		return fmt.Errorf("calibrate prompt size: the server counted %d then %d prompt tokens for a longer text: check the server", p1, p2)
	}
	p.charsPerToken = float64(long-short) / float64(p2-p1)
	p.overhead = float64(p1) - float64(short)/p.charsPerToken
	return nil
}

// probeText is a sizing probe of n filler characters for a context of
// tokens, shaped as its prompt is (a prefix, the filler, a tail) so that
// the server counts the prefix's and the tail's tokens too, whose run id
// and letters tokenize more densely than prose. Its run id differs from
// the run's, so that no prompt of the run finds it in the prefix cache.
func (p *prompter) probeText(tokens, n int) string {
	other := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '0' + ('9'-r+3)%10
		}
		return r
	}, p.runID)
	prefix := strings.Replace(p.prefixFor(tokens), p.runID, other, 1)
	return prefix + p.filler[:clamp(n, 0, len(p.filler))] + tailText(p.tailLetters, 0)
}

// sizeCalibrated corrects n, the filler length the calibration gives a
// context of tokens, with the server's count of a probe of that shape: the
// fit is linear and prose is not, by 2 % at 512 tokens. It probes at most
// twice, until the count is within half a percent.
func (p *prompter) sizeCalibrated(ctx context.Context, tokens, n int) (int, error) {
	for range 2 {
		used, err := p.promptTokensOf(ctx, p.probeText(tokens, n))
		if err != nil {
			return 0, fmt.Errorf("size the prompt: %w", err)
		}
		if 200*abs(used-tokens) <= tokens {
			break
		}
		n += int(math.Round(float64(tokens-used) * p.charsPerToken))
	}
	return clamp(n, 0, len(p.filler)), nil
}

// calibrationChars is the long calibration probe's length where the model
// allows it: about 8,200 tokens of English.
const calibrationChars = 32 * engine.K

// prefixFor is the unique start of a (run, context) prompt, so that no other
// run's cache helps.
func (p *prompter) prefixFor(tokens int) string {
	return fmt.Sprintf("Benchmark run %s at context %d. Read these notes, then continue them.\n\n", p.runID, tokens)
}

// tailAlphabet is every letter a tail may use.
const tailAlphabet = "abcdefghijklmnopqrstuvwxyz"

// tailText makes request i's prompt end differently from the others', in
// tailTokens words of one of letters each.
func tailText(letters string, i int) string {
	var b strings.Builder
	b.WriteString("\n\nRequest")
	for range tailTokens {
		b.WriteByte(' ')
		b.WriteByte(letters[i%len(letters)])
		i /= len(letters)
	}
	return b.String()
}

// forContext returns the prompt of the given size, building it once.
func (p *prompter) forContext(ctx context.Context, tokens int) (*contextPrompt, error) {
	if cp, ok := p.cache[tokens]; ok {
		return cp, nil
	}
	cp := &contextPrompt{Tokens: tokens, prefix: p.prefixFor(tokens), letters: p.tailLetters}
	err := p.fill(ctx, cp, func() error {
		// The calibrated overhead holds the prefix's and the tail's tokens.
		n, err := p.sizeCalibrated(ctx, tokens, int(math.Round((float64(tokens)-p.overhead)*p.charsPerToken)))
		cp.text = cp.prefix + p.filler[:n]
		return err
	})
	if err != nil {
		return nil, err
	}
	p.cache[tokens] = cp
	return cp, nil
}

// fill sizes cp, whose prefix is set, to cp.Tokens: exactly with
// /tokenize, else by calibrated, which sets cp.text.
func (p *prompter) fill(ctx context.Context, cp *contextPrompt, calibrated func() error) error {
	var err error
	switch {
	case p.exact && p.api == engine.APICompletions:
		err = p.buildIDs(ctx, cp)
	case p.exact:
		err = p.searchText(ctx, cp)
	default:
		err = calibrated()
	}
	if err != nil {
		return err
	}
	cp.share()
	return nil
}

// share encodes the start every request of the context sends: all of the
// text (each request adds its tail), or the ids but the tail's.
func (cp *contextPrompt) share() {
	if cp.ids == nil {
		cp.shared = openai.ShareText(cp.text)
	} else {
		cp.shared = openai.ShareIDs(cp.ids[:len(cp.ids)-tailTokens])
	}
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// buildIDs makes the token ids: the prefix's ids (with the special tokens
// /tokenize adds, as a text prompt would get), the filler's, and a tail.
func (p *prompter) buildIDs(ctx context.Context, cp *contextPrompt) error {
	head, err := p.client.Tokenize(ctx, p.model, cp.prefix)
	if err != nil {
		return fmt.Errorf("tokenize the prompt prefix: %w", err)
	}
	body := clamp(cp.Tokens-len(head)-tailTokens, 0, len(p.bodyIDs))
	cp.ids = append(append(append([]int{}, head...), p.bodyIDs[:body]...), make([]int, tailTokens)...)
	cp.bodyID = p.bodyIDs
	return nil
}

// searchText finds the filler length whose chat prompt has exactly Tokens
// tokens: /tokenize counts the text, the measured overhead adds the template.
// The count grows almost linearly with the length, so a secant step lands
// within a token or two and a bracketed bisection finishes.
func (p *prompter) searchText(ctx context.Context, cp *contextPrompt) error {
	count := func(n int) (int, error) {
		ids, err := p.client.Tokenize(ctx, p.model, cp.prefix+p.filler[:n]+tailText(cp.letters, 0))
		return len(ids) + int(p.overhead), err
	}
	lo, hi := 0, len(p.filler)
	n := clamp(int(float64(cp.Tokens)*p.charsPerToken), lo, hi)
	best, bestDiff := 0, math.MaxInt
	for range 40 {
		c, err := count(n)
		if err != nil {
			return fmt.Errorf("size the prompt with /tokenize: %w", err)
		}
		d := cp.Tokens - c
		if abs(d) < bestDiff || (abs(d) == bestDiff && d > 0) {
			best, bestDiff, cp.counted = n, abs(d), c
		}
		if d == 0 || hi-lo <= 1 {
			break
		}
		if d > 0 {
			lo = n
		} else {
			hi = n
		}
		next := n + int(math.Round(float64(d)*p.charsPerToken))
		if next <= lo || next >= hi {
			next = (lo + hi) / 2
		}
		n = next
	}
	cp.text = cp.prefix + p.filler[:best]
	return nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// request returns request i's prompt: the start every request of the
// context shares, encoded once, and request i's own tail (text or ids).
func (cp *contextPrompt) request(i int) (shared *openai.SharedPrompt, text string, ids []int) {
	if cp.ids == nil {
		return cp.shared, tailText(cp.letters, i), nil
	}
	ids = make([]int, tailTokens)
	n := len(cp.bodyID)
	if n == 0 {
		copy(ids, cp.ids[len(cp.ids)-tailTokens:])
		return cp.shared, "", ids
	}
	for j := range tailTokens {
		ids[j] = cp.bodyID[(i*7919+j*104729+13)%n]
	}
	return cp.shared, "", ids
}

// adjust corrects a calibrated prompt after the server reported its real size.
func (p *prompter) adjust(cp *contextPrompt, used int) {
	if p.exact || used <= 0 || used == cp.Tokens {
		return
	}
	n := len(cp.text) - len(cp.prefix) + int(math.Round(float64(cp.Tokens-used)*p.charsPerToken))
	cp.text = cp.prefix + p.filler[:clamp(n, 0, len(p.filler))]
	cp.share()
}
