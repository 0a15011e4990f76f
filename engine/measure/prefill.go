package measure

import (
	"context"
	"errors"
	"speedmatrix/engine"
	"time"

	"speedmatrix/engine/openai"
)

// runPrefill measures one prefill cell: one request with a cold prefix and
// max_tokens 1; prompt tok/s = prompt tokens ÷ TTFT. It also warms the
// prefix cache for the decode cells of its context.
func (r *runner) runPrefill(ctx context.Context, cell engine.Cell, cp *contextPrompt) (engine.Result, time.Time, time.Time) {
	res := engine.Result{Cell: cell, ContextLabel: engine.ContextLabel(cell.ContextTokens), StartedAt: time.Now()}
	rec, err := r.oneToken(ctx, cp)
	res.FinishedAt = time.Now()
	sample := engine.RequestSample{PromptTokens: rec.PromptTokens, FinishReason: rec.FinishReason}
	switch {
	case ctx.Err() != nil:
		res.Status, res.Error = engine.StatusCancelled, "cancelled"
		return res, time.Time{}, time.Time{}
	case err != nil:
		r.live.suspect(err)
		res.Status, res.Error = engine.StatusFailed, err.Error()
		sample.Error = err.Error()
		res.Requests = []engine.RequestSample{sample}
		return res, time.Time{}, time.Time{}
	}
	ttft := rec.FirstToken.Sub(rec.Sent)
	prompt := rec.PromptTokens
	if prompt == 0 {
		prompt = cell.ContextTokens
	}
	if r.prompts.exact && rec.PromptTokens > 0 && rec.PromptTokens != cell.ContextTokens {
		r.logf("prefill %s: the server counted %d prompt tokens for a prompt of %d",
			engine.ContextLabel(cell.ContextTokens), rec.PromptTokens, cell.ContextTokens)
	}
	r.prompts.adjust(cp, rec.PromptTokens)
	sample.TTFTMs = ms(ttft)
	sample.Completed = true
	sample.OutputTokens = max(rec.FinalTokens, 0)
	res.Status = engine.StatusValid
	res.PromptTokens = prompt
	res.TTFTMs = ms(ttft)
	res.TTFTPct = engine.Percentiles{P50: res.TTFTMs, P90: res.TTFTMs, P99: res.TTFTMs, N: 1} // one request
	if ttft > 0 {
		res.TotalTokPerSec = float64(prompt) / ttft.Seconds()
		sample.TokensPerSec = res.TotalTokPerSec
	}
	res.Completed = 1
	res.Requests = []engine.RequestSample{sample}
	return res, rec.Sent, rec.FirstToken
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
