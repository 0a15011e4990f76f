package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// newTestServer serves profile p (tiny when empty) at a high time scale.
func newTestServer(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	if opts.Profile.Name == "" {
		opts.Profile = tinyProfile()
	}
	if opts.TimeScale == 0 {
		opts.TimeScale = 100
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts.URL
}

func post(t *testing.T, url, body string, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, b
}

func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestModelsVersionHealth(t *testing.T) {
	_, url := newTestServer(t, Options{})
	code, b := get(t, url+"/v1/models")
	var models struct {
		Object string `json:"object"`
		Data   []struct {
			ID          string `json:"id"`
			Root        string `json:"root"`
			MaxModelLen int    `json:"max_model_len"`
			OwnedBy     string `json:"owned_by"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &models); err != nil || code != 200 {
		t.Fatalf("/v1/models: %d %s %v", code, b, err)
	}
	if len(models.Data) != 1 || models.Data[0].ID != "tiny" || models.Data[0].MaxModelLen != 8192 || models.Data[0].OwnedBy != "vllm" {
		t.Errorf("/v1/models = %s", b)
	}
	if code, b := get(t, url+"/version"); code != 200 || !strings.Contains(string(b), `"version":"0.32.0"`) {
		t.Errorf("/version = %d %s", code, b)
	}
	if code, _ := get(t, url+"/health"); code != 200 {
		t.Errorf("/health = %d", code)
	}
}

func TestTokenizeDetokenize(t *testing.T) {
	_, url := newTestServer(t, Options{})
	code, b := post(t, url+"/tokenize", `{"model":"tiny","prompt":"hello world, again"}`)
	var tok struct {
		Count       int     `json:"count"`
		MaxModelLen int     `json:"max_model_len"`
		Tokens      []int64 `json:"tokens"`
	}
	if err := json.Unmarshal(b, &tok); err != nil || code != 200 || tok.Count != len(tok.Tokens) || tok.MaxModelLen != 8192 {
		t.Fatalf("/tokenize = %d %s", code, b)
	}
	if tok.Tokens[0] != tokBOS {
		t.Errorf("/tokenize of a prompt starts with %d, want <bos> %d", tok.Tokens[0], tokBOS)
	}
	ids, _ := json.Marshal(tok.Tokens)
	code, b = post(t, url+"/detokenize", `{"model":"tiny","tokens":`+string(ids)+`}`)
	if code != 200 || string(b) != `{"prompt":"<bos>hello world, again"}`+"\n" {
		t.Errorf("/detokenize = %d %s", code, b)
	}
	if code, _ := post(t, url+"/detokenize", `{"tokens":[-1]}`); code != 400 {
		t.Errorf("/detokenize of id -1 = %d, want 400", code)
	}
}

// TestChatPromptTokensMatchTokenize checks that usage.prompt_tokens of a
// chat request is /tokenize's count of the same messages: the template is
// counted.
func TestChatPromptTokensMatchTokenize(t *testing.T) {
	_, url := newTestServer(t, Options{})
	msgs := `[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hello world"}]}]`
	_, b := post(t, url+"/tokenize", `{"messages":`+msgs+`}`)
	var tok struct{ Count int }
	if err := json.Unmarshal(b, &tok); err != nil {
		t.Fatal(err)
	}
	_, b = post(t, url+"/v1/chat/completions", `{"messages":`+msgs+`,"max_tokens":3}`)
	var resp struct {
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Usage.PromptTokens != tok.Count || tok.Count < 10 {
		t.Errorf("chat usage.prompt_tokens %d, /tokenize count %d: want equal, ≥ 10 with the template", resp.Usage.PromptTokens, tok.Count)
	}
}

func TestEOSAndMinTokens(t *testing.T) {
	_, url := newTestServer(t, Options{})
	var resp struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	_, b := post(t, url+"/v1/completions", `{"prompt":"tell me","max_tokens":4000}`)
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	natural := resp.Usage.CompletionTokens
	if resp.Choices[0].FinishReason != "stop" || natural >= 4000 || natural < 64 {
		t.Fatalf("without ignore_eos: %s", b)
	}
	_, b = post(t, url+"/v1/completions", `{"prompt":"tell me","max_tokens":4000,"min_tokens":1500}`)
	_ = json.Unmarshal(b, &resp)
	if resp.Usage.CompletionTokens < 1500 || resp.Choices[0].FinishReason != "stop" {
		t.Errorf("min_tokens 1500: %d tokens, %s", resp.Usage.CompletionTokens, resp.Choices[0].FinishReason)
	}
	_, b = post(t, url+"/v1/completions", `{"prompt":"tell me","max_tokens":3000,"ignore_eos":true}`)
	_ = json.Unmarshal(b, &resp)
	if resp.Usage.CompletionTokens != 3000 || resp.Choices[0].FinishReason != "length" {
		t.Errorf("ignore_eos: %d tokens, %s", resp.Usage.CompletionTokens, resp.Choices[0].FinishReason)
	}
}

func TestErrorsAreVLLMShaped(t *testing.T) {
	_, url := newTestServer(t, Options{APIKey: "k"})
	auth := []string{"Authorization", "Bearer k"}
	for _, tc := range []struct {
		name, path, body string
		header           []string
		code             int
		want             string
	}{
		{"no key", "/v1/completions", `{"prompt":"hi"}`, nil, 401, `{"error":"Unauthorized"}`},
		{"wrong key", "/v1/completions", `{"prompt":"hi"}`, []string{"Authorization", "Bearer x"}, 401, `{"error":"Unauthorized"}`},
		{"unknown model", "/v1/completions", `{"model":"x","prompt":"hi"}`, auth, 404, "The model `x` does not exist."},
		{"too long", "/v1/completions", `{"prompt":[1,300],"max_tokens":8192}`, auth, 400,
			"This model's maximum context length is 8192 tokens. However, you requested 8194 tokens (2 in the messages, 8192 in the completion). Please reduce the length of the messages or completion."},
		{"zero max_tokens", "/v1/completions", `{"prompt":"hi","max_tokens":0}`, auth, 400, "max_tokens must be at least 1"},
		{"empty prompt", "/v1/completions", `{"prompt":[]}`, auth, 400, "cannot be empty"},
		{"bad token id", "/v1/completions", `{"prompt":[99999999]}`, auth, 400, "out of vocabulary"},
		{"bad json", "/v1/chat/completions", `{`, auth, 400, "Invalid JSON"},
		{"no messages", "/v1/chat/completions", `{"messages":[]}`, auth, 400, "messages"},
		{"tokenize needs no key", "/tokenize", `{"prompt":"hi"}`, nil, 200, `"count":2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b := post(t, url+tc.path, tc.body, tc.header...)
			if code != tc.code || !strings.Contains(string(b), tc.want) {
				t.Errorf("%d %s: want %d with %q", code, b, tc.code, tc.want)
			}
			if code >= 400 && code != 401 {
				var e struct {
					Error struct {
						Message string `json:"message"`
						Type    string `json:"type"`
						Code    int    `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal(b, &e); err != nil || e.Error.Code != code || e.Error.Type == "" {
					t.Errorf("error body %s is not vLLM's {error:{message,type,param,code}}", b)
				}
			}
		})
	}
}

func TestMetricsNames(t *testing.T) {
	_, url := newTestServer(t, Options{})
	post(t, url+"/v1/completions", `{"prompt":[1,300],"max_tokens":5}`)
	_, b := get(t, url+"/metrics")
	text := string(b)
	for _, want := range []string{
		`vllm:num_requests_running{engine="0",model_name="tiny"} 0.0`,
		`vllm:num_requests_waiting{engine="0",model_name="tiny"} 0.0`,
		`vllm:kv_cache_usage_perc{engine="0",model_name="tiny"} 0.0`,
		`vllm:generation_tokens_total{engine="0",model_name="tiny"} 5.0`,
		`vllm:prompt_tokens_total{engine="0",model_name="tiny"} 2.0`,
		`vllm:prefix_cache_queries_total{`, `vllm:prefix_cache_hits_total{`,
		`vllm:time_to_first_token_seconds_count{engine="0",model_name="tiny"} 1.0`,
		`vllm:inter_token_latency_seconds_count{engine="0",model_name="tiny"} 4.0`,
		`vllm:inter_token_latency_seconds_bucket{engine="0",model_name="tiny",le="+Inf"} 4.0`,
		`num_gpu_blocks="6144"`, `block_size="16"`,
		"# TYPE vllm:time_to_first_token_seconds histogram",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
