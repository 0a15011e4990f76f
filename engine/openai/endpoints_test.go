package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// fakeVLLM serves vLLM's side endpoints; tokens are the bytes of the text.
func fakeVLLM(t *testing.T, withTokenize bool) *Client {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			w.WriteHeader(401)
			_, _ = io.WriteString(w, `{"error":"Unauthorized"}`)
			return
		}
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"gemma","object":"model","created":1,"owned_by":"vllm","root":"RedHatAI/gemma","parent":null,"max_model_len":131072,"permission":[{"id":"p"}]},{"id":"other","object":"model"}]}`)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"version":"0.30.1rc1.dev452+g73a583112"}`)
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, twoEngineMetrics) })
	if withTokenize {
		mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
			var in struct{ Model, Prompt string }
			_ = json.NewDecoder(r.Body).Decode(&in)
			if in.Model != "gemma" {
				w.WriteHeader(404)
				_, _ = io.WriteString(w, `{"object":"error","message":"The model `+"`"+in.Model+"`"+` does not exist.","type":"NotFoundError","code":404}`)
				return
			}
			ids := []int{}
			for _, b := range []byte(in.Prompt) {
				ids = append(ids, int(b))
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"count": len(ids), "max_model_len": 131072, "tokens": ids, "token_strs": nil})
		})
		mux.HandleFunc("POST /detokenize", func(w http.ResponseWriter, r *http.Request) {
			var in struct {
				Model  string
				Tokens []int
			}
			_ = json.NewDecoder(r.Body).Decode(&in)
			b := make([]byte, len(in.Tokens))
			for i, id := range in.Tokens {
				b[i] = byte(id)
			}
			_ = json.NewEncoder(w).Encode(map[string]string{"prompt": string(b)})
		})
	}
	return testClient(t, mux)
}

func TestSideEndpoints(t *testing.T) {
	ctx := context.Background()
	c := fakeVLLM(t, true)
	models, err := c.Models(ctx)
	if err != nil || !slices.Equal(models, []Model{{ID: "gemma", MaxModelLen: 131072, Root: "RedHatAI/gemma"}, {ID: "other"}}) {
		t.Fatalf("Models = %+v, %v", models, err)
	}
	if err := c.Health(ctx); err != nil {
		t.Fatalf("Health = %v", err)
	}
	if v, err := c.Version(ctx); err != nil || v != "0.30.1rc1.dev452+g73a583112" {
		t.Fatalf("Version = %q, %v", v, err)
	}
	ids, err := c.Tokenize(ctx, "gemma", "héllo")
	if err != nil || len(ids) != len("héllo") || ids[0] != 'h' {
		t.Fatalf("Tokenize = %v, %v", ids, err)
	}
	if text, err := c.Detokenize(ctx, "gemma", ids); err != nil || text != "héllo" {
		t.Fatalf("Detokenize = %q, %v", text, err)
	}
	c.MetricNames = MetricNames{"vllm:num_requests_running": Running, "vllm:cache_config_info": CacheConfig}
	m, err := c.Metrics(ctx)
	if err != nil || m.Running != 5 || m.KVCacheTokens() != 52000*16 {
		t.Fatalf("Metrics = running %v, KV %d tokens, %v", m.Running, m.KVCacheTokens(), err)
	}
	if _, err := c.Tokenize(ctx, "nope", "x"); !errors.Is(err, ErrModelNotFound) || errors.Is(err, ErrNotSupported) ||
		!strings.Contains(err.Error(), `it serves "gemma", "other"`) {
		t.Fatalf("Tokenize with an unknown model = %v; want ErrModelNotFound listing the models", err)
	}
	c.APIKey = "wrong"
	if _, err := c.Models(ctx); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("Models with a wrong key = %v, want ErrUnauthorized", err)
	}
}

func TestNoTokenize(t *testing.T) {
	c := fakeVLLM(t, false)
	if _, err := c.Tokenize(context.Background(), "gemma", "x"); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("Tokenize = %v, want ErrNotSupported", err)
	}
	if _, err := c.Detokenize(context.Background(), "gemma", []int{1}); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("Detokenize = %v, want ErrNotSupported", err)
	}
}

func TestNewNormalizesBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8000":       "http://h:8000",
		"http://h:8000/":      "http://h:8000",
		"http://h:8000/v1":    "http://h:8000",
		" http://h:8000/v1/ ": "http://h:8000",
		"http://h/api/v1":     "http://h/api",
	} {
		if got := New(in, "").BaseURL; got != want {
			t.Errorf("New(%q).BaseURL = %q, want %q", in, got, want)
		}
	}
}

// twoEngineMetrics is a vLLM /metrics page of two engines (data parallel
// ranks): 5 requests running, 52,000 blocks of 16 tokens.
const twoEngineMetrics = `vllm:num_requests_running{engine="0",model_name="gemma"} 3.0
vllm:num_requests_running{engine="1",model_name="gemma"} 2.0
vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="52000"} 1.0
`
