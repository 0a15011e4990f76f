package measure

import (
	"cmp"
	"context"
	"slices"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
)

// maxHistoryBytes bounds the text a conversation's history holds in the
// client's memory, whatever the model's context: past it, its oldest turns
// are dropped as they are to fit the context.
const maxHistoryBytes = 4 * MaxDatasetLineBytes

// history is what a conversation has said so far: its system messages,
// then its user turns, each with its answer.
type history struct {
	msgs   []openai.Message
	system int // the system messages at its start, which are always kept
	bytes  int // the text of msgs
	// known is the server's count of the tokens of msgs with the chat
	// template: the last prompt it counted, then the answer to it; 0 when
	// unknown (no usage, or turns dropped since).
	known int
}

func newHistory(system []string) *history {
	h := &history{system: len(system)}
	for _, s := range system {
		h.msgs = append(h.msgs, openai.Message{Role: "system", Content: s})
		h.bytes += len(s)
	}
	return h
}

// with is the messages of the next turn: the history, then user.
func (h *history) with(user string) []openai.Message {
	return append(slices.Clip(h.msgs), openai.Message{Role: "user", Content: user})
}

// add records a turn sent: user, and the reply kept for it, of
// replyTokens tokens (0: not known). promptTokens is the server's count of
// the prompt the turn sent (0: not known).
func (h *history) add(user, reply string, promptTokens, replyTokens int) {
	h.msgs = append(h.msgs, openai.Message{Role: "user", Content: user}, openai.Message{Role: "assistant", Content: reply})
	h.bytes += len(user) + len(reply)
	h.known = 0
	if promptTokens > 0 {
		// The reply as text may tokenize otherwise than generated: take
		// the larger of its tokens and the estimate for its text.
		h.known = promptTokens + max(replyTokens, engine.DatasetPromptTokens(len(reply)))
	}
}

// dropOldest drops the oldest turn and its answer; false when there is none.
func (h *history) dropOldest() bool {
	if len(h.msgs) < h.system+2 {
		return false
	}
	for _, m := range h.msgs[h.system : h.system+2] {
		h.bytes -= len(m.Content)
	}
	h.msgs = slices.Delete(h.msgs, h.system, h.system+2)
	h.known = 0
	return true
}

// fit is the messages of a conversation's next turn, user after the
// history, with the oldest turns dropped from the history (for good) until
// they and maxTokens fit the model's context and the history is within
// maxHistoryBytes. ok is false when even user alone after the system
// messages does not fit: the turn is then skipped.
func (l *loadRunner) fit(ctx context.Context, h *history, user string, maxTokens int) (msgs []openai.Message, dropped int, ok bool) {
	limit := l.runner.setup.MaxModelLen
	for ctx.Err() == nil {
		msgs = h.with(user)
		if h.bytes+len(user) <= maxHistoryBytes && (limit <= 0 || l.fits(ctx, h, msgs, maxTokens, limit)) {
			return msgs, dropped, true
		}
		if !h.dropOldest() {
			return nil, dropped, false
		}
		dropped++
	}
	return nil, dropped, false
}

// fits reports whether msgs, the history h and the next user turn, with
// maxTokens to generate, fit a context of limit tokens. The estimate
// (estimate) counts high: when it fits, they do. When it does not, they
// are counted exactly with the server's /tokenize, where it takes chat
// messages; else the estimate decides.
func (l *loadRunner) fits(ctx context.Context, h *history, msgs []openai.Message, maxTokens, limit int) bool {
	if l.estimate(h, msgs[len(msgs)-1].Content)+maxTokens <= limit {
		return true
	}
	r := l.runner
	if !r.prompts.exact || l.noChatCount.Load() {
		return false
	}
	n, err := r.client.TokenizeMessages(ctx, r.setup.Model, msgs)
	if err != nil {
		if ctx.Err() == nil && !l.noChatCount.Swap(true) {
			r.logf("warning: the server's /tokenize did not count a conversation's messages (%s): their tokens are estimated from its last count instead", short(err.Error()))
		}
		return false
	}
	return n+maxTokens <= limit
}

// estimate is how many tokens the history h and the next user turn take
// with the chat template, counted high: the server's count of the last
// prompt and its answer when known, else every message's text; each text
// taken at engine.DatasetPromptTokens, each message at the template's
// tokens around a whole prompt (perMessage).
func (l *loadRunner) estimate(h *history, user string) int {
	per := l.perMessage()
	n := engine.DatasetPromptTokens(len(user)) + per
	if h.known > 0 {
		return h.known + n
	}
	for _, m := range h.msgs {
		n += engine.DatasetPromptTokens(len(m.Content)) + per
	}
	return n + per // the generation prompt
}

// perMessage is the tokens taken to be the chat template's per message:
// what it adds to a whole one-message prompt when that was measured, else
// 16.
func (l *loadRunner) perMessage() int {
	return cmp.Or(l.runner.prompts.chatTemplateTokens(), 16)
}

// answerText keeps the text of a streamed answer, up to a dataset line's
// bound (MaxDatasetLineBytes); a nil one keeps nothing.
type answerText struct {
	b []byte
}

func (a *answerText) add(s string) {
	if a == nil || s == "" {
		return
	}
	a.b = append(a.b, s[:min(len(s), MaxDatasetLineBytes-len(a.b))]...)
}

func (a *answerText) text() string { return string(a.b) }

// turnStats is what each turn index did, over the requests sent: the
// first turns of every conversation, the second ones, and so on, the
// turns from engine.MaxTurnRows on pooled in the last row. TTFT counts
// from when each turn was due, over the completed ones, as computeLoad's.
func turnStats(recs []*loadRecord) []engine.TurnStats {
	type turn struct {
		sent, done, prompt int
		ttft               []float64
	}
	var turns [engine.MaxTurnRows]turn
	for _, r := range recs {
		if r.Turn < 1 || !r.Dispatched {
			continue
		}
		t := &turns[min(r.Turn, engine.MaxTurnRows)-1]
		t.sent++
		if !r.completed() {
			continue
		}
		t.done++
		t.prompt += r.PromptTokens
		if !r.FirstToken.IsZero() {
			t.ttft = append(t.ttft, ms(r.FirstToken.Sub(r.Scheduled)))
		}
	}
	var rows []engine.TurnStats
	for i, t := range turns {
		if t.sent == 0 {
			continue
		}
		row := engine.TurnStats{Turn: i + 1, Requests: t.sent, Completed: t.done, TTFTMs: counted(t.ttft)}
		if t.done > 0 {
			row.PromptTokens = float64(t.prompt) / float64(t.done)
		}
		rows = append(rows, row)
	}
	return rows
}
