package sim

import (
	"bufio"
	"net/http"
	"strconv"
)

// respond serves g without streaming: the whole answer once it is done,
// shaped as vLLM's (fields in its order). Prompt logprobs are written as
// they are computed, so a long prompt's are never held whole.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, g *genRequest) {
	var snap snapshot
	for !snap.done {
		var ok bool
		if snap, ok = s.wait(r, g); !ok {
			return
		}
	}
	if snap.failed {
		writeError(w, http.StatusServiceUnavailable, "", "The simulated server shut down before the answer was complete.")
		return
	}
	o := s.render(g, &snap)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	object := "text_completion"
	if g.chat {
		object = "chat.completion"
	}
	buf := s.appendObjectHead(nil, g, object)
	buf = append(buf, `"choices":[{"index":0,`...)
	buf = appendChoiceText(buf, g, &o, s.opts.reasoningField())
	buf = append(buf, o.logprobs...)
	buf = append(buf, `,"finish_reason":"`...)
	buf = append(buf, g.reason...)
	buf = append(buf, `","stop_reason":null,"token_ids":`...)
	buf = appendIDsOrNull(buf, o.ids, g.lp.tokenIDs)
	if !g.chat {
		buf = append(buf, `,"prompt_logprobs":`...)
		buf = s.flushPromptLogprobs(bw, buf, g, &snap)
		buf = append(buf, `,"prompt_token_ids":`...)
		buf = appendIDsOrNull(buf, g.prompt, g.lp.tokenIDs)
	}
	buf = append(buf, `}],"usage":{"prompt_tokens":`...)
	buf = strconv.AppendInt(buf, int64(g.promptLen), 10)
	buf = append(buf, `,"total_tokens":`...)
	buf = strconv.AppendInt(buf, int64(g.promptLen+snap.tokens), 10)
	buf = append(buf, `,"completion_tokens":`...)
	buf = strconv.AppendInt(buf, int64(snap.tokens), 10)
	buf = append(buf, `,"prompt_tokens_details":null}`...)
	if g.chat {
		buf = append(buf, `,"prompt_logprobs":`...)
		buf = s.flushPromptLogprobs(bw, buf, g, &snap)
		buf = append(buf, `,"prompt_token_ids":`...)
		buf = appendIDsOrNull(buf, g.prompt, g.lp.tokenIDs)
	}
	buf = append(buf, "}\n"...)
	_, _ = bw.Write(buf)
}

// appendChoiceText appends a whole answer's text: chat's message (its
// reasoning under field) or completions' text, up to the logprobs field's
// name.
func appendChoiceText(buf []byte, g *genRequest, o *output, field string) []byte {
	if !g.chat {
		buf = append(buf, `"text":`...)
		buf = appendJSONString(buf, string(o.content))
		return append(buf, `,"logprobs":`...)
	}
	buf = append(buf, `"message":{"role":"assistant","content":`...)
	buf = appendJSONString(buf, string(o.content))
	buf = append(buf, ',')
	buf = append(buf, field...)
	if g.reasoningTokens > 0 {
		buf = appendJSONString(buf, string(o.reasoning))
	} else {
		buf = append(buf, "null"...)
	}
	return append(buf, `,"tool_calls":[]},"logprobs":`...)
}

// flushPromptLogprobs appends null, or writes buf and then g's prompt
// logprobs to bw and returns buf emptied.
func (s *Server) flushPromptLogprobs(bw *bufio.Writer, buf []byte, g *genRequest, snap *snapshot) []byte {
	if g.lp.prompt == -1 {
		return append(buf, "null"...)
	}
	_, _ = bw.Write(buf)
	s.writePromptLogprobs(bw, g.prompt, g.lp.prompt, snap.batch)
	return buf[:0]
}

func appendIDsOrNull(buf []byte, ids []int32, asked bool) []byte {
	if !asked {
		return append(buf, "null"...)
	}
	return appendIDs(buf, ids)
}

// output is a whole answer rendered: its text and what else was asked.
type output struct {
	content, reasoning []byte
	logprobs           []byte // the logprobs field's JSON value
	ids                []int32
}

// render renders g's snap.tokens output tokens.
func (s *Server) render(g *genRequest, snap *snapshot) output {
	var o output
	var lps completionLogprobs
	var items []byte
	if g.lp.tokenIDs {
		o.ids = make([]int32, 0, snap.tokens)
	}
	for i := range snap.tokens {
		id, d := s.nextToken(g, snap)
		if g.chat && i < g.reasoningTokens {
			o.reasoning = append(o.reasoning, s.tok.pieces[id]...)
		} else {
			o.content = append(o.content, s.tok.pieces[id]...)
		}
		if g.lp.tokenIDs {
			o.ids = append(o.ids, id)
		}
		switch {
		case d == nil:
		case g.chat:
			if len(items) > 0 {
				items = append(items, ',')
			}
			items = s.appendChatLogprob(items, d, g.lp.top, g.lp.asIDs)
		default:
			lps.add(s, d, g.lp.top, g.lp.asIDs, &g.out.offset)
		}
	}
	switch {
	case g.lp.top == -1:
		o.logprobs = []byte("null")
	case g.chat:
		o.logprobs = append(append([]byte(`{"content":[`), items...), "]}"...)
	default:
		o.logprobs = lps.appendTo(nil)
	}
	return o
}
