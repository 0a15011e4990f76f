package sim

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// metricValue is the value of the first sample in a /metrics body whose
// line starts with prefix (a name and "{", or a whole series).
func metricValue(t *testing.T, body []byte, prefix string) float64 {
	t.Helper()
	for line := range strings.SplitSeq(string(body), "\n") {
		if strings.HasPrefix(line, prefix) {
			v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err != nil {
				t.Fatalf("/metrics line %q: %v", line, err)
			}
			return v
		}
	}
	t.Fatalf("/metrics has no %s", prefix)
	return 0
}

// scrape reads /metrics and returns the values of the named series.
func scrape(t *testing.T, url string, names ...string) []float64 {
	t.Helper()
	_, b := get(t, url+"/metrics")
	out := make([]float64, len(names))
	for i, n := range names {
		out[i] = metricValue(t, b, n+"{")
	}
	return out
}

// tokenReader reads the token events of a completion stream.
type tokenReader struct {
	sc   *bufio.Scanner
	read int
}

// openStream starts a streaming completion of maxTokens (ignore_eos).
func openStream(t *testing.T, ctx context.Context, url string, maxTokens int) *tokenReader {
	t.Helper()
	body := `{"prompt":[1,300,301],"ignore_eos":true,"stream":true,"max_tokens":` + strconv.Itoa(maxTokens) + `}`
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &tokenReader{sc: bufio.NewScanner(resp.Body)}
}

// until reads token events until n have arrived.
func (r *tokenReader) until(t *testing.T, n int) {
	t.Helper()
	for r.read < n {
		if !r.sc.Scan() {
			t.Fatalf("stream ended after %d tokens, want %d: %v", r.read, n, r.sc.Err())
		}
		if strings.HasPrefix(r.sc.Text(), "data: {") {
			r.read++
		}
	}
}

// TestMetricsAdvanceDuringStream scrapes /metrics while a long stream runs
// (its tokens come from the server, so what the client has read the server
// has counted): generation_tokens_total grows before the request finishes,
// and under GenTokensAtFinish stays 0 while the ITL histogram grows.
func TestMetricsAdvanceDuringStream(t *testing.T) {
	const maxTokens = 4000 // 20 s at tiny's speed in real time: longer than the test
	for _, tc := range []struct {
		name     string
		atFinish bool
	}{{"every step", false}, {"at finish", true}} {
		t.Run(tc.name, func(t *testing.T) {
			_, url := newTestServer(t, Options{TimeScale: 1, Faults: Faults{GenTokensAtFinish: tc.atFinish}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := openStream(t, ctx, url, maxTokens)
			r.until(t, 5)
			names := []string{"vllm:generation_tokens_total", "vllm:inter_token_latency_seconds_count", "vllm:num_requests_running"}
			first := scrape(t, url, names...)
			r.until(t, int(max(first[0], first[1]))+2)
			second := scrape(t, url, names...)
			if first[2] != 1 || second[2] != 1 {
				t.Errorf("num_requests_running %g then %g during the stream, want 1", first[2], second[2])
			}
			if second[1] <= first[1] || first[1] < 4 {
				t.Errorf("ITL count %g then %g after 5 and %d tokens: want it to grow per token", first[1], second[1], r.read)
			}
			switch {
			case tc.atFinish && (first[0] != 0 || second[0] != 0):
				t.Errorf("generation_tokens_total %g then %g before the request ended, want 0", first[0], second[0])
			case !tc.atFinish && (first[0] < 5 || second[0] <= first[0] || second[0] >= maxTokens):
				t.Errorf("generation_tokens_total %g then %g after 5 and %d tokens: want it to grow before the end", first[0], second[0], r.read)
			}
		})
	}
}

// TestGenTokensAtFinishCountsWholeOutput checks the counter once requests
// have ended: finished and aborted ones count all their tokens.
func TestGenTokensAtFinishCountsWholeOutput(t *testing.T) {
	_, url := newTestServer(t, Options{Faults: Faults{GenTokensAtFinish: true}})
	post(t, url+"/v1/completions", `{"prompt":[1,300],"max_tokens":7,"ignore_eos":true}`)
	post(t, url+"/v1/completions", `{"prompt":[1,301],"max_tokens":5,"ignore_eos":true}`)
	got := scrape(t, url, "vllm:generation_tokens_total", "vllm:inter_token_latency_seconds_count", "vllm:time_to_first_token_seconds_count")
	if got[0] != 12 || got[1] != 10 || got[2] != 2 {
		t.Errorf("generation tokens %g, ITL count %g, TTFT count %g: want 12, 10, 2", got[0], got[1], got[2])
	}
}
