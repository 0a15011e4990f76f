package openai

import (
	"context"
	"net/http"
)

// PostJSON sends in as JSON to path (e.g. /v1/completions) without
// streaming and decodes a 200 answer into out, within the client's
// RequestTimeout and a 64 MiB answer. An error answer is an *APIError;
// model names the model the request is about, for its message. It is for
// requests the stream client has no shape for: logprobs by token id, the
// quality checks' non-streaming generations.
func (c *Client) PostJSON(ctx context.Context, path string, in, out any, model string) error {
	return c.doJSON(ctx, http.MethodPost, path, in, out, model)
}
