package openai

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestStreamErrorAnswers(t *testing.T) {
	models := `{"object":"list","data":[{"id":"gemma","object":"model","max_model_len":131072},{"id":"qwen","object":"model","max_model_len":32768}]}`
	for _, tc := range []struct {
		name       string
		status     int
		body       string
		sentinel   error
		mentioning []string
	}{
		{"401 vLLM", 401, `{"error":"Unauthorized"}`, ErrUnauthorized,
			[]string{"rejected the API key (401)", "the key it was started with"}},
		{"404 model, new shape", 404, `{"error":{"message":"The model ` + "`nope`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}}`, ErrModelNotFound,
			[]string{`no model "nope" (404)`, `it serves "gemma", "qwen"`}},
		{"400 context, old shape", 400, `{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 4200 tokens (104 in the messages, 4096 in the completion).\nPlease reduce the length.","type":"BadRequestError","param":null,"code":400}`, ErrContextTooLong,
			[]string{"maximum context length is 2048", "(400): the prompt and the max output don't fit"}},
		{"400 max_model_len", 400, `{"error":{"message":"'max_tokens' is too large: 4096. The prompt plus max_tokens exceed max_model_len 8192.","type":"BadRequestError","code":400}}`, ErrContextTooLong,
			[]string{"max_model_len 8192", "don't fit the model's context"}},
		{"404 endpoint", 404, `{"detail":"Not Found"}`, ErrNotSupported,
			[]string{"POST /v1/chat/completions: the server answered 404 (Not Found): it does not serve this endpoint"}},
		{"500 plain text", 500, "Internal Server Error\n", nil,
			[]string{"answered 500: Internal Server Error: check the server log"}},
		{"429 rate limit", 429, `{"error":{"message":"Too many requests","type":"RateLimitError"}}`, ErrRejected,
			[]string{"POST /v1/chat/completions: the server rejected requests (429): Too many requests: it is overloaded"}},
		{"503 overloaded", 503, "Service Unavailable", ErrRejected,
			[]string{"the server rejected requests (503): Service Unavailable"}},
		{"422 validation", 422, `{"detail":[{"loc":["body","max_tokens"],"msg":"Input should be a valid integer","type":"int_parsing"}]}`, nil,
			[]string{"answered 422: Input should be a valid integer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, models) })
			mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			c := testClient(t, mux)
			c.APIKey = "sk-secret-key"
			_, err := c.Stream(context.Background(), StreamRequest{Model: "nope", Prompt: "hi"}, nil)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status {
				t.Fatalf("err = %v, want an APIError with status %d", err, tc.status)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.sentinel)
			}
			for _, other := range []error{ErrUnauthorized, ErrModelNotFound, ErrContextTooLong, ErrNotSupported, ErrRejected} {
				if other != tc.sentinel && errors.Is(err, other) {
					t.Errorf("errors.Is(%v, %v) = true, want false", err, other)
				}
			}
			msg := err.Error()
			for _, m := range tc.mentioning {
				if !strings.Contains(msg, m) {
					t.Errorf("message %q does not mention %q", msg, m)
				}
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, "sk-secret-key") {
				t.Errorf("message %q: want one line without the API key", msg)
			}
		})
	}
}

func TestUnknownModelWithoutList(t *testing.T) {
	e := parseErrorBody(404, []byte(`{"object":"error","message":"The model does not exist.","type":"NotFoundError","code":404}`))
	if !errors.Is(e, ErrModelNotFound) || !strings.Contains(e.Error(), "it lists its models at /v1/models") {
		t.Fatalf("got %q; want ErrModelNotFound pointing at /v1/models", e)
	}
}

func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	_ = l.Close() // nothing listens there now: connection refused
	c := New(url, "sk-secret-key")
	checks := map[string]error{}
	_, checks["Stream"] = c.Stream(context.Background(), StreamRequest{Model: "m"}, nil)
	_, checks["Models"] = c.Models(context.Background())
	checks["Health"] = c.Health(context.Background())
	_, checks["Metrics"] = c.Metrics(context.Background())
	for name, err := range checks {
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(msg, "cannot reach "+url+": is the server running?") ||
			strings.Contains(msg, "\n") || strings.Contains(msg, "sk-secret-key") {
			t.Errorf("%s: err = %q; want one line saying the server cannot be reached", name, msg)
		}
	}
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", 400)
	for in, want := range map[string]string{
		"a\nb\r\n  c\t d": "a b c d",
		"":                "",
		long:              strings.Repeat("é", 299) + "…",
		"a\u202eb":        "ab",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%.20q) = %.40q, want %.40q", in, got, want)
		}
	}
}

// TestURLCredentials: the user-info of the server URL is sent as basic auth
// (when there is no API key), and its password is in no error.
func TestURLCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "ann" || p != "pw-secret-1" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"data":[{"id":"m"}]}`))
	}))
	defer srv.Close()
	withUser := strings.Replace(srv.URL, "http://", "http://ann:pw-secret-1@", 1)
	if models, err := New(withUser, "").Models(context.Background()); err != nil || len(models) != 1 {
		t.Errorf("Models with the URL's credentials = %v, %v", models, err)
	}
	if _, err := New(srv.URL, "").Models(context.Background()); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("without them: %v, want ErrUnauthorized", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://ann:pw-secret-1@" + l.Addr().String()
	_ = l.Close()
	for _, base := range []string{gone, "http://ann:pw-secret-1@127.0.0.1:bad"} {
		_, err := New(base, "").Models(context.Background())
		if err == nil || strings.Contains(err.Error(), "pw-secret-1") || !strings.Contains(err.Error(), "ann:<redacted>@") {
			t.Errorf("%s: err = %v; want the password hidden", base, err)
		}
	}
}

// TestRetryAfter reads both forms of Retry-After, and nothing from a date
// in the past or a header that is neither; a rejection carries what its
// header said.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		" 120 ":                         2 * time.Minute,
		"Fri, 04 Dec 2026 12:00:30 GMT": 30 * time.Second,
		"Fri, 04 Dec 2026 11:59:00 GMT": 0,
		"soon":                          0,
		"-5":                            0,
		"99999999999":                   (1 << 32) * time.Second,
	} {
		if got := retryAfter(h, now); got != want {
			t.Errorf("Retry-After %q: %v, want %v", h, got, want)
		}
	}
	c := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	_, err := c.Stream(t.Context(), StreamRequest{Model: "m"}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, ErrRejected) || apiErr.RetryAfter != 7*time.Second {
		t.Fatalf("err = %v (%+v), want a rejection asking for 7 s", err, apiErr)
	}
}
