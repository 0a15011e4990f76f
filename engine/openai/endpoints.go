package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
	"unicode/utf8"

	"speedmatrix/engine"
	"speedmatrix/engine/secret"
)

// maxBodyBytes bounds what is read from a non-streaming answer; /tokenize of
// a long prompt is the largest, at about 10 bytes per token.
const maxBodyBytes = 64 << 20

// Model is one model the server serves.
type Model struct {
	ID          string
	MaxModelLen int // vLLM's max_model_len; 0 when the server does not say
	// Root is what vLLM loaded the model from (its Hugging Face id or
	// folder), which the served name (ID) may hide; "" when not said.
	Root string
}

// Models lists the served models (GET /v1/models).
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	var out struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
			Root        string `json:"root"`
		} `json:"data"`
	}
	if err := c.doJSON(ctx, http.MethodGet, "/v1/models", nil, &out, ""); err != nil {
		return nil, err
	}
	models := make([]Model, len(out.Data))
	for i, d := range out.Data {
		if err := checkModelID(d.ID); err != nil {
			return nil, err
		}
		models[i] = Model{ID: d.ID, MaxModelLen: d.MaxModelLen, Root: engine.BoundName(d.Root)}
	}
	return models, nil
}

// checkModelID refuses a model id that engine.BoundName would change (too
// long, or with a control character): it is sent back in every request,
// so it can't be cut as a name that is only shown is.
func checkModelID(id string) error {
	if engine.BoundName(id) == id {
		return nil
	}
	return fmt.Errorf("GET /v1/models: %w: the server names a model %q (%d characters): a model's name has at most %d, and no control characters; serve it under another name",
		ErrMalformed, engine.BoundText(id, 40), utf8.RuneCountInString(id), engine.MaxNameRunes)
}

// Health returns nil when GET /health answers 200.
func (c *Client) Health(ctx context.Context) error {
	return c.doJSON(ctx, http.MethodGet, "/health", nil, nil, "")
}

// ServerVersion is the answer of GET /version.
type ServerVersion struct {
	Version string `json:"version"`
	// SimulatorProfile is set by Speed Matrix's own simulator (engine/sim)
	// and names its profile; a real server leaves it empty.
	SimulatorProfile string `json:"speedmatrix_simulator_profile"`
}

// VersionInfo returns the whole answer of GET /version.
func (c *Client) VersionInfo(ctx context.Context) (ServerVersion, error) {
	var out ServerVersion
	err := c.doJSON(ctx, http.MethodGet, "/version", nil, &out, "")
	out.Version, out.SimulatorProfile = engine.BoundName(out.Version), engine.BoundName(out.SimulatorProfile)
	return out, err
}

// Tokenize returns the token ids of text (POST /tokenize), with the
// server's default special tokens. It returns ErrNotSupported when the
// server has no /tokenize.
func (c *Client) Tokenize(ctx context.Context, model, text string) ([]int, error) {
	in := struct {
		Model  string `json:"model"`
		Prompt string `json:"prompt"`
	}{model, text}
	var out struct {
		Tokens []int `json:"tokens"`
		Count  int   `json:"count"`
	}
	if err := c.doJSON(ctx, http.MethodPost, "/tokenize", in, &out, model); err != nil {
		return nil, err
	}
	return out.Tokens, nil
}

// TokenizeMessages returns how many tokens the server's chat template makes
// of msgs, with the generation prompt that follows them: vLLM's /tokenize
// with messages. It returns ErrNotSupported when the server has no
// /tokenize; a server whose /tokenize takes no messages answers an error.
func (c *Client) TokenizeMessages(ctx context.Context, model string, msgs []Message) (int, error) {
	in := struct {
		Model               string    `json:"model"`
		Messages            []Message `json:"messages"`
		AddGenerationPrompt bool      `json:"add_generation_prompt"`
	}{model, msgs, true}
	var out struct {
		Tokens []int `json:"tokens"`
		Count  int   `json:"count"`
	}
	if err := c.doJSON(ctx, http.MethodPost, "/tokenize", in, &out, model); err != nil {
		return 0, err
	}
	return max(out.Count, len(out.Tokens)), nil
}

// newRequest builds a request to path with the API key and, when body is
// not nil, a JSON body.
func (c *Client) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, r)
	if err != nil {
		// err quotes the URL, with its password.
		return nil, fmt.Errorf("%s %s: %s: the server address is not a URL", method, path, secret.Text(err.Error()))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	return req, nil
}

// doJSON sends in (if not nil) as JSON and decodes a 200 answer into out
// (if not nil). model names the model the request is about, for errors.
func (c *Client) doJSON(ctx context.Context, method, path string, in, out any, model string) error {
	endpoint := method + " " + path
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("%s: encode request: %w", endpoint, err)
		}
	}
	rctx, cancel := context.WithTimeout(ctx, c.requestTimeout())
	defer cancel()
	req, err := c.newRequest(rctx, method, path, body)
	if err != nil {
		return err
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return c.timedOut(ctx, rctx, endpoint, transportError(ctx, endpoint, c.BaseURL, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return c.answerError(ctx, resp, endpoint, model)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBodyBytes))
		return c.timedOut(ctx, rctx, endpoint, nil)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBodyBytes)).Decode(out); err != nil {
		if te := c.timedOut(ctx, rctx, endpoint, nil); te != nil {
			return te
		}
		return fmt.Errorf("%s: %w: the answer is not the expected JSON (%v): is this an OpenAI-compatible server?", endpoint, ErrMalformed, err)
	}
	return nil
}

// TimeoutError is a non-streaming request that got no (whole) answer
// within Client.RequestTimeout. errors.Is(err, ErrTimeout) holds.
type TimeoutError struct {
	Endpoint string // "GET /metrics"
	After    time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: %v: no answer within %s (the server accepts connections but does not answer)", e.Endpoint, ErrTimeout, Seconds(e.After))
}

// Unwrap makes errors.Is(err, ErrTimeout) work.
func (e *TimeoutError) Unwrap() error { return ErrTimeout }

// timedOut returns a TimeoutError when the request's own deadline (rctx)
// passed while the caller's ctx is still live, and err otherwise.
func (c *Client) timedOut(ctx, rctx context.Context, endpoint string, err error) error {
	if ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{Endpoint: endpoint, After: c.requestTimeout()}
	}
	return err
}

// answerError reads an error answer into an APIError. For an unknown
// model it also asks /v1/models which ones exist, so the message can say.
func (c *Client) answerError(ctx context.Context, resp *http.Response, endpoint, model string) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := parseErrorBody(resp.StatusCode, body)
	e.Endpoint, e.Model = endpoint, model
	e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	if e.modelNotFound() && model != "" {
		lookup, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if models, err := c.Models(lookup); err == nil {
			for _, m := range models {
				e.Available = append(e.Available, m.ID)
			}
		}
	}
	return e
}
