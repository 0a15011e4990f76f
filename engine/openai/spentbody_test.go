package openai

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSpendableBody: the body can be rewound until it has been read to its
// end, and then no longer holds its bytes.
func TestSpendableBody(t *testing.T) {
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/", nil)
	want := strings.Repeat("prompt ", 1000)
	setSpendableBody(req, [][]byte{[]byte(want[:7]), nil, []byte(want[7:])})
	if req.ContentLength != int64(len(want)) {
		t.Fatalf("ContentLength %d, want %d", req.ContentLength, len(want))
	}
	part := make([]byte, 10)
	if _, err := io.ReadFull(req.Body, part); err != nil {
		t.Fatal(err)
	}
	again, err := req.GetBody() // a retry before the body went out in full
	if err != nil {
		t.Fatalf("GetBody before the body was sent: %v", err)
	}
	if got, _ := io.ReadAll(again); string(got) != want {
		t.Fatalf("rewound body has %d bytes, want %d", len(got), len(want))
	}
	if _, err := req.GetBody(); !errors.Is(err, errBodySpent) {
		t.Fatalf("GetBody after the body was read to its end: %v, want errBodySpent", err)
	}
	if rest, _ := io.ReadAll(req.Body); len(rest) != len(want)-10 {
		t.Errorf("the first reader still reads %d bytes, want the %d it had left", len(rest), len(want)-10)
	}
}

// TestStreamSendsWholeBody: a stream's request reaches the server whole,
// with its length and type.
func TestStreamSendsWholeBody(t *testing.T) {
	prompt := strings.Repeat("lorem ipsum ", 50000)
	var got StreamRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Prompt string `json:"prompt"`
		}
		if r.Header.Get("Content-Type") != "application/json" || r.ContentLength <= int64(len(prompt)) {
			t.Errorf("Content-Type %q, length %d", r.Header.Get("Content-Type"), r.ContentLength)
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err == nil {
			got.Prompt = body.Prompt
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"x\",\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	st, err := New(srv.URL, "").Stream(t.Context(), StreamRequest{API: apiCompletions, Model: "m", Prompt: prompt, MaxTokens: 1}, nil)
	if err != nil || !st.SawDone {
		t.Fatalf("stream: %v, saw [DONE] %v", err, st.SawDone)
	}
	if got.Prompt != prompt {
		t.Errorf("the server got a prompt of %d bytes, want %d", len(got.Prompt), len(prompt))
	}
}
