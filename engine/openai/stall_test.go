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

func TestStreamStalls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      http.HandlerFunc
		chunks int
	}{
		{"after a chunk", blockingHandler(true, chatDelta("content", "a")), 1},
		{"after keep-alives only", blockingHandler(true, ": ping\n\n"), 0},
		{"before the headers", blockingHandler(false), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testClient(t, tc.h)
			const idle = 150 * time.Millisecond
			c.IdleTimeout = idle
			st, err := c.Stream(context.Background(), StreamRequest{Model: "m"}, nil)
			if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "no data from the server for 150ms") {
				t.Fatalf("err = %v, want ErrStalled saying how long", err)
			}
			if st.Chunks != tc.chunks || st.End.Sub(st.Sent) < idle {
				t.Fatalf("chunks %d, stream lasted %v; want %d chunks and at least %v", st.Chunks, st.End.Sub(st.Sent), tc.chunks, idle)
			}
		})
	}
}

// TestStreamIdleTimeoutIsNotTotal checks that a slow but steady stream
// longer than the idle timeout is not cut.
func TestStreamIdleTimeoutIsNotTotal(t *testing.T) {
	tick := make(chan struct{})
	c := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < 4; i++ {
			_, _ = io.WriteString(w, chatDelta("content", "x"))
			w.(http.Flusher).Flush()
			<-tick
		}
		_, _ = io.WriteString(w, finishChunk+doneEvent)
	}))
	c.IdleTimeout = 600 * time.Millisecond
	go func() {
		for i := 0; i < 4; i++ {
			time.Sleep(200 * time.Millisecond) // paces the server: 800 ms in all, above the idle timeout
			tick <- struct{}{}
		}
	}()
	st, err := c.Stream(context.Background(), StreamRequest{Model: "m"}, nil)
	if err != nil || st.Chunks != 5 || !st.SawDone {
		t.Fatalf("stats %+v, err %v; want 5 chunks and [DONE]", st, err)
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
