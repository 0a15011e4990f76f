package measure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"speedmatrix/engine"
	"time"

	"speedmatrix/engine/openai"
)

// runPrefill measures one prefill cell: Plan.PrefillRepeatsAt cold
// requests, one after the other, each with max_tokens 1 and a prefix of its
// own (forRepeat); prompt tok/s = prompt tokens ÷ their median TTFT. The
// last is request 0 of the context's own prompt, which warms the prefix
// cache for the decode cells of the context as the single request did
// before repeats: being last, no other repeat's cold blocks can push it out
// of a small cache before those cells start.
func (r *runner) runPrefill(ctx context.Context, cell engine.Cell, cp *contextPrompt) (engine.Result, time.Time, time.Time) {
	res := engine.Result{Cell: cell, ContextLabel: engine.ContextLabel(cell.ContextTokens), StartedAt: time.Now()}
	n := r.plan.PrefillRepeatsAt(cell.ContextTokens)
	var first, last requestRecord
	prompt, logged := cell.ContextTokens, false
	for k := 1; k <= n; k++ {
		rec, err := r.prefillRepeat(ctx, cp, k, n)
		sample := engine.RequestSample{PromptTokens: rec.PromptTokens, FinishReason: rec.FinishReason}
		switch {
		case ctx.Err() != nil:
			res.FinishedAt = time.Now()
			res.Status, res.Error = engine.StatusCancelled, "cancelled"
			return res, time.Time{}, time.Time{}
		case err != nil:
			r.live.suspect(err)
			res.FinishedAt = time.Now()
			res.Status, res.Error = engine.StatusFailed, err.Error()
			if n > 1 {
				res.Error = fmt.Sprintf("prefill repeat %d of %d: %v", k, n, err)
			}
			sample.Error = err.Error()
			res.Requests = append(res.Requests, sample)
			return res, time.Time{}, time.Time{}
		}
		if r.prompts.exact && rec.PromptTokens > 0 && rec.PromptTokens != cell.ContextTokens && !logged {
			r.logf("prefill %s: the server counted %d prompt tokens for a prompt of %d",
				engine.ContextLabel(cell.ContextTokens), rec.PromptTokens, cell.ContextTokens)
			logged = true
		}
		if k == 1 {
			first = rec
		}
		last = rec
		if k == n && rec.PromptTokens > 0 {
			prompt = rec.PromptTokens
		}
		ttft := rec.FirstToken.Sub(rec.Sent)
		sample.TTFTMs = ms(ttft)
		sample.Completed = true
		sample.OutputTokens = max(rec.FinalTokens, 0)
		if ttft > 0 {
			sample.TokensPerSec = float64(cmp.Or(rec.PromptTokens, cell.ContextTokens)) / ttft.Seconds()
		}
		res.Requests = append(res.Requests, sample)
	}
	res.FinishedAt = time.Now()
	res.Status = engine.StatusValid
	res.PromptTokens = prompt
	res.Completed = n
	summarizePrefill(&res)
	return res, first.Sent, last.FirstToken
}

// prefillRepeat sends repeat k of n of a prefill cell: a prompt of its own
// (forRepeat), or for the last the context's own prompt, which the server's
// count then corrects when it was calibrated (adjust).
func (r *runner) prefillRepeat(ctx context.Context, cp *contextPrompt, k, n int) (requestRecord, error) {
	if k < n {
		rp, err := r.prompts.forRepeat(ctx, cp, k)
		if err != nil {
			return requestRecord{}, err
		}
		return r.oneToken(ctx, rp)
	}
	rec, err := r.oneToken(ctx, cp)
	if err == nil {
		r.prompts.adjust(cp, rec.PromptTokens)
	}
	return rec, err
}

// summarizePrefill sets a measured prefill cell's figures from its
// requests (one per repeat, each with its TTFT and prompt tok/s): TTFT and
// its percentiles over the repeats, prompt tok/s = PromptTokens ÷ the
// median TTFT, and the spread of the repeats' prompt tok/s, (max − min) ÷
// median, for more than one.
func summarizePrefill(res *engine.Result) {
	ttfts := make([]float64, len(res.Requests))
	rates := make([]float64, len(res.Requests))
	for i, s := range res.Requests {
		ttfts[i], rates[i] = s.TTFTMs, s.TokensPerSec
	}
	res.PrefillRepeats = len(res.Requests)
	res.TTFTPct = percentiles(ttfts)
	res.TTFTMs = res.TTFTPct.P50
	if res.TTFTMs > 0 {
		res.TotalTokPerSec = float64(res.PromptTokens) / (res.TTFTMs / 1000)
	}
	if median := percentiles(rates).P50; len(rates) > 1 && median > 0 {
		res.PrefillSpreadPct = (slices.Max(rates) - slices.Min(rates)) / median * 100
	}
}

// warm sends the context's prompt once, unmeasured, so that decode cells at
// a context without a prefill cell also start from a warm prefix cache.
func (r *runner) warm(ctx context.Context, cp *contextPrompt) {
	rec, err := r.oneToken(ctx, cp)
	if err != nil && ctx.Err() == nil {
		r.live.suspect(err)
		r.logf("warm-up at %s failed: %v", engine.ContextLabel(cp.Tokens), err)
		return
	}
	r.prompts.adjust(cp, rec.PromptTokens)
}

// oneToken sends request 0 of the context with max_tokens 1, again after
// the backoff while the server rejects it (429, 503): what is measured is
// the request it accepted.
func (r *runner) oneToken(ctx context.Context, cp *contextPrompt) (requestRecord, error) {
	b := backoff{opts: &r.opts}
	for {
		rec, err := r.sendOneToken(ctx, cp)
		if !errors.Is(err, openai.ErrRejected) {
			return rec, err
		}
		wait, gaveUp := b.after(err)
		if gaveUp != nil {
			return rec, gaveUp
		}
		if !r.opts.sleep(ctx, wait) {
			return rec, err
		}
	}
}

// sendOneToken sends request 0 of the context with max_tokens 1. Its first
// token is the first chunk that carried one; a server whose single token
// produced no text (a reasoning parser swallowing a marker) is timed at the
// end of the stream, which for one token is the same moment.
func (r *runner) sendOneToken(ctx context.Context, cp *contextPrompt) (requestRecord, error) {
	shared, text, ids := cp.request(0)
	req := openai.StreamRequest{
		API: string(r.plan.API), Model: r.setup.Model, Shared: shared, Prompt: text, PromptTokenIDs: ids,
		MaxTokens: 1, ContinuousUsage: true,
	}
	rec := requestRecord{FinalTokens: -1, Sent: time.Now()}
	var counter tokenCounter
	st, err := r.client.Stream(ctx, req, func(ch openai.Chunk) {
		if _, ok := counter.count(ch); ok && rec.FirstToken.IsZero() {
			rec.FirstToken = ch.Arrived
		}
	})
	if !st.Sent.IsZero() {
		rec.Sent = st.Sent
	}
	if st.Usage != nil {
		rec.PromptTokens, rec.FinalTokens = st.Usage.PromptTokens, st.Usage.CompletionTokens
	}
	rec.FinishReason, rec.End = st.FinishReason, st.End
	if rec.FirstToken.IsZero() {
		rec.FirstToken = st.End
	}
	return rec, err
}
