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

// chattyHandler sends head, then filler every few milliseconds until the
// client goes away: a server that keeps the connection busy (keep-alive
// comments, empty chunks, a line a byte at a time) without a new token.
func chattyHandler(head, filler string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, head)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				_, _ = io.WriteString(w, filler)
			}
		}
	}
}

// TestStreamStalls checks both timeouts: a stream without a token fails
// after the first-token timeout (however short the stall timeout), and one
// that stops producing tokens fails after the stall timeout (however long
// the first-token timeout), whatever else the server keeps sending. The
// context's minute only bounds a failing test: the stream must end with
// ErrStalled, not by the context.
func TestStreamStalls(t *testing.T) {
	// short is far above the filler's 5 ms, so that a busy machine's pause
	// can't pass for a stall where something kept coming.
	const short, long = time.Second, time.Hour
	const noFirst, noMore = "no first token within 1 s", "no token for 1 s after the last one"
	emptyDelta := ev(`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}`)
	for _, tc := range []struct {
		name              string
		h                 http.HandlerFunc
		firstToken, stall time.Duration
		chunks            int // -1: any number
		want              string
	}{
		{"after a token", blockingHandler(true, chatDelta("content", "a")), long, short, 1, noMore},
		{"after the role chunk only", blockingHandler(true, roleChunk), short, long, 1, noFirst},
		{"after keep-alives only", blockingHandler(true, ": ping\n\n"), short, long, 0, noFirst},
		{"before the headers", blockingHandler(false), short, long, 0, noFirst},
		{"keep-alives before the first token", chattyHandler("", ": ping\n\n"), short, long, 0, noFirst},
		{"empty chunks before the first token", chattyHandler("", roleChunk), short, long, -1, noFirst},
		{"a line a byte at a time before the first token", chattyHandler("data: ", "x"), short, long, 0, noFirst},
		{"keep-alives after a token", chattyHandler(chatDelta("content", "a"), ": ping\n\n"), long, short, 1, noMore},
		{"empty chunks after a token", chattyHandler(chatDelta("content", "a"), emptyDelta), long, short, -1, noMore},
		{"the same usage again and again", chattyHandler(usageChunk, usageChunk), long, short, -1, noMore},
		{"a line a byte at a time after a token", chattyHandler(chatDelta("content", "a")+"data: ", "x"), long, short, 1, noMore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := testClient(t, tc.h)
			c.FirstTokenTimeout, c.StallTimeout = tc.firstToken, tc.stall
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			st, err := c.Stream(ctx, StreamRequest{Model: "m"}, nil)
			var se *StallError
			if !errors.Is(err, errStalled) || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrStalled saying %q", err, tc.want)
			}
			if (tc.chunks >= 0 && st.Chunks != tc.chunks) || st.End.Sub(st.Sent) < short {
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
