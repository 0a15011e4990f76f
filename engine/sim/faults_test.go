package sim

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestErrorRateFault(t *testing.T) {
	_, url := newTestServer(t, Options{Faults: Faults{ErrorRate: 1}})
	code, b := post(t, url+"/v1/completions", `{"prompt":"hi","max_tokens":2}`)
	if code != 500 || !strings.Contains(string(b), "fault injection") {
		t.Errorf("error rate 1: %d %s, want a vLLM-shaped 500", code, b)
	}
	if code, _ := post(t, url+"/tokenize", `{"prompt":"hi"}`); code != 200 {
		t.Errorf("error rate 1 fails /tokenize too (%d): only generation should fail", code)
	}
	_, url = newTestServer(t, Options{Faults: Faults{ErrorRate: 0.5}, Seed: 1})
	failed := 0
	for range 40 {
		if code, _ := post(t, url+"/v1/completions", `{"prompt":"hi","max_tokens":1}`); code == 500 {
			failed++
		}
	}
	if failed < 8 || failed > 32 {
		t.Errorf("error rate 0.5 failed %d of 40 requests", failed)
	}
}

// streamTokens opens a completion stream and returns a reader of its events.
func streamTokens(t *testing.T, ctx context.Context, url string) (*bufio.Scanner, func()) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions",
		strings.NewReader(`{"prompt":"hi","max_tokens":100,"ignore_eos":true,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return bufio.NewScanner(resp.Body), func() { resp.Body.Close() }
}

func TestDisconnectFault(t *testing.T) {
	_, url := newTestServer(t, Options{Faults: Faults{DisconnectAfterTokens: 5}})
	sc, done := streamTokens(t, context.Background(), url)
	defer done()
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d events before the disconnect, want 5", n)
	}
	if err := sc.Err(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("stream ended with %v, want an unexpected EOF (connection dropped mid-stream)", err)
	}
}

func TestStallFault(t *testing.T) {
	s, url := newTestServer(t, Options{Faults: Faults{StallAfterTokens: 3}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc, done := streamTokens(t, ctx, url)
	defer done()
	n := 0
	for n < 3 && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			n++
		}
	}
	// The server must have stopped the sequence: nothing is running once
	// the stall began, and the stream stays open without a byte.
	deadline := time.Now().Add(5 * time.Second)
	for s.running() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if r := s.running(); r != 0 {
		t.Fatalf("%d sequences still running after the stall", r)
	}
	got := make(chan string, 1)
	go func() {
		for sc.Scan() {
			if sc.Text() != "" {
				got <- sc.Text()
				return
			}
		}
		got <- ""
	}()
	select {
	case line := <-got:
		t.Errorf("stalled stream delivered %q", line)
		return
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	if line := <-got; line != "" {
		t.Errorf("stalled stream delivered %q", line)
	}
}

// running is the number of running sequences as /metrics reports it.
func (s *Server) running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.metrics.running
}

func TestStartupDelayFault(t *testing.T) {
	_, url := newTestServer(t, Options{Faults: Faults{StartupDelay: 200 * time.Millisecond}})
	if code, _ := get(t, url+"/health"); code != 503 {
		t.Errorf("/health during start-up: %d, want 503", code)
	}
	if code, _ := get(t, url+"/v1/models"); code != 503 {
		t.Errorf("/v1/models during start-up: %d, want 503", code)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _ := get(t, url+"/health")
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/health still %d 10 s after a 200 ms start-up delay", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCloseEndsStreams checks that Close ends a stream in progress.
func TestCloseEndsStreams(t *testing.T) {
	p := tinyProfile()
	s, url := newTestServer(t, Options{Profile: p, TimeScale: 1})
	sc, done := streamTokens(t, context.Background(), url)
	defer done()
	if !sc.Scan() {
		t.Fatal("no first event")
	}
	s.Close()
	for sc.Scan() {
		if sc.Text() == "data: [DONE]" {
			t.Error("a stream cut by Close ended with [DONE] as if complete")
		}
	}
}
