package servers

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"speedmatrix/engine/openai"
)

// fakeEngine answers the endpoints detection asks with canned bodies
// (path → body); any other path is a 404, as FastAPI answers.
func fakeEngine(t *testing.T, bodies map[string]string) *openai.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
			return
		}
		if r.URL.Path == "/metrics" {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = w.Write([]byte(b))
	}))
	t.Cleanup(srv.Close)
	return openai.New(srv.URL, "")
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDetectKind tells vLLM, SGLang (by its server info under either name,
// or by its metric names alone) and a generic OpenAI-compatible server
// apart, and reads SGLang's limits.
func TestDetectKind(t *testing.T) {
	info := readTestdata(t, "sglang_server_info.json")
	sgMetrics := readTestdata(t, "sglang_metrics.txt")
	cases := []struct {
		name        string
		bodies      map[string]string
		kind, ver   string
		kv, running int
		ctxLen      int
	}{
		{"vllm", map[string]string{"/version": `{"version":"0.11.0"}`,
			"/metrics": "vllm:num_requests_running{engine=\"0\"} 0\n"}, "vllm", "0.11.0", 0, 0, 0},
		{"sglang /get_server_info, dp 2", map[string]string{"/version": `{"version":"0.4.6.post4"}`,
			"/get_server_info": info, "/metrics": sgMetrics}, "sglang", "0.4.6.post4", 2 * 431512, 512, 32768},
		{"sglang /server_info with internal states", map[string]string{"/server_info": `{"model_path":"m","context_length":8192,"max_running_requests":48,"internal_states":[{"max_total_num_tokens":100000},{"max_total_num_tokens":100000}],"dp_size":2,"enable_dp_attention":true,"version":"0.5.6"}`},
			"sglang", "0.5.6", 200000, 48, 8192},
		{"sglang by its metric names", map[string]string{"/version": `{"version":"0.4.0"}`, "/metrics": sgMetrics}, "sglang", "0.4.0", 0, 0, 0},
		{"generic", map[string]string{"/v1/models": `{"data":[]}`}, "OpenAI-compatible server", "", 0, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, _, err := Detect(t.Context(), fakeEngine(t, tc.bodies))
			if err != nil {
				t.Fatal(err)
			}
			if k.Name() != tc.kind || k.Version() != tc.ver {
				t.Fatalf("detected %s %s, want %s %s", k.Name(), k.Version(), tc.kind, tc.ver)
			}
			l, _ := k.Limits()
			if l.KVTokens != tc.kv || l.MaxRunning != tc.running || l.ContextLength != tc.ctxLen {
				t.Errorf("limits %+v, want KV %d, running %d, context %d", l, tc.kv, tc.running, tc.ctxLen)
			}
			if k.AbortsByID() != (tc.kind == "sglang") {
				t.Errorf("aborts by id: %v", k.AbortsByID())
			}
		})
	}
}

// TestSGLangLimitsNoKVBudget: a server info without max_total_num_tokens
// has limits but no KV size, and says so in one line.
func TestSGLangLimitsNoKVBudget(t *testing.T) {
	k := &sglangKind{hasInfo: true, info: openai.ServerInfo{ModelPath: "m", ContextLength: 8192, MaxRunningRequests: 32}}
	l, note := k.Limits()
	if l.KVTokens != 0 || l.ContextLength != 8192 || l.MaxRunning != 32 || note != NoteSGLangNoKVBudget {
		t.Errorf("limits %+v, note %q; want no KV size, the rest, and the note", l, note)
	}
	if _, note := (&sglangKind{}).Limits(); note != "" {
		t.Errorf("without server info: note %q, want none (nothing was said to be missing)", note)
	}
}

// TestDetectGivesUpWithoutAnswer: a request that gets no answer ends
// detection with its own error, and nothing more is asked: a server that
// accepts connections and never answers costs one request timeout, not
// one per endpoint. A server that answers /version but hangs on the next
// request is given up on at that one.
func TestDetectGivesUpWithoutAnswer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answers  map[string]string // path → body; any other path hangs
		endpoint string
		requests int64
	}{
		{"hangs on everything", nil, "GET /version", 1},
		{"hangs after /version", map[string]string{"/version": `{"version":"0.11.0"}`}, "GET /get_server_info", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if b, ok := tc.answers[r.URL.Path]; ok {
					_, _ = w.Write([]byte(b))
					return
				}
				<-r.Context().Done()
			}))
			t.Cleanup(srv.Close)
			c := openai.New(srv.URL, "")
			c.RequestTimeout = 100 * time.Millisecond
			// Counted as the client sends, however late the server sees them.
			var requests atomic.Int64
			c.HTTP = &http.Client{Transport: countRequests{&requests, c.HTTP.Transport}}
			_, _, err := Detect(t.Context(), c)
			if !errors.Is(err, openai.ErrTimeout) || !strings.HasPrefix(err.Error(), tc.endpoint+": ") || !strings.Contains(err.Error(), "no answer within 100 ms") {
				t.Fatalf("err = %v, want a timeout of %s", err, tc.endpoint)
			}
			if n := requests.Load(); n != tc.requests {
				t.Errorf("%d requests, want %d: detection goes on after a request got no answer", n, tc.requests)
			}
		})
	}
}

// countRequests counts the requests sent through next.
type countRequests struct {
	n    *atomic.Int64
	next http.RoundTripper
}

// RoundTrip counts r and sends it on.
func (c countRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}
