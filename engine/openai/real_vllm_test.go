package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// realVLLM holds what a real vLLM 0.32.0 (its CPU build from PyPI, serving
// the rig's tiny model as tiny-llama with max_model_len 4096 and a KV cache
// of 32 MiB) answered, recorded by scripts/real-vllm.sh --update-testdata.
const realVLLM = "testdata/vllm-0.32.0-cpu"

func realFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realVLLM, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// realError splits a recorded error answer: its status line, then its body.
func realError(t *testing.T, name string) (int, []byte) {
	t.Helper()
	line, body, _ := bytes.Cut(realFile(t, name), []byte("\n"))
	status, err := strconv.Atoi(string(line))
	if err != nil {
		t.Fatalf("%s: first line %q is not a status", name, line)
	}
	return status, body
}

// realServer replays the recorded answers: each path gives what the real
// server gave, and a completion for another model its 404.
func realServer(t *testing.T, metrics string) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
		}
		switch {
		case r.URL.Path == "/version":
			w.Write(realFile(t, "version.json"))
		case r.URL.Path == "/v1/models":
			w.Write(realFile(t, "models.json"))
		case r.URL.Path == "/tokenize":
			w.Write(realFile(t, "tokenize.json"))
		case r.URL.Path == "/metrics":
			w.Write(realFile(t, metrics))
		case !bytes.Contains(body, []byte(`"tiny-llama"`)):
			status, b := realError(t, "error-unknown-model.json")
			w.WriteHeader(status)
			w.Write(b)
		case r.URL.Path == "/v1/completions":
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(realFile(t, "stream-completions.txt"))
		case r.URL.Path == "/v1/chat/completions":
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(realFile(t, "stream-chat.txt"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return New(srv.URL, "")
}

func TestRealVLLMEndpoints(t *testing.T) {
	c := realServer(t, "metrics-idle.txt")
	ctx := context.Background()
	v, err := c.Version(ctx)
	if err != nil || v != "0.32.0" {
		t.Errorf("Version = %q, %v; want 0.32.0", v, err)
	}
	models, err := c.Models(ctx)
	if err != nil || len(models) != 1 {
		t.Fatalf("Models = %+v, %v", models, err)
	}
	if m := models[0]; m.ID != "tiny-llama" || m.MaxModelLen != 4096 || !strings.HasSuffix(m.Root, "tiny-llama") {
		t.Errorf("Models[0] = %+v, want tiny-llama, 4096, root …/tiny-llama", m)
	}
	ids, err := c.Tokenize(ctx, "tiny-llama", "The server measures prefill and decode of every context in the matrix.")
	if err != nil || len(ids) != 21 {
		t.Errorf("Tokenize = %d ids, %v; want the 21 the server counted", len(ids), err)
	}
}

func TestRealVLLMStreams(t *testing.T) {
	c := realServer(t, "metrics-idle.txt")
	for _, api := range []string{apiCompletions, apiChat} {
		t.Run(api, func(t *testing.T) {
			var text strings.Builder
			var usages int
			st, err := c.Stream(context.Background(), StreamRequest{API: api, Model: "tiny-llama", Prompt: "x", MaxTokens: 24, IgnoreEOS: true, ContinuousUsage: true}, func(ch Chunk) {
				text.WriteString(ch.Content)
				if ch.Usage != nil {
					usages++
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if !st.SawDone || st.FinishReason != "length" || st.Usage == nil || st.Usage.CompletionTokens != 24 {
				t.Errorf("done %v, finish %q, usage %+v; want [DONE], length, 24 completion tokens", st.SawDone, st.FinishReason, st.Usage)
			}
			// continuous_usage_stats: every chunk carries usage.
			if usages != st.Chunks || st.Chunks < 24 {
				t.Errorf("%d of %d chunks carried usage", usages, st.Chunks)
			}
			if text.Len() == 0 || st.FirstToken.IsZero() || st.ID == "" {
				t.Errorf("text %q, first token %v, id %q", text.String(), st.FirstToken, st.ID)
			}
		})
	}
}

func TestRealVLLMErrors(t *testing.T) {
	for _, tc := range []struct {
		file   string
		is     error
		phrase string
	}{
		{"error-context-too-long.json", ErrContextTooLong, "maximum context length is 4096 tokens"},
		{"error-max-tokens-too-large.json", ErrContextTooLong, "cannot be greater than max_model_len=4096"},
		{"error-unknown-model.json", ErrModelNotFound, "no model"},
		{"error-no-key.json", ErrUnauthorized, "rejected the API key"},
		{"error-bad-request.json", nil, "max_tokens must be at least 1"},
		{"error-bad-json.json", nil, "JSON decode error"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			status, body := realError(t, tc.file)
			e := parseErrorBody(status, body)
			for _, s := range []error{ErrContextTooLong, ErrModelNotFound, ErrUnauthorized, ErrNotSupported} {
				if errors.Is(e, s) != (s == tc.is) {
					t.Errorf("errors.Is(%v) = %v", s, errors.Is(e, s))
				}
			}
			if msg := e.Error(); !strings.Contains(msg, tc.phrase) || strings.Contains(msg, "\n") {
				t.Errorf("Error() = %q; want one line with %q", msg, tc.phrase)
			}
		})
	}
	// Against the replayed server, an unknown model is ErrModelNotFound
	// through the client too.
	c := realServer(t, "metrics-idle.txt")
	_, err := c.Stream(context.Background(), StreamRequest{API: apiCompletions, Model: "no-such-model", Prompt: "x", MaxTokens: 4}, nil)
	if !errors.Is(err, ErrModelNotFound) {
		t.Errorf("stream for an unknown model: %v; want ErrModelNotFound", err)
	}
}
