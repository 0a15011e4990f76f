package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// abortPart in a part list makes the test server drop the connection.
const abortPart = "\x00abort"

// sseHandler serves parts as an event stream, flushing after each part.
func sseHandler(parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range parts {
			if p == abortPart {
				panic(http.ErrAbortHandler)
			}
			_, _ = io.WriteString(w, p)
			w.(http.Flusher).Flush()
		}
	}
}

func testClient(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return New(srv.URL+"/v1/", "sk-test")
}

func ev(json string) string { return "data: " + json + "\n\n" }

func chatDelta(field, text string) string {
	return ev(fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{%q:%q},"logprobs":null,"finish_reason":null}],"usage":null}`, field, text))
}

var (
	roleChunk   = ev(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
	finishChunk = ev(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`)
	usageChunk  = ev(`{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":7,"total_tokens":10,"completion_tokens":3}}`)
	doneEvent   = "data: [DONE]\n\n"
	usage7_3    = &Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}
)

type streamCase struct {
	name          string
	api           string
	parts         []string
	content       string
	reasoning     string
	usage         *Usage
	finish        string
	done          bool
	chunks        int
	err           error
	errMentioning string
}

var streamCases = []streamCase{
	{name: "chat, usage only at the end",
		parts:   []string{roleChunk, chatDelta("content", "Hel"), chatDelta("content", "lo"), finishChunk, usageChunk, doneEvent},
		content: "Hello", usage: usage7_3, finish: "length", done: true, chunks: 5},
	{name: "completions, usage null", api: apiCompletions,
		parts: []string{
			ev(`{"id":"x","object":"text_completion","choices":[{"index":0,"text":"a","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`),
			ev(`{"id":"x","object":"text_completion","choices":[{"index":0,"text":"b","logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":null}`),
			usageChunk, doneEvent},
		content: "ab", usage: usage7_3, finish: "stop", done: true, chunks: 3},
	{name: "continuous usage, several tokens per chunk",
		parts: []string{
			ev(`{"choices":[{"delta":{"content":"one two"}}],"usage":{"prompt_tokens":7,"total_tokens":9,"completion_tokens":2}}`),
			ev(`{"choices":[{"delta":{"content":" three"},"finish_reason":"length"}],"usage":{"prompt_tokens":7,"total_tokens":10,"completion_tokens":3}}`),
			usageChunk, doneEvent},
		content: "one two three", usage: usage7_3, finish: "length", done: true, chunks: 3},
	{name: "reasoning deltas",
		parts:   []string{roleChunk, chatDelta("reasoning_content", "hm "), chatDelta("reasoning", "ok"), chatDelta("content", "A"), finishChunk, doneEvent},
		content: "A", reasoning: "hm ok", finish: "length", done: true, chunks: 5},
	{name: "keep-alives, CRLF, no space after data:",
		parts:   []string{": ping\r\n\r\n", "data:" + `{"choices":[{"delta":{"content":"x"}}]}` + "\r\n\r\n", ": ping\n\n", finishChunk, "data:[DONE]\r\n\r\n"},
		content: "x", finish: "length", done: true, chunks: 2},
	{name: "events split across writes",
		parts:   []string{chatDelta("content", "ab")[:9], chatDelta("content", "ab")[9:] + chatDelta("content", "c")[:30], chatDelta("content", "c")[30:], finishChunk[:len(finishChunk)-1], "\n", doneEvent},
		content: "abc", finish: "length", done: true, chunks: 3},
	{name: "several events in one write",
		parts:   []string{chatDelta("content", "a") + chatDelta("content", "b") + finishChunk + usageChunk + doneEvent},
		content: "ab", usage: usage7_3, finish: "length", done: true, chunks: 4},
	{name: "no [DONE] after a finish_reason",
		parts:   []string{chatDelta("content", "a"), finishChunk, usageChunk},
		content: "a", usage: usage7_3, finish: "length", chunks: 3},
	{name: "closed mid-stream",
		parts:   []string{chatDelta("content", "a"), chatDelta("content", "b")},
		content: "ab", chunks: 2, err: errIncomplete, errMentioning: "after 2 chunks"},
	{name: "connection dropped mid-stream",
		parts:   []string{chatDelta("content", "a"), abortPart},
		content: "a", chunks: 1, err: errIncomplete, errMentioning: "broke after 1 chunks"},
	{name: "malformed event",
		parts:   []string{chatDelta("content", "a"), "data: {not json\n\n", doneEvent},
		content: "a", chunks: 1, err: ErrMalformed, errMentioning: "OpenAI-compatible"},
	{name: "error event",
		parts:   []string{chatDelta("content", "a"), ev(`{"error":{"message":"This model's maximum context length is 16 tokens.","type":"BadRequestError","code":400}}`)},
		content: "a", chunks: 1, err: ErrContextTooLong, errMentioning: "don't fit the model's context"},
}

func TestStreamCases(t *testing.T) {
	for _, tc := range streamCases {
		t.Run(tc.name, func(t *testing.T) {
			c := testClient(t, sseHandler(tc.parts...))
			var content, reasoning strings.Builder
			var firstText time.Time
			prev := time.Time{}
			st, err := c.Stream(context.Background(), StreamRequest{API: tc.api, Model: "m", Prompt: "hi", MaxTokens: 3}, func(ch Chunk) {
				content.WriteString(ch.Content)
				reasoning.WriteString(ch.Reasoning)
				if firstText.IsZero() && ch.Content+ch.Reasoning != "" {
					firstText = ch.Arrived
				}
				if ch.Arrived.Before(prev) {
					t.Errorf("chunk arrived at %v, before the previous one at %v", ch.Arrived, prev)
				}
				prev = ch.Arrived
			})
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil && (!strings.Contains(err.Error(), tc.errMentioning) || strings.Contains(err.Error(), "\n")) {
				t.Errorf("error %q: want one line mentioning %q", err, tc.errMentioning)
			}
			if content.String() != tc.content || reasoning.String() != tc.reasoning {
				t.Errorf("content %q, reasoning %q; want %q, %q", content.String(), reasoning.String(), tc.content, tc.reasoning)
			}
			if (st.Usage == nil) != (tc.usage == nil) || (st.Usage != nil && *st.Usage != *tc.usage) {
				t.Errorf("usage %+v, want %+v", st.Usage, tc.usage)
			}
			if st.FinishReason != tc.finish || st.SawDone != tc.done || st.Chunks != tc.chunks {
				t.Errorf("finish %q, done %v, chunks %d; want %q, %v, %d", st.FinishReason, st.SawDone, st.Chunks, tc.finish, tc.done, tc.chunks)
			}
			if !st.FirstToken.Equal(firstText) || st.Sent.IsZero() || st.End.Before(st.FirstToken) || st.FirstToken.Before(st.Sent) {
				t.Errorf("sent %v, first token %v (first text chunk %v), end %v: out of order", st.Sent, st.FirstToken, firstText, st.End)
			}
		})
	}
}

func TestStreamRequestBody(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		req        StreamRequest
		want       string
	}{
		{"chat", "/v1/chat/completions",
			StreamRequest{Model: "m", Prompt: "hi", MaxTokens: 64, MinTokens: 64, IgnoreEOS: true, ContinuousUsage: true},
			`{"ignore_eos":true,"max_tokens":64,"messages":[{"content":"hi","role":"user"}],"min_tokens":64,"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true,"include_usage":true},"temperature":0}`},
		{"completions with token ids", "/v1/completions",
			StreamRequest{API: apiCompletions, Model: "m", PromptTokenIDs: []int{1, 2, 3}, MaxTokens: 1, Temperature: 0.5},
			`{"max_tokens":1,"model":"m","prompt":[1,2,3],"stream":true,"stream_options":{"include_usage":true},"temperature":0.5}`},
		{"chat messages", "/v1/chat/completions",
			StreamRequest{Model: "m", Messages: []Message{{"system", "s"}, {"user", "q1"}, {"assistant", "a1"}, {"user", "q2"}}, MaxTokens: 8, IgnoreEOS: true},
			`{"ignore_eos":true,"max_tokens":8,"messages":[{"content":"s","role":"system"},{"content":"q1","role":"user"},{"content":"a1","role":"assistant"},{"content":"q2","role":"user"}],"model":"m","stream":true,"stream_options":{"include_usage":true},"temperature":0}`},
		{"completions with empty text", "/v1/completions",
			StreamRequest{API: apiCompletions, Model: "m"},
			`{"model":"m","prompt":"","stream":true,"stream_options":{"include_usage":true},"temperature":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, path, auth, accept string
			c := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var m map[string]any
				_ = json.NewDecoder(r.Body).Decode(&m)
				b, _ := json.Marshal(m) // sorted keys
				got, path, auth, accept = string(b), r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Accept")
				sseHandler(finishChunk, doneEvent)(w, r)
			}))
			if _, err := c.Stream(context.Background(), tc.req, nil); err != nil {
				t.Fatal(err)
			}
			if got != tc.want || path != tc.path || auth != "Bearer sk-test" || accept != "text/event-stream" {
				t.Fatalf("sent %s %s (auth %q, accept %q)\nwant %s %s", path, got, auth, accept, tc.path, tc.want)
			}
		})
	}
}

func TestStreamRejectsBadRequests(t *testing.T) {
	c := New("http://127.0.0.1:1", "")
	for _, req := range []StreamRequest{{API: "embeddings"}, {API: apiChat, PromptTokenIDs: []int{1}}} {
		if _, err := c.Stream(context.Background(), req, nil); err == nil || !strings.Contains(err.Error(), "completions") {
			t.Errorf("Stream(%+v) = %v; want an error saying what to use", req, err)
		}
	}
	msgs := []Message{{"user", "q"}}
	for _, req := range []StreamRequest{
		{API: apiCompletions, Messages: msgs}, {API: apiChat, Messages: msgs, Prompt: "p"}, {API: apiChat, Messages: msgs, Shared: ShareText("s")},
	} {
		if _, err := c.Stream(context.Background(), req, nil); err == nil || !strings.Contains(err.Error(), "messages") {
			t.Errorf("Stream(%+v) = %v; want an error about the messages", req, err)
		}
	}
}

func TestStreamNotAnEventStream(t *testing.T) {
	c := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"hi"}}]}`)
	}))
	if _, err := c.Stream(context.Background(), StreamRequest{Model: "m"}, nil); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "instead of an event stream") {
		t.Fatalf("err = %v, want ErrMalformed saying the answer was not a stream", err)
	}
}

func TestStreamWithoutEvents(t *testing.T) {
	c := testClient(t, sseHandler("<html>not an API</html>\n"))
	if _, err := c.Stream(context.Background(), StreamRequest{Model: "m"}, nil); !errors.Is(err, errIncomplete) || !strings.Contains(err.Error(), "without sending any event: is this an OpenAI-compatible server?") {
		t.Fatalf("err = %v, want ErrIncomplete asking whether this is the right server", err)
	}
}
