package sim

import (
	"net/http"
	"strings"
)

// respond serves g without streaming: the whole answer once it is done.
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
	var reasoning, content strings.Builder
	for i := range snap.tokens {
		piece := s.tok.pieces[s.tok.outputToken(g.textBase, i, snap.loop)]
		if g.chat && i < g.reasoningTokens {
			reasoning.WriteString(piece)
		} else {
			content.WriteString(piece)
		}
	}
	usage := map[string]any{
		"prompt_tokens": g.promptLen, "total_tokens": g.promptLen + snap.tokens,
		"completion_tokens": snap.tokens, "prompt_tokens_details": nil,
	}
	if !g.chat {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": g.id, "object": "text_completion", "created": g.created, "model": s.prof.ServedModel,
			"choices": []map[string]any{{
				"index": 0, "text": content.String(), "logprobs": nil,
				"finish_reason": g.reason, "stop_reason": nil, "prompt_logprobs": nil,
			}},
			"usage": usage,
		})
		return
	}
	var rc any
	if g.reasoningTokens > 0 {
		rc = reasoning.String()
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": g.id, "object": "chat.completion", "created": g.created, "model": s.prof.ServedModel,
		"choices": []map[string]any{{
			"index": 0, "logprobs": nil, "finish_reason": g.reason, "stop_reason": nil,
			"message": map[string]any{"role": "assistant", "content": content.String(), "reasoning_content": rc, "tool_calls": []any{}},
		}},
		"usage": usage, "prompt_logprobs": nil,
	})
}
