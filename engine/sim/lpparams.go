package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
)

// DefaultMaxLogprobs is vLLM's --max-logprobs default, and the
// simulator's when Options.MaxLogprobs is 0.
const DefaultMaxLogprobs = 20

// MaxLogprobsLimit is the most Options.MaxLogprobs may be: the
// pseudo-model has lmCandidates explicit candidates, and the top this many
// are exact whatever the drift reorders (lm.go).
const MaxLogprobsLimit = 32

// lpRequest is what a generation request asked for beyond its text.
type lpRequest struct {
	top      int  // top logprobs per generated token; -1: no logprobs, lpAll: the vocabulary
	prompt   int  // prompt_logprobs per prompt position; -1: none, lpAll: the vocabulary
	tokenIDs bool // return_token_ids: the prompt's and the output's ids
	asIDs    bool // return_tokens_as_token_ids: "token_id:N" for token strings
}

// lpAll is a count of -1 in a request: every token of the vocabulary.
const lpAll = -2

// noLogprobs is a request that asked for none of it.
var noLogprobs = lpRequest{top: -1, prompt: -1}

// vllmBad is a VLLMValidationError as vLLM 0.32 answers it: the message,
// then "(parameter=P, value=V)" (value left out when nil).
func vllmBad(param string, value any, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if value != nil {
		msg += fmt.Sprintf(" (parameter=%s, value=%v)", param, value)
	} else {
		msg += fmt.Sprintf(" (parameter=%s)", param)
	}
	return &badRequest{Code: http.StatusBadRequest, Param: param, Msg: msg}
}

// optInt reads an optional integer field; set is false for absent or null.
// A value that is not a number is vLLM's "must be an integer".
func optInt(raw rawJSON, name string) (v int, set bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1<<30 {
		return 0, false, vllmBad(name, strings.Trim(string(raw), `"`), "`%s` must be an integer.", name)
	}
	return int(f), true, nil
}

// optBool reads chat's logprobs as pydantic's lax bool does.
func optBool(raw rawJSON, name string) (bool, error) {
	s := strings.ToLower(strings.Trim(string(raw), `"`))
	switch s {
	case "", "null", "false", "0", "f", "n", "no", "off":
		return false, nil
	case "true", "1", "t", "y", "yes", "on":
		return true, nil
	}
	return false, &badRequest{Code: http.StatusBadRequest, Type: "Bad Request", Param: "body." + name,
		Msg: fmt.Sprintf("1 validation error:\n  {'type': 'bool_parsing', 'loc': 'body.%s', 'msg': 'Input should be a valid boolean, unable to interpret input', 'input': '%s'}", name, s)}
}

// logprobParams validates what body asks for, in vLLM's order of checks
// (its request model's, before the prompt is read): completions take
// logprobs as a number, chat as a bool with top_logprobs.
func logprobParams(body *genBody, chat bool) (lpRequest, error) {
	lp := noLogprobs
	lp.tokenIDs, lp.asIDs = body.ReturnTokenIDs, body.ReturnTokensAsTokenIDs
	prompt, promptSet, err := optInt(body.PromptLogprobs, "prompt_logprobs")
	if err != nil {
		return lp, err
	}
	second, raw := "logprobs", body.Logprobs
	if chat {
		second, raw = "top_logprobs", body.TopLogprobs
	}
	top, topSet, err := optInt(raw, second)
	if err != nil {
		return lp, err
	}
	if promptSet {
		if body.Stream && (prompt > 0 || prompt == -1) {
			return lp, vllmBad("prompt_logprobs", nil, "`prompt_logprobs` are not available when `stream=True`.")
		}
		if prompt < -1 {
			return lp, vllmBad("prompt_logprobs", prompt, "`prompt_logprobs` must be a positive value or -1.")
		}
		lp.prompt = prompt
		if prompt == -1 {
			lp.prompt = lpAll
		}
	}
	if topSet && top < -1 {
		return lp, vllmBad(second, top, "`%s` must be a positive value or -1.", second)
	}
	if topSet && top == -1 {
		top = lpAll
	}
	if !chat {
		if topSet {
			lp.top = top
		}
		return lp, nil
	}
	if topSet && (top == lpAll || top > 0) && !truthy(body.Logprobs) {
		return lp, vllmBad("top_logprobs", nil, "when using `top_logprobs`, `logprobs` must be set to true.")
	}
	want, err := optBool(body.Logprobs, "logprobs")
	if err != nil {
		return lp, err
	}
	if want {
		lp.top = top // top_logprobs defaults to 0: the chosen token's logprob alone
	}
	return lp, nil
}

// truthy is Python's truth of a JSON value, as vLLM's request model
// tests logprobs before it parses it as a bool.
func truthy(raw rawJSON) bool {
	switch strings.TrimSpace(string(raw)) {
	case "", "null", "false", "0", "0.0", `""`, "[]", "{}":
		return false
	}
	return true
}

// checkCap is vLLM's check of the counts against --max-logprobs, made
// after the prompt was read: -1 asks for the whole vocabulary.
func (s *Server) checkCap(lp lpRequest) error {
	limit := s.maxLogprobs()
	vocab := s.tok.vocabSize()
	count := func(n int) int {
		if n == lpAll {
			return vocab
		}
		return n
	}
	if n := count(lp.top); n > limit {
		return vllmBad("logprobs", n, "Requested sample logprobs of %d, which is greater than max allowed: %d", n, limit)
	}
	if n := count(lp.prompt); n > limit {
		return vllmBad("prompt_logprobs", n, "Requested prompt logprobs of %d, which is greater than max allowed: %d", n, limit)
	}
	return nil
}

func (s *Server) maxLogprobs() int {
	if s.opts.MaxLogprobs == 0 {
		return DefaultMaxLogprobs
	}
	return s.opts.MaxLogprobs
}
