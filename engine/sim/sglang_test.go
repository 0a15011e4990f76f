package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSGLangEndpoints: in SGLang mode the simulator has SGLang's server
// info, model info and sglang:* metrics, and no /tokenize.
func TestSGLangEndpoints(t *testing.T) {
	s, url := newTestServer(t, Options{Mode: ModeSGLang})
	code, b := get(t, url+"/get_server_info")
	var info struct {
		MaxTotalNumTokens  int `json:"max_total_num_tokens"`
		ContextLength      int `json:"context_length"`
		MaxRunningRequests int `json:"max_running_requests"`
		InternalStates     []struct {
			MaxTotalNumTokens int `json:"max_total_num_tokens"`
		} `json:"internal_states"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &info); code != 200 || err != nil || info.MaxTotalNumTokens != s.prof.KVCacheTokens ||
		info.ContextLength != s.prof.MaxModelLen || info.MaxRunningRequests != s.prof.MaxNumSeqs ||
		len(info.InternalStates) != 1 || info.InternalStates[0].MaxTotalNumTokens != s.prof.KVCacheTokens || info.Version != SGLangVersion {
		t.Errorf("/get_server_info %d %s (%v)", code, b, err)
	}
	if code, b := get(t, url+"/get_model_info"); code != 200 || !strings.Contains(string(b), `"is_generation":true`) {
		t.Errorf("/get_model_info %d %s", code, b)
	}
	if code, _ := post(t, url+"/tokenize", `{"prompt":"x"}`); code != http.StatusNotFound {
		t.Errorf("/tokenize answered %d, want 404 as older SGLang", code)
	}
	_, m := get(t, url+"/metrics")
	for _, name := range []string{"sglang:num_running_reqs{", "sglang:num_queue_reqs{", "sglang:token_usage{", "sglang:gen_throughput{",
		"sglang:cache_hit_rate{", "sglang:generation_tokens_total{"} {
		if !strings.Contains(string(m), name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	if strings.Contains(string(m), "vllm:") {
		t.Errorf("/metrics in SGLang mode has vLLM names")
	}
	_, noMetrics := newTestServer(t, Options{Mode: ModeSGLang, NoMetrics: true})
	if code, _ := get(t, noMetrics+"/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics without metrics answered %d, want 404", code)
	}
	if _, err := New(Options{Profile: tinyProfile(), Mode: "tgi"}); err == nil || !strings.Contains(err.Error(), "use vllm or sglang") {
		t.Errorf("engine tgi: %v", err)
	}
}

// TestSGLangGeneratesUntilAborted: a request whose client left keeps
// generating (as SGLang does) until POST /abort_request names its rid,
// which its chunks carry as their id. Waits are on the server's own
// counters; the deadlines only bound a hang.
func TestSGLangGeneratesUntilAborted(t *testing.T) {
	s, url := newTestServer(t, Options{Mode: ModeSGLang, TimeScale: 1})
	ctx, cancel := context.WithCancel(context.Background())
	body := `{"prompt":[1,300,301],"ignore_eos":true,"stream":true,"max_tokens":8000,"rid":"r-1"}`
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	first := ""
	for first == "" && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: {") {
			first = sc.Text()
		}
	}
	if !strings.Contains(first, `"id":"r-1"`) {
		t.Fatalf("first chunk %q, want id r-1", first)
	}
	cancel()
	resp.Body.Close()
	names := []string{"sglang:num_running_reqs", "sglang:generation_tokens_total"}
	left := scrape(t, url, names...)
	waitFor(t, func() bool { got := scrape(t, url, names...); return got[1] > left[1]+50 }, "tokens generated after the disconnect")
	if got := scrape(t, url, names...); got[0] != 1 {
		t.Fatalf("%g running after the disconnect, want the request still running", got[0])
	}
	if code, _ := post(t, url+"/abort_request", `{"rid":"r-1"}`); code != 200 {
		t.Fatalf("abort answered %d", code)
	}
	waitFor(t, func() bool { return scrape(t, url, names...)[0] == 0 }, "the request to stop")
	post(t, url+"/abort_request", `{"rid":"r-1"}`)
	post(t, url+"/abort_request", `{"rid":"never"}`)
	if st := s.Aborts(); st != (AbortStats{Received: 3, Live: 1, Repeated: 1, Unknown: 1}) {
		t.Errorf("abort stats %+v", st)
	}
}

// waitFor polls cond until it holds, failing after a generous bound.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}
