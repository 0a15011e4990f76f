package openai

import (
	"context"
	"net/http"
)

// What only the tests use: helpers that read a value back, and entry
// points the product reaches another way.

// Version returns the server's version (GET /version).
func (c *Client) Version(ctx context.Context) (string, error) {
	v, err := c.VersionInfo(ctx)
	return v.Version, err
}

// Detokenize returns the text of ids (POST /detokenize). It returns
// ErrNotSupported when the server has no /detokenize.
func (c *Client) Detokenize(ctx context.Context, model string, ids []int) (string, error) {
	in := struct {
		Model  string `json:"model"`
		Tokens []int  `json:"tokens"`
	}{model, ids}
	if in.Tokens == nil {
		in.Tokens = []int{}
	}
	var out struct {
		Prompt string `json:"prompt"`
	}
	err := c.doJSON(ctx, http.MethodPost, "/detokenize", in, &out, model)
	return out.Prompt, err
}
