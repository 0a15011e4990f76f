package openai

import (
	"context"
	"errors"
	"net/http"

	"speedmatrix/engine"
)

// ServerInfo is what SGLang's GET /get_server_info (newer: /server_info)
// says about its limits: its server args, its scheduler's info and one
// internal state per data parallel rank. Zero means not said.
type ServerInfo struct {
	Version string `json:"version"`
	// MaxTotalNumTokens is the KV cache size in tokens, at the top level
	// (older SGLang) or in each internal state (newer).
	MaxTotalNumTokens  int    `json:"max_total_num_tokens"`
	MaxRunningRequests int    `json:"max_running_requests"`
	ContextLength      int    `json:"context_length"`
	TPSize             int    `json:"tp_size"`
	DPSize             int    `json:"dp_size"`
	EnableDPAttention  bool   `json:"enable_dp_attention"`
	ModelPath          string `json:"model_path"`
	ServedModelName    string `json:"served_model_name"`
	EnableMetrics      *bool  `json:"enable_metrics"`
	InternalStates     []struct {
		MaxTotalNumTokens  int `json:"max_total_num_tokens"`
		MaxRunningRequests int `json:"max_running_requests"`
	} `json:"internal_states"`
}

// ServerInfo asks GET /get_server_info, then GET /server_info (the name
// newer SGLang uses). It returns ErrNotSupported when the server has neither.
func (c *Client) ServerInfo(ctx context.Context) (ServerInfo, error) {
	var out ServerInfo
	err := c.doJSON(ctx, http.MethodGet, "/get_server_info", nil, &out, "")
	if errors.Is(err, ErrNotSupported) {
		out = ServerInfo{}
		err = c.doJSON(ctx, http.MethodGet, "/server_info", nil, &out, "")
	}
	out.Version, out.ModelPath, out.ServedModelName = engine.BoundName(out.Version), engine.BoundName(out.ModelPath), engine.BoundName(out.ServedModelName)
	return out, err
}

// AbortRequest asks SGLang to abort the one request rid
// (POST /abort_request {"rid": rid}); it never asks to abort all.
func (c *Client) AbortRequest(ctx context.Context, rid string) error {
	in := struct {
		RID string `json:"rid"`
	}{rid}
	return c.doJSON(ctx, http.MethodPost, "/abort_request", in, nil, "")
}
