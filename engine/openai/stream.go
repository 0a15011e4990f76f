package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"
)

// The two APIs Stream can use.
const (
	apiChat        = "chat"        // POST /v1/chat/completions
	apiCompletions = "completions" // POST /v1/completions
)

// StreamRequest is one streaming generation.
type StreamRequest struct {
	API    string // apiChat (one user message) or apiCompletions; empty means chat
	Model  string
	Prompt string // text prompt
	// Messages, when set, are the chat messages sent instead of Prompt as
	// one user message: a conversation's history and its next turn. Chat
	// only, with no Prompt and no Shared start.
	Messages       []Message
	PromptTokenIDs []int // completions only: sent as "prompt": [ids...] instead of Prompt
	// Shared, when set, is the start of the prompt; Prompt (or
	// PromptTokenIDs, for a ShareIDs start) is then what follows it.
	Shared    *SharedPrompt
	MaxTokens int
	MinTokens int
	IgnoreEOS bool // vLLM extension "ignore_eos"
	// ContinuousUsage asks for usage in every chunk (vLLM's
	// continuous_usage_stats); include_usage is always sent.
	ContinuousUsage bool
	Temperature     float64
	// RID, when set, is sent as SGLang's "rid": the request's id on the
	// server (and its chunks' id), by which it can be aborted even before
	// its first chunk. Leave it empty for other servers.
	RID string
}

// Usage is the token accounting the server reports.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Chunk is one event of a stream.
type Chunk struct {
	Arrived time.Time // when the read that completed this event returned
	// Content is the delta text: chat delta.content, or completions
	// choices[0].text.
	Content string
	// Reasoning is chat delta.reasoning_content, or delta.reasoning when
	// the former is empty.
	Reasoning    string
	Usage        *Usage // non-nil when the chunk carried usage (continuous or final)
	FinishReason string
}

// StreamStats sums up a stream.
type StreamStats struct {
	Sent time.Time // just before the request was written
	// FirstToken is the arrival of the first chunk with text, or with usage
	// counting a completion token; zero if none came.
	FirstToken   time.Time
	End          time.Time // arrival of the last event (or when the stream failed)
	Usage        *Usage    // the last usage seen
	FinishReason string    // the last finish_reason seen
	Chunks       int       // data events parsed, [DONE] excluded
	SawDone      bool      // the stream ended with data: [DONE]
	// ID is the id of the stream's first chunk that had one: the request id
	// by which SGLang aborts the request (POST /abort_request); "" if none.
	ID string
}

// drainAfterDone bounds how long Stream waits for the end of the response
// after [DONE]; reading it lets the connection be reused.
const drainAfterDone = 250 * time.Millisecond

// Stream sends req and calls onChunk (if not nil) for every chunk, in
// order, on the calling goroutine. It returns when the stream ends, fails,
// stalls (no token within Client.FirstTokenTimeout of sending, or no
// further token for Client.StallTimeout: keep-alives and chunks without a
// token don't count), or ctx is done.
//
// A stream that ends without [DONE] returns SawDone false and no error when
// a finish_reason was seen, and errIncomplete otherwise. The stats are
// filled in as far as the stream got, also when an error is returned.
func (c *Client) Stream(ctx context.Context, req StreamRequest, onChunk func(Chunk)) (StreamStats, error) {
	path, body, err := streamBodyParts(req)
	if err != nil {
		return StreamStats{}, err
	}
	// req is not used past this point: the prompt, now in body, is not
	// kept a second time for as long as the answer streams.
	model := req.Model
	endpoint := "POST " + path
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	hreq, err := c.newRequest(reqCtx, http.MethodPost, path, nil)
	if err != nil {
		return StreamStats{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	setSpendableBody(hreq, body)
	hreq.Header.Set("Accept", "text/event-stream")

	var st StreamStats
	st.Sent = time.Now()
	wd := startWatchdog(st.Sent, c.firstTokenTimeout(), c.stallTimeout(), cancel)
	defer wd.stop()
	resp, err := c.httpClient().Do(hreq)
	if err != nil {
		st.End = time.Now()
		if wd.fired() {
			return st, wd.err(endpoint)
		}
		return st, transportError(ctx, endpoint, c.BaseURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		st.End = time.Now()
		return st, c.answerError(ctx, resp, endpoint, model)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		st.End = time.Now()
		return st, fmt.Errorf("%s: %w: the server answered with JSON instead of an event stream: is this an OpenAI-compatible server?", endpoint, ErrMalformed)
	}
	r := newSSEReader(resp.Body)
	err = readStream(r, &st, wd.token, onChunk)
	if st.SawDone {
		wd.endIn(drainAfterDone)
		for err == nil {
			_, _, err = r.next()
		}
		return st, nil
	}
	return st, streamError(ctx, wd, endpoint, &st, err)
}

// readStream reads events into st until [DONE], the end of the stream or
// an error. It calls onToken with the arrival of every chunk that carries a
// token (carriesToken), then onChunk (if not nil) with every chunk.
func readStream(r *sseReader, st *StreamStats, onToken func(time.Time), onChunk func(Chunk)) error {
	counted := 0
	for {
		data, at, err := r.next()
		if err != nil {
			return err
		}
		st.End = at
		if len(data) == 0 {
			continue
		}
		if string(data) == "[DONE]" {
			st.SawDone = true
			return nil
		}
		f, err := parseChunk(data)
		if err != nil {
			return err
		}
		st.Chunks++
		if st.ID == "" {
			st.ID = chunkID(data)
		}
		ch := f.chunk()
		ch.Arrived = at
		if carriesToken(ch, &counted) {
			if st.FirstToken.IsZero() {
				st.FirstToken = at
			}
			onToken(at)
		}
		if ch.Usage != nil {
			st.Usage = ch.Usage
		}
		if ch.FinishReason != "" {
			st.FinishReason = ch.FinishReason
		}
		if onChunk != nil {
			onChunk(ch)
		}
	}
}

// carriesToken reports whether ch brings generated output: text, or a
// usage that counts more completion tokens than *counted, which it then
// raises. A chunk that repeats the same usage, or has an empty delta,
// brings nothing.
func carriesToken(ch Chunk, counted *int) bool {
	more := ch.Usage != nil && ch.Usage.CompletionTokens > *counted
	if more {
		*counted = ch.Usage.CompletionTokens
	}
	return more || ch.Content != "" || ch.Reasoning != ""
}

// streamError explains why a stream ended without [DONE]; nil when it
// ended cleanly after a finish_reason.
func streamError(ctx context.Context, wd *watchdog, endpoint string, st *StreamStats, err error) error {
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr):
		apiErr.Endpoint = endpoint
		return apiErr
	case errors.Is(err, ErrMalformed):
		return fmt.Errorf("%s: %w", endpoint, err)
	case wd.fired():
		st.End = time.Now()
		return wd.err(endpoint)
	case ctx.Err() != nil:
		st.End = time.Now()
		return fmt.Errorf("%s: %w", endpoint, ctx.Err())
	case st.FinishReason != "":
		return nil
	case err == io.EOF && st.Chunks == 0:
		return fmt.Errorf("%s: %w: the server ended the answer without sending any event: is this an OpenAI-compatible server?",
			endpoint, errIncomplete)
	case err == io.EOF:
		return fmt.Errorf("%s: %w: the server closed the stream after %d chunks without a finish_reason or [DONE]: check the server log",
			endpoint, errIncomplete, st.Chunks)
	}
	return fmt.Errorf("%s: %w: the stream broke after %d chunks (%v): check the server log", endpoint, errIncomplete, st.Chunks, err)
}

// Message is one message of a chat request: its role ("system", "user",
// "assistant") and its text.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type wireStreamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats,omitempty"`
}

type wireRequest struct {
	Model         string            `json:"model"`
	Messages      []Message         `json:"messages,omitempty"`
	Prompt        any               `json:"prompt,omitempty"`
	MaxTokens     int               `json:"max_tokens,omitempty"`
	MinTokens     int               `json:"min_tokens,omitempty"`
	IgnoreEOS     bool              `json:"ignore_eos,omitempty"`
	Temperature   float64           `json:"temperature"`
	Stream        bool              `json:"stream"`
	StreamOptions wireStreamOptions `json:"stream_options"`
	RID           string            `json:"rid,omitempty"`
}

// streamBodyParts returns the path and JSON body of req, in parts when it
// has a shared prompt start (which the parts then share, not copy).
func streamBodyParts(req StreamRequest) (string, [][]byte, error) {
	if req.Shared == nil || len(req.Shared.wire) == 0 {
		req.Shared = nil
		path, body, err := streamBody(req)
		return path, [][]byte{body}, err
	}
	return sharedParts(req)
}

// streamBody returns the path and JSON body of req, without its Shared start.
func streamBody(req StreamRequest) (string, []byte, error) {
	w := wireRequest{
		Model: req.Model, MaxTokens: req.MaxTokens, MinTokens: req.MinTokens,
		IgnoreEOS: req.IgnoreEOS, Temperature: req.Temperature, Stream: true, RID: req.RID,
		StreamOptions: wireStreamOptions{IncludeUsage: true, ContinuousUsageStats: req.ContinuousUsage},
	}
	var path string
	switch req.API {
	case apiChat, "":
		if req.PromptTokenIDs != nil {
			return "", nil, fmt.Errorf("stream: token id prompts need the completions API, not %s", apiChat)
		}
		path = "/v1/chat/completions"
		w.Messages = req.Messages
		if len(req.Messages) == 0 {
			w.Messages = []Message{{Role: "user", Content: req.Prompt}}
		} else if req.Prompt != "" {
			return "", nil, fmt.Errorf("stream: give a prompt or messages, not both")
		}
	case apiCompletions:
		if len(req.Messages) > 0 {
			return "", nil, fmt.Errorf("stream: messages need the %s API, not %s", apiChat, apiCompletions)
		}
		path = "/v1/completions"
		w.Prompt = req.Prompt
		if req.PromptTokenIDs != nil {
			w.Prompt = req.PromptTokenIDs
		}
	default:
		return "", nil, fmt.Errorf("stream: unknown API %q: use chat or completions", req.API)
	}
	var buf bytes.Buffer
	// One allocation of about the final size, not a doubling series: at
	// 128K tokens the prompt is half a megabyte, and a cell sends as many
	// at once as it has streams.
	size := len(req.Prompt) + 8*len(req.PromptTokenIDs) + 512
	for _, m := range req.Messages {
		size += len(m.Content) + 32
	}
	buf.Grow(size)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return "", nil, fmt.Errorf("stream: encode request: %w", err)
	}
	return path, buf.Bytes(), nil
}
