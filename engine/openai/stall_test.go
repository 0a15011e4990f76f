package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// blockingHandler sends parts, then holds the stream open until the client
// goes away.
func blockingHandler(headers bool, parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if headers {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for _, p := range parts {
				_, _ = io.WriteString(w, p)
			}
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}
}

// TestStreamStalls checks both timeouts: a stream without a token fails
// after the first-token timeout (however short the stall timeout), and one
// that went quiet after its first token fails after the stall timeout
// (however long the first-token timeout).
func TestStreamStalls(t *testing.T) {
	const short, long = 150 * time.Millisecond, time.Hour
	for _, tc := range []struct {
		name              string
		h                 http.HandlerFunc
		firstToken, stall time.Duration
		chunks            int
		want              string
	}{
		{"after a token", blockingHandler(true, chatDelta("content", "a")), long, short, 1, "nothing from the server for 150 ms after the first token"},
		{"after the role chunk only", blockingHandler(true, roleChunk), short, long, 1, "no first token within 150 ms"},
		{"after keep-alives only", blockingHandler(true, ": ping\n\n"), short, long, 0, "no first token within 150 ms"},
		{"before the headers", blockingHandler(false), short, long, 0, "no first token within 150 ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testClient(t, tc.h)
			c.FirstTokenTimeout, c.StallTimeout = tc.firstToken, tc.stall
			st, err := c.Stream(context.Background(), StreamRequest{Model: "m"}, nil)
			var se *StallError
			if !errors.Is(err, ErrStalled) || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrStalled saying %q", err, tc.want)
			}
			if st.Chunks != tc.chunks || st.End.Sub(st.Sent) < short {
				t.Fatalf("chunks %d, stream lasted %v; want %d chunks and at least %v", st.Chunks, st.End.Sub(st.Sent), tc.chunks, short)
			}
		})
	}
}

// TestRequestTimeout: every non-streaming request of a server that accepts
// the connection and never answers ends with ErrTimeout naming the endpoint.
func TestRequestTimeout(t *testing.T) {
	c := testClient(t, blockingHandler(false))
	c.RequestTimeout = 100 * time.Millisecond
	for _, tc := range []struct {
		endpoint string
		call     func() error
	}{
		{"GET /v1/models", func() error { _, err := c.Models(t.Context()); return err }},
		{"GET /metrics", func() error { _, err := c.Metrics(t.Context()); return err }},
		{"POST /tokenize", func() error { _, err := c.Tokenize(t.Context(), "m", "hi"); return err }},
		{"POST /detokenize", func() error { _, err := c.Detokenize(t.Context(), "m", []int{1}); return err }},
		{"GET /health", func() error { return c.Health(t.Context()) }},
		{"GET /version", func() error { _, err := c.Version(t.Context()); return err }},
	} {
		err := tc.call()
		if !errors.Is(err, ErrTimeout) || !strings.HasPrefix(err.Error(), tc.endpoint+": ") || !strings.Contains(err.Error(), "no answer within 100 ms") {
			t.Errorf("%s: err = %v, want ErrTimeout naming the endpoint and the timeout", tc.endpoint, err)
		}
	}
}

// TestStreamStallTimeoutIsNotTotal checks that a slow but steady stream
// longer than the stall timeout is not cut. The client's arrivals pace the
// server: each chunk is sent 200 ms after the client read the one before,
// so the stream lasts at least 800 ms (above the 600 ms stall timeout)
// however busy the machine is, and a gap reaches the timeout only if a
// chunk takes 400 ms to get through.
func TestStreamStallTimeoutIsNotTotal(t *testing.T) {
	const gap, stall = 200 * time.Millisecond, 600 * time.Millisecond
	read := make(chan struct{}, 1)
	c := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range 4 {
			_, _ = io.WriteString(w, chatDelta("content", "x"))
			w.(http.Flusher).Flush()
			select {
			case <-read:
			case <-r.Context().Done():
				return
			}
			time.Sleep(gap)
		}
		_, _ = io.WriteString(w, finishChunk+doneEvent)
	}))
	c.StallTimeout = stall
	st, err := c.Stream(context.Background(), StreamRequest{Model: "m"}, func(Chunk) {
		select {
		case read <- struct{}{}:
		default: // the finish chunk: the server waits for nothing more
		}
	})
	if err != nil || st.Chunks != 5 || !st.SawDone {
		t.Fatalf("stats %+v, err %v; want 5 chunks and [DONE]", st, err)
	}
	if took := st.End.Sub(st.Sent); took < 4*gap || took < stall {
		t.Fatalf("the stream lasted %v, want at least %v (longer than the stall timeout)", took, 4*gap)
	}
}

func TestStreamCancel(t *testing.T) {
	c := testClient(t, blockingHandler(true, chatDelta("content", "a")))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled time.Time
	st, err := c.Stream(ctx, StreamRequest{Model: "m"}, func(Chunk) {
		cancelled = time.Now()
		cancel()
	})
	took := time.Since(cancelled)
	if !errors.Is(err, context.Canceled) || st.Chunks != 1 {
		t.Fatalf("err = %v, chunks %d; want context.Canceled after 1 chunk", err, st.Chunks)
	}
	if took > time.Second {
		t.Fatalf("Stream returned %v after the cancel, want under 1 s", took)
	}
}
