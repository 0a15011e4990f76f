package probe

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
)

// Server is the server a check talks to: its client, the model it serves
// and that model's context length (0: unknown).
type Server struct {
	Client      *openai.Client
	Model       string
	MaxModelLen int
}

// Connect resolves the model to check: want, or the first /v1/models
// lists, with its max_model_len.
func Connect(ctx context.Context, c *openai.Client, want string) (Server, error) {
	models, err := c.Models(ctx)
	if err != nil {
		return Server{}, err
	}
	for _, m := range models {
		if want == "" || m.ID == want {
			return Server{Client: c, Model: m.ID, MaxModelLen: m.MaxModelLen}, nil
		}
	}
	if want == "" {
		return Server{}, errors.New("the server lists no model")
	}
	return Server{}, &openai.APIError{StatusCode: 404, Message: "no model " + strconv.Quote(want), Code: "model_not_found", Model: want}
}

// Fingerprint is the server's tokenizer fingerprint: its token ids of
// quality.FingerprintText.
func (s Server) Fingerprint(ctx context.Context) (string, error) {
	ids, err := s.Client.Tokenize(ctx, s.Model, quality.FingerprintText)
	if err != nil {
		return "", fmt.Errorf("tokenize the fingerprint text: %w", err)
	}
	return quality.Fingerprint(ids), nil
}

// NoLogprobsError is a server that refuses logprobs or answers without
// them: drift can't be measured against it (the needle task still can).
type NoLogprobsError struct {
	Reason string // "it answered without logprobs", or the server's message
}

func (e *NoLogprobsError) Error() string {
	return "the server gives no logprobs: " + e.Reason
}

// CapError is a server whose logprobs cap is below what was asked: K is
// the cap it named. Generations retry at the cap; the caller is told.
type CapError struct {
	Asked, Cap int
}

func (e *CapError) Error() string {
	return fmt.Sprintf("the server allows at most %d logprobs a token (asked %d)", e.Cap, e.Asked)
}

// capPattern is vLLM's refusal of too many logprobs: "Requested sample
// logprobs of 21, which is greater than max allowed: 20".
var capPattern = regexp.MustCompile(`greater than max allowed: (\d+)`)

// completion is a /v1/completions request with logprobs by token id.
type completion struct {
	Model       string  `json:"model"`
	Prompt      []int   `json:"prompt"`
	MaxTokens   int     `json:"max_tokens"`
	Temperature float64 `json:"temperature"`
	Logprobs    int     `json:"logprobs"`
	IgnoreEOS   bool    `json:"ignore_eos"`
	TokensAsIDs bool    `json:"return_tokens_as_token_ids"`
}

// completionAnswer is the part of the answer read: the tokens, named
// "token_id:N", and each position's top logprobs keyed the same way.
type completionAnswer struct {
	Choices []struct {
		Logprobs *struct {
			Tokens      []string             `json:"tokens"`
			TopLogprobs []map[string]float64 `json:"top_logprobs"`
		} `json:"logprobs"`
	} `json:"choices"`
}

// generate asks for n greedy tokens after prompt with the top k logprobs
// at each, and returns the tokens and their top-K. A cap below k is
// returned as a *CapError (the caller retries at the cap); a refusal or
// an answer without logprobs as a *NoLogprobsError.
func (s Server) generate(ctx context.Context, prompt []int, n, k int) ([]int, []quality.TopK, error) {
	req := completion{Model: s.Model, Prompt: prompt, MaxTokens: n, Logprobs: k, IgnoreEOS: true, TokensAsIDs: true}
	var ans completionAnswer
	if err := s.Client.PostJSON(ctx, "/v1/completions", req, &ans, s.Model); err != nil {
		return nil, nil, refusal(err, k)
	}
	if len(ans.Choices) == 0 || ans.Choices[0].Logprobs == nil {
		return nil, nil, &NoLogprobsError{Reason: "it answered without them"}
	}
	lp := ans.Choices[0].Logprobs
	if len(lp.Tokens) == 0 || len(lp.Tokens) > n || len(lp.TopLogprobs) != len(lp.Tokens) {
		return nil, nil, fmt.Errorf("%w: %d tokens with %d positions of logprobs, asked for %d", openai.ErrMalformed, len(lp.Tokens), len(lp.TopLogprobs), n)
	}
	toks, tops := make([]int, len(lp.Tokens)), make([]quality.TopK, len(lp.Tokens))
	for i, name := range lp.Tokens {
		id, err := tokenID(name)
		if err != nil {
			return nil, nil, err
		}
		if tops[i], err = topK(lp.TopLogprobs[i]); err != nil {
			return nil, nil, fmt.Errorf("position %d: %w", i+1, err)
		}
		toks[i] = id
	}
	return toks, tops, nil
}

// refusal is err as a check words it: the cap, no logprobs, or as is.
func refusal(err error, k int) error {
	var api *openai.APIError
	if !errors.As(err, &api) || api.StatusCode != 400 {
		return err
	}
	if m := capPattern.FindStringSubmatch(api.Message); m != nil {
		if c, perr := strconv.Atoi(m[1]); perr == nil && c >= 1 && c < k {
			return &CapError{Asked: k, Cap: c}
		}
		return &NoLogprobsError{Reason: engine.BoundText(api.Message, 200)}
	}
	if strings.Contains(strings.ToLower(api.Message), "logprob") {
		return &NoLogprobsError{Reason: engine.BoundText(api.Message, 200)}
	}
	return err
}

// tokenID reads "token_id:263" (return_tokens_as_token_ids).
func tokenID(name string) (int, error) {
	digits, ok := strings.CutPrefix(name, "token_id:")
	id, err := strconv.Atoi(digits)
	if !ok || err != nil || id < 0 || id > quality.MaxTokenID {
		return 0, fmt.Errorf("%w: token %q is not token_id:N (return_tokens_as_token_ids ignored?)", openai.ErrMalformed, engine.BoundText(name, 40))
	}
	return id, nil
}

// topK is one position's top logprobs, keyed "token_id:N", bounded as a
// reference's are.
func topK(m map[string]float64) (quality.TopK, error) {
	if len(m) == 0 || len(m) > quality.MaxTopKEntries {
		return nil, fmt.Errorf("%w: %d top logprobs, expected 1 to %d", openai.ErrMalformed, len(m), quality.MaxTopKEntries)
	}
	byID := make(map[int]float64, len(m))
	for name, lp := range m {
		id, err := tokenID(name)
		if err != nil {
			return nil, err
		}
		byID[id] = max(lp, quality.FloorLogprob)
	}
	return quality.NewTopK(byID), nil
}

// Describe is base (what the caller knows of the server's engine) with
// what the server says of itself: its version (GET /version, when it has
// one), max_model_len, and, for Speed Matrix's simulator reached over
// HTTP, Simulated and its profile, so that nothing measured against it
// passes as real.
func (s Server) Describe(ctx context.Context, base engine.ServerInfo) engine.ServerInfo {
	base.MaxModelLen = s.MaxModelLen
	v, err := s.Client.VersionInfo(ctx)
	if err != nil {
		return base
	}
	if base.Version == "" {
		base.Version = v.Version
	}
	if v.SimulatorProfile != "" && base.SimProfile == "" {
		base.Simulated, base.SimProfile = true, v.SimulatorProfile
	}
	return base
}
