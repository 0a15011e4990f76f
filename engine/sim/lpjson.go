package sim

import (
	"bufio"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Logprobs as vLLM 0.32 writes them (its completion and chat serving
// code; testdata/vllm-0.32.0-cpu holds what it answered):
//
//   - completions: choices[0].logprobs = {"text_offset", "token_logprobs",
//     "tokens", "top_logprobs"}, four arrays with one entry per token; a
//     top_logprobs entry maps token strings to logprobs, the chosen token
//     and the top K (so max(K, 1) entries, as the simulator is greedy);
//   - chat: choices[0].logprobs.content[i] = {"token", "logprob", "bytes",
//     "top_logprobs": [{"token", "logprob", "bytes"}] (K entries)};
//   - prompt_logprobs (choices[0] of completions, the top level of chat):
//     null for the first position, then {"id": {"logprob", "rank",
//     "decoded_token"}}, the prompt's token first, then the top K.
//
// With return_tokens_as_token_ids, token strings are "token_id:N"; a
// chat item's own bytes stay those of its text, as vLLM's do.

// tokenText is token id's text as vLLM decodes it: invalid UTF-8 (a
// lone byte of byte fallback) becomes U+FFFD.
func (s *Server) tokenText(id int32) string {
	var text string
	if int(id) < len(s.tok.pieces) {
		text = s.tok.pieces[id]
	} else {
		text = string(s.tok.decode(nil, []int32{id}))
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return text
}

// tokenString is how logprobs name token id: its text, or "token_id:N".
func (s *Server) tokenString(id int32, asIDs bool) string {
	if asIDs {
		return "token_id:" + strconv.Itoa(int(id))
	}
	return s.tokenText(id)
}

func appendLogprob(buf []byte, lp float64) []byte {
	return strconv.AppendFloat(buf, max(lp, -9999), 'g', -1, 64)
}

// appendIDs appends ids as a JSON array.
func appendIDs(buf []byte, ids []int32) []byte {
	buf = append(buf, '[')
	for i, id := range ids {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(id), 10)
	}
	return append(buf, ']')
}

// completionLogprobs collects completions' four parallel arrays.
type completionLogprobs struct {
	offsets, lps, tokens, tops []byte
}

// add appends the token chosen from d, with k top logprobs; offset is
// the request's text offset, advanced by the token string's length in
// characters (as Python counts).
func (c *completionLogprobs) add(s *Server, d *lmDist, k int, asIDs bool, offset *int) {
	if len(c.offsets) > 0 {
		c.offsets, c.lps, c.tokens, c.tops = append(c.offsets, ','), append(c.lps, ','), append(c.tokens, ','), append(c.tops, ',')
	}
	tok := s.tokenString(d.id[0], asIDs)
	c.offsets = strconv.AppendInt(c.offsets, int64(*offset), 10)
	*offset += utf8.RuneCountInString(tok)
	c.lps = appendLogprob(c.lps, d.lp[0])
	c.tokens = appendJSONString(c.tokens, tok)
	c.tops = append(c.tops, '{')
	for j := range max(k, 1) {
		if j > 0 {
			c.tops = append(c.tops, ',')
		}
		c.tops = appendJSONString(c.tops, s.tokenString(d.id[j], asIDs))
		c.tops = append(c.tops, ':')
		c.tops = appendLogprob(c.tops, d.lp[j])
	}
	c.tops = append(c.tops, '}')
}

// appendTo appends the logprobs object and empties c.
func (c *completionLogprobs) appendTo(buf []byte) []byte {
	buf = append(buf, `{"text_offset":[`...)
	buf = append(buf, c.offsets...)
	buf = append(buf, `],"token_logprobs":[`...)
	buf = append(buf, c.lps...)
	buf = append(buf, `],"tokens":[`...)
	buf = append(buf, c.tokens...)
	buf = append(buf, `],"top_logprobs":[`...)
	buf = append(buf, c.tops...)
	c.offsets, c.lps, c.tokens, c.tops = c.offsets[:0], c.lps[:0], c.tokens[:0], c.tops[:0]
	return append(buf, "]}"...)
}

// appendChatLogprob appends chat's logprobs item for the token chosen
// from d, with k top logprobs.
func (s *Server) appendChatLogprob(buf []byte, d *lmDist, k int, asIDs bool) []byte {
	buf = append(buf, `{"token":`...)
	buf = appendJSONString(buf, s.tokenString(d.id[0], asIDs))
	buf = append(buf, `,"logprob":`...)
	buf = appendLogprob(buf, d.lp[0])
	buf = append(buf, `,"bytes":`...)
	buf = appendBytes(buf, s.tokenText(d.id[0]))
	buf = append(buf, `,"top_logprobs":[`...)
	for j := range k {
		if j > 0 {
			buf = append(buf, ',')
		}
		tok := s.tokenString(d.id[j], asIDs)
		buf = append(buf, `{"token":`...)
		buf = appendJSONString(buf, tok)
		buf = append(buf, `,"logprob":`...)
		buf = appendLogprob(buf, d.lp[j])
		buf = append(buf, `,"bytes":`...)
		buf = appendBytes(buf, tok)
		buf = append(buf, '}')
	}
	return append(buf, "]}"...)
}

// appendBytes appends s's UTF-8 bytes as a JSON array of numbers.
func appendBytes(buf []byte, s string) []byte {
	buf = append(buf, '[')
	for i := 0; i < len(s); i++ {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(s[i]), 10)
	}
	return append(buf, ']')
}

// writePromptLogprobs writes prompt_logprobs for ids with k top logprobs
// each, position by position: a long prompt's (hundreds of megabytes at
// 128K tokens and top-20, as vLLM's) is never held whole. batch keys the
// batch jitter, as for the generated tokens.
func (s *Server) writePromptLogprobs(w *bufio.Writer, ids []int32, k, batch int) {
	buf := make([]byte, 0, 128+k*64)
	buf = append(buf, "[null"...)
	st := lmStart(s.lm.key)
	for t := 1; t < len(ids); t++ {
		st = st.then(ids[t-1])
		d := s.lm.dist(st, s.lm.sources(st.n, batch), -1)
		lp, rank := d.lookup(ids[t])
		buf = append(buf, ",{"...)
		buf = s.appendPromptEntry(buf, ids[t], lp, rank)
		for j := range k {
			if d.id[j] != ids[t] {
				buf = append(buf, ',')
				buf = s.appendPromptEntry(buf, d.id[j], d.lp[j], j+1)
			}
		}
		buf = append(buf, '}')
		_, _ = w.Write(buf)
		buf = buf[:0]
	}
	buf = append(buf, ']')
	_, _ = w.Write(buf)
}

func (s *Server) appendPromptEntry(buf []byte, id int32, lp float64, rank int) []byte {
	buf = append(buf, '"')
	buf = strconv.AppendInt(buf, int64(id), 10)
	buf = append(buf, `":{"logprob":`...)
	buf = appendLogprob(buf, lp)
	buf = append(buf, `,"rank":`...)
	buf = strconv.AppendInt(buf, int64(rank), 10)
	buf = append(buf, `,"decoded_token":`...)
	buf = appendJSONString(buf, s.tokenText(id))
	return append(buf, '}')
}
