package sim

import (
	"net/http"
	"strconv"
	"unicode/utf8"
)

// stream serves g as server-sent events, one chunk per token, shaped like
// vLLM's: chat opens with a role delta; reasoning tokens come as
// reasoning deltas (reasoning_content with Options.OldReasoningField); with stream_options.include_usage a last chunk
// with empty choices carries the usage, and with continuous_usage_stats too
// every chunk carries the usage so far; then "data: [DONE]".
func (s *Server) stream(w http.ResponseWriter, r *http.Request, g *genRequest) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	f := s.opts.Faults
	buf := make([]byte, 0, 4096)
	sent := 0
	for {
		snap, ok := s.wait(r, g)
		if !ok {
			return
		}
		buf = buf[:0]
		for sent < snap.tokens {
			if f.DisconnectAfterTokens > 0 && sent >= f.DisconnectAfterTokens {
				s.cutOff(w, rc, g, buf)
			}
			if f.StallAfterTokens > 0 && sent >= f.StallAfterTokens {
				s.stall(w, rc, r, g, buf)
				return
			}
			if sent == 0 && g.chat {
				buf = s.appendChunk(buf, g, -1, nil, 0)
			}
			last := snap.done && sent+1 == snap.tokens
			buf = s.appendChunk(buf, g, sent, &snap, boolInt(last))
			sent++
		}
		if snap.failed {
			// The server closed mid-answer: end without [DONE].
			_, _ = w.Write(buf)
			return
		}
		if snap.done {
			if g.includeUsage {
				buf = s.appendUsageChunk(buf, g, sent)
			}
			buf = append(buf, "data: [DONE]\n\n"...)
		}
		if _, err := w.Write(buf); err != nil {
			s.disconnected(g.q)
			return
		}
		_ = rc.Flush()
		if snap.done {
			return
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wait blocks until g's stream changes; ok is false if the client left (the
// sequence is then aborted, at once or after the linger fault's time) or the
// server closed.
func (s *Server) wait(r *http.Request, g *genRequest) (snapshot, bool) {
	select {
	case <-g.q.out.notify:
		return g.q.out.snapshot(), true
	case <-r.Context().Done():
		s.disconnected(g.q)
		return snapshot{}, false
	case <-s.done:
		return snapshot{}, false
	}
}

// cutOff sends what is pending and drops the connection mid-stream (the
// disconnect fault).
func (s *Server) cutOff(w http.ResponseWriter, rc *http.ResponseController, g *genRequest, buf []byte) {
	_, _ = w.Write(buf)
	_ = rc.Flush()
	s.abort(g.q)
	panic(http.ErrAbortHandler)
}

// stall sends what is pending, then nothing more until the client gives up
// (the stall fault).
func (s *Server) stall(w http.ResponseWriter, rc *http.ResponseController, r *http.Request, g *genRequest, buf []byte) {
	_, _ = w.Write(buf)
	_ = rc.Flush()
	s.abort(g.q)
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// appendChunk appends the event for output token i (i < 0: chat's role
// chunk). last is 1 when the token ends the sequence. Logprobs and token
// ids appear only when the request asked for them.
func (s *Server) appendChunk(buf []byte, g *genRequest, i int, snap *snapshot, last int) []byte {
	buf = s.appendHead(buf, g)
	text, id := "", int32(-1)
	var d *lmDist
	if i >= 0 {
		id, d = s.nextToken(g, snap)
		text = s.tok.pieces[id]
	}
	finish := "null"
	if last == 1 {
		finish = `"` + g.reason + `"`
	}
	switch {
	case !g.chat:
		buf = s.appendCompletionChoice(buf, g, i, id, text, d, finish)
	case i < 0:
		buf = append(buf, `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`...)
		if g.lp.tokenIDs {
			buf = append(buf, `,"prompt_token_ids":`...)
			buf = appendIDs(buf, g.prompt)
		}
	default:
		buf = s.appendChatChoice(buf, g, i, id, text, d, finish)
	}
	switch {
	case g.continuousUsage:
		buf = append(buf, `,"usage":`...)
		buf = appendUsage(buf, g.promptLen, i+1)
	case !g.chat:
		buf = append(buf, `,"usage":null`...)
	}
	return append(buf, "}\n\n"...)
}

// appendCompletionChoice appends a completions chunk's choices for token
// i (id, its text and distribution).
func (s *Server) appendCompletionChoice(buf []byte, g *genRequest, i int, id int32, text string, d *lmDist, finish string) []byte {
	buf = append(buf, `"choices":[{"index":0,"text":`...)
	buf = appendJSONString(buf, text)
	buf = append(buf, `,"logprobs":`...)
	buf = s.appendChunkLogprobs(buf, g, d)
	buf = append(buf, `,"finish_reason":`...)
	buf = append(buf, finish...)
	buf = append(buf, `,"stop_reason":null`...)
	if g.lp.tokenIDs {
		buf = append(buf, `,"prompt_token_ids":`...)
		buf = appendIDsOrNull(buf, g.prompt, i == 0)
		buf = append(buf, `,"token_ids":[`...)
		buf = strconv.AppendInt(buf, int64(id), 10)
		buf = append(buf, ']')
	}
	return append(buf, "}]"...)
}

// appendChatChoice appends a chat chunk's choices for token i: a content
// delta, or a reasoning one while the reasoning lasts.
func (s *Server) appendChatChoice(buf []byte, g *genRequest, i int, id int32, text string, d *lmDist, finish string) []byte {
	field := `"content":`
	if i < g.reasoningTokens {
		field = s.opts.reasoningField()
	}
	buf = append(buf, `"choices":[{"index":0,"delta":{`...)
	buf = append(buf, field...)
	buf = appendJSONString(buf, text)
	buf = append(buf, `},"logprobs":`...)
	buf = s.appendChunkLogprobs(buf, g, d)
	buf = append(buf, `,"finish_reason":`...)
	buf = append(buf, finish...)
	if finish != "null" {
		buf = append(buf, `,"stop_reason":null`...)
	}
	if g.lp.tokenIDs {
		buf = append(buf, `,"token_ids":[`...)
		buf = strconv.AppendInt(buf, int64(id), 10)
		buf = append(buf, ']')
	}
	return append(buf, "}]"...)
}

// appendChunkLogprobs appends a chunk's logprobs value for its one token:
// null when none were asked.
func (s *Server) appendChunkLogprobs(buf []byte, g *genRequest, d *lmDist) []byte {
	if d == nil {
		return append(buf, "null"...)
	}
	if g.chat {
		buf = append(buf, `{"content":[`...)
		buf = s.appendChatLogprob(buf, d, g.lp.top, g.lp.asIDs)
		return append(buf, "]}"...)
	}
	var c completionLogprobs
	c.add(s, d, g.lp.top, g.lp.asIDs, &g.out.offset)
	return c.appendTo(buf)
}

// appendHead starts a stream event: "data: " and the chunk's head.
func (s *Server) appendHead(buf []byte, g *genRequest) []byte {
	buf = append(buf, "data: "...)
	if g.chat {
		return s.appendObjectHead(buf, g, "chat.completion.chunk")
	}
	return s.appendObjectHead(buf, g, "text_completion")
}

// appendObjectHead appends an answer's opening fields: {"id", "object",
// "created", "model", and the comma before the next.
func (s *Server) appendObjectHead(buf []byte, g *genRequest, object string) []byte {
	buf = append(buf, `{"id":"`...)
	buf = append(buf, g.id...)
	buf = append(buf, `","object":"`...)
	buf = append(buf, object...)
	buf = append(buf, `","created":`...)
	buf = strconv.AppendInt(buf, g.created, 10)
	buf = append(buf, `,"model":`...)
	buf = appendJSONString(buf, s.prof.ServedModel)
	return append(buf, ',')
}

func (s *Server) appendUsageChunk(buf []byte, g *genRequest, completion int) []byte {
	buf = s.appendHead(buf, g)
	buf = append(buf, `"choices":[],"usage":`...)
	buf = appendUsage(buf, g.promptLen, completion)
	return append(buf, "}\n\n"...)
}

// appendUsage appends vLLM's UsageInfo.
func appendUsage(buf []byte, prompt, completion int) []byte {
	buf = append(buf, `{"prompt_tokens":`...)
	buf = strconv.AppendInt(buf, int64(prompt), 10)
	buf = append(buf, `,"total_tokens":`...)
	buf = strconv.AppendInt(buf, int64(prompt+completion), 10)
	buf = append(buf, `,"completion_tokens":`...)
	buf = strconv.AppendInt(buf, int64(completion), 10)
	return append(buf, '}')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
			i++
		case c == '\n':
			buf = append(buf, '\\', 'n')
			i++
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				buf = append(buf, `\ufffd`...)
			} else {
				buf = append(buf, s[i:i+n]...)
			}
			i += n
		}
	}
	return append(buf, '"')
}
