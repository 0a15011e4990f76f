package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// genBody is the JSON body of /v1/completions, /v1/chat/completions and
// /tokenize (the fields the simulator uses; others are accepted and ignored).
type genBody struct {
	Model               string        `json:"model"`
	Prompt              rawJSON       `json:"prompt"`
	Messages            []chatMessage `json:"messages"`
	MaxTokens           *int          `json:"max_tokens"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
	MinTokens           int           `json:"min_tokens"`
	IgnoreEOS           bool          `json:"ignore_eos"`
	Stream              bool          `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
	N                   *int   `json:"n"`
	AddSpecialTokens    *bool  `json:"add_special_tokens"`
	AddGenerationPrompt *bool  `json:"add_generation_prompt"`
	RID                 string `json:"rid"` // SGLang: the request's id
	// Logprobs is a number for completions, a bool for chat (with
	// TopLogprobs); they and PromptLogprobs are read by logprobParams.
	Logprobs               rawJSON `json:"logprobs"`
	TopLogprobs            rawJSON `json:"top_logprobs"`
	PromptLogprobs         rawJSON `json:"prompt_logprobs"`
	ReturnTokenIDs         bool    `json:"return_token_ids"`
	ReturnTokensAsTokenIDs bool    `json:"return_tokens_as_token_ids"`
	// needleKey is the key of a needle question (needle.go), found while
	// the prompt was read; "" for any other request.
	needleKey string
}

type chatMessage struct {
	Role    string  `json:"role"`
	Content rawJSON `json:"content"`
}

// rawJSON is a value of the body left unparsed, like json.RawMessage but
// without a copy: it is a slice of the body decodeBody read, which nothing
// writes to, and it lives as long as the body. A long prompt (half a
// megabyte at 128K tokens) is then held once per request, not twice.
type rawJSON []byte

// UnmarshalJSON keeps b itself: json.Unmarshal hands its Unmarshalers
// slices of the input it was given, and decodeBody's input is ours alone.
func (r *rawJSON) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// badRequest is an error answered with HTTP 400 (or Code when set), of
// vLLM's type for the code unless Type is set.
type badRequest struct {
	Code  int
	Type  string
	Param string
	Msg   string
}

func (e *badRequest) Error() string { return e.Msg }

func badf(param, format string, args ...any) error {
	return &badRequest{Code: http.StatusBadRequest, Param: param, Msg: fmt.Sprintf(format, args...)}
}

// maxBodyBytes bounds a request body.
const maxBodyBytes = 64 << 20

// decodeBody reads a JSON request body: into one buffer of its declared
// length when it has one (a 128K-token prompt is half a megabyte, and a
// cell sends as many at once as it has streams), else as it comes.
func decodeBody(r *http.Request, v any) error {
	var data []byte
	var err error
	if n := r.ContentLength; n > 0 && n <= maxBodyBytes {
		data = make([]byte, n)
		_, err = io.ReadFull(r.Body, data)
	} else {
		data, err = io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBodyBytes))
	}
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		return badf("", "Invalid JSON body: %v", err)
	}
	return nil
}

// checkModel answers vLLM's 404 for a model the server does not serve.
func (s *Server) checkModel(name string) error {
	if name == "" || name == s.prof.ServedModel {
		return nil
	}
	return &badRequest{Code: http.StatusNotFound, Param: "model", Msg: fmt.Sprintf("The model `%s` does not exist.", name)}
}

// promptIDs tokenises a completions prompt: text (with <bos> unless
// add_special_tokens is false) or token ids, alone or in a list of one.
func (s *Server) promptIDs(raw rawJSON, addSpecial *bool) ([]int32, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		ids := make([]int32, 0, len(text)/3+16) // about four characters a token
		if addSpecial == nil || *addSpecial {
			ids = append(ids, tokBOS)
		}
		return s.tok.encode(ids, text), nil
	}
	if ids, ok := parseIntArray(raw); ok {
		return s.checkIDs(ids)
	}
	var texts []rawJSON
	if err := json.Unmarshal(raw, &texts); err == nil && len(texts) == 1 {
		return s.promptIDs(texts[0], addSpecial)
	}
	if len(raw) == 0 {
		return nil, badf("prompt", "Either prompt or messages must be provided.")
	}
	return nil, badf("prompt", "prompt must be a string, a list of token ids, or a list of one of them (the simulator serves one prompt per request)")
}

func (s *Server) checkIDs(in []int64) ([]int32, error) {
	ids := make([]int32, len(in))
	for i, id := range in {
		if !s.tok.valid(id) {
			return nil, badf("prompt", "Token id %d is out of vocabulary (the vocabulary has %d tokens).", id, s.tok.vocabSize())
		}
		ids[i] = int32(id)
	}
	return ids, nil
}

// chatIDs renders messages with a Gemma-like chat template and tokenises it:
// <bos>, then per message "<start_of_turn>ROLE\nCONTENT<end_of_turn>\n",
// then "<start_of_turn>model\n" unless add_generation_prompt is false.
func (s *Server) chatIDs(msgs []chatMessage, addGeneration *bool) ([]int32, error) {
	if len(msgs) == 0 {
		return nil, badf("messages", "messages must not be empty")
	}
	contents := make([]string, len(msgs))
	size := len("<bos><start_of_turn>model\n")
	for i, m := range msgs {
		content, err := messageText(m.Content)
		if err != nil {
			return nil, err
		}
		contents[i] = content
		size += len(content) + len(m.Role) + len("<start_of_turn>\n<end_of_turn>\n")
	}
	// The template's pieces are tokenised one after the other rather than
	// joined first: every piece boundary is a special token or a newline,
	// where no token spans, so the ids are the same without a second copy
	// of a long prompt. About four characters a token: room for all but
	// unusual text.
	ids := make([]int32, 0, size/3+16)
	ids = append(ids, tokBOS)
	for i, m := range msgs {
		role := m.Role
		if role == "assistant" {
			role = "model"
		}
		ids = s.tok.encode(ids, "<start_of_turn>"+role+"\n")
		ids = s.tok.encode(ids, contents[i])
		ids = append(ids, tokEndOfTurn)
		ids = s.tok.encode(ids, "\n")
	}
	if addGeneration == nil || *addGeneration {
		ids = s.tok.encode(ids, "<start_of_turn>model\n")
	}
	return ids, nil
}

// messageText is a message's content: a string, null, or text parts.
func messageText(raw rawJSON) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badf("messages", "message content must be a string or a list of text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", badf("messages", "content part type %q is not supported by the simulator (text only)", p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// maxTokens applies vLLM's length checks and returns the output limit.
func (s *Server) maxTokens(promptLen int, requested *int, minTokens int) (int, error) {
	limit := s.prof.MaxModelLen
	if requested == nil {
		if promptLen >= limit {
			return 0, badf("", "This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.", limit, promptLen)
		}
		return limit - promptLen, nil
	}
	n := *requested
	switch {
	case n < 1:
		return 0, badf("max_tokens", "max_tokens must be at least 1, got %d.", n)
	case promptLen+n > limit:
		return 0, badf("", "This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", limit, promptLen+n, promptLen, n)
	case minTokens > n:
		return 0, badf("min_tokens", "min_tokens must be less than or equal to max_tokens=%d, got %d.", n, minTokens)
	}
	return n, nil
}

// parseIntArray parses a flat JSON array of integers, the common shape of a
// token-id prompt, without encoding/json's reflection; ok is false for any
// other shape.
func parseIntArray(raw []byte) (ids []int64, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	ids = make([]int64, 0, len(raw)/6)
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return ids, skipSpace(raw, i+1) == len(raw)
	}
	for {
		neg := i < len(raw) && raw[i] == '-'
		if neg {
			i++
		}
		start := i
		var v int64
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' && i-start < 18 {
			v = v*10 + int64(raw[i]-'0')
			i++
		}
		if i == start || raw[start] == '0' && i-start > 1 {
			return nil, false // not a number, or JSON's forbidden leading zero
		}
		if neg {
			v = -v
		}
		ids = append(ids, v)
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return ids, skipSpace(raw, i+1) == len(raw)
		default:
			return nil, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}
