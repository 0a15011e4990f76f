package measure

import (
	"context"
	"fmt"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/trace"
)

// readTrace reads the plan's trace for its replay, and refuses one whose
// requests do not fit the model: the first such line is named.
func readTrace(plan *engine.TracePlan, maxModelLen int) (*trace.Trace, error) {
	refuse := func(err error) error {
		return &engine.PlanError{Problems: []engine.PlanProblem{{Field: engine.FieldTrace, Problem: err.Error()}}}
	}
	t, err := trace.Read(plan.File, trace.Options{TimeScale: plan.TimeScale, BlockSize: plan.BlockSize, MaxRequests: plan.MaxRequests})
	if err != nil {
		return nil, refuse(err)
	}
	if maxModelLen > 0 {
		for _, q := range t.Requests {
			if q.Input+q.Output > maxModelLen {
				return nil, refuse(fmt.Errorf("%s line %d: %d prompt and %d output tokens do not fit the model's max_model_len %d: drop the line, or replay the requests before it with --max-requests",
					t.Name, q.Line, q.Input, q.Output, maxModelLen))
			}
		}
	}
	return t, nil
}

// traceSchedule is a trace's replay as one rate's requests, each due at
// its scaled timestamp.
func traceSchedule(t *trace.Trace) []loadRequest {
	reqs := make([]loadRequest, len(t.Requests))
	for i, q := range t.Requests {
		reqs[i] = loadRequest{At: q.At, InputTokens: q.Input, OutputTokens: q.Output, Prompt: -1, Blocks: q.Blocks, Unique: i + 1}
	}
	return reqs
}

// traceRate is the rate a trace offers: its requests over its span (0
// for a trace whose requests all arrive at once).
func traceRate(t *trace.Trace) float64 {
	if s := t.Span().Seconds(); s > 0 && len(t.Requests) > 1 {
		return float64(len(t.Requests)-1) / s
	}
	return 0
}

// traceWordsOverhead is what a trace's text prompt holds besides its
// words, in tokens: the special tokens, its first word and the chat
// template, counted with /tokenize; an estimate without it (the server's
// count then differs, and the rate is flagged).
func (lp *loadPrompts) traceWordsOverhead(ctx context.Context) (int, error) {
	p := lp.p
	if !p.exact {
		return 2, nil
	}
	ids, err := p.client.Tokenize(ctx, p.model, traceText(p.tailLetters, 0, 1, func(int) uint64 { return 0 }, 0))
	if err != nil {
		return 0, fmt.Errorf("tokenize: %w", err)
	}
	return len(ids) - 1 + p.chatTemplateTokens(), nil
}

// traceBlock is the id of block j of request r: its hash id, or one of
// its own for a request without them (never equal to another request's).
func traceBlock(r loadRequest, j int) uint64 {
	if r.Blocks != nil {
		return r.Blocks[j]
	}
	return mix(0x7f4a7c15f39cc060, uint64(r.Unique), uint64(j)) | 1<<63
}

// traceRequest is a trace request's prompt. Its tokens follow from its
// blocks' ids and the run's salt alone: equal ids are equal blocks (a
// prefix another request shares), different ids different blocks, and
// another run's prompts differ, so no cache of an earlier run helps. As
// token ids (completions with /tokenize), it is the special tokens, then
// each block's tokens, drawn from the filler's, cut at exactly the
// request's prompt tokens. As text, it is words of one tail letter each
// (one token each), as many as the prompt's tokens less the overhead.
func (lp *loadPrompts) traceRequest(r loadRequest) (string, []int) {
	bs := lp.trace.BlockSize
	if lp.idsMode() {
		body := lp.p.bodyIDs
		ids := make([]int, 0, r.InputTokens)
		ids = append(ids, lp.specials...)
		for j := 0; len(ids) < r.InputTokens; j++ {
			id := traceBlock(r, j)
			for t := 0; t < bs && len(ids) < r.InputTokens; t++ {
				ids = append(ids, body[mix(lp.salt, id, uint64(t))%uint64(len(body))])
			}
		}
		return "", ids
	}
	words := max(1, r.InputTokens-lp.traceOverhead)
	return traceText(lp.p.tailLetters, lp.salt, words, func(j int) uint64 { return traceBlock(r, j) }, bs), nil
}

// traceText is "Trace" then words of one letter, block after block: the
// block's id and the word's place in it pick each letter.
func traceText(letters string, salt uint64, words int, block func(int) uint64, bs int) string {
	var b strings.Builder
	b.Grow(len("Trace") + 2*words)
	b.WriteString("Trace")
	n := uint64(len(letters))
	for w := range words {
		j, t := 0, w
		if bs > 0 {
			j, t = w/bs, w%bs
		}
		b.WriteByte(' ')
		b.WriteByte(letters[mix(salt, block(j), uint64(t))%n])
	}
	return b.String()
}

// sayTrace records what is replayed of the trace, and says it: its
// requests, span and implied hit rate, and what was done to it.
func (l *loadRunner) sayTrace() {
	r := l.runner
	sum := l.trace.Summary()
	l.traceHitRate = sum.TraceHitRate
	r.mu.Lock()
	l.section.Trace = sum
	r.mu.Unlock()
	r.logf("trace %s: %d requests over %.1f s (time scale %g), %d prompt and %d output tokens; its hash ids imply a prefix-cache hit rate of %.1f %% with an unbounded cache",
		sum.Name, sum.Requests, sum.SpanS, sum.TimeScale, sum.InputTokens, sum.OutputTokens, 100*sum.TraceHitRate)
	if sum.Sorted {
		r.logf("warning: trace %s: its timestamps were out of order; they were sorted, and are replayed in time order", sum.Name)
	}
	if sum.Cut != "" {
		r.logf("trace %s: replaying %s", sum.Name, sum.Cut)
	}
}
