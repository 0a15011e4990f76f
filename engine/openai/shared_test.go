package openai

import (
	"bytes"
	"strings"
	"testing"
)

// TestSharedPromptSameJSON: a request with a shared start sends the very
// bytes of the same request with the whole prompt in it, and its shared
// part is the SharedPrompt's own bytes, not a copy.
func TestSharedPromptSameJSON(t *testing.T) {
	text := strings.Repeat("Notes \"quoted\" <b>&</b>\n\t\u00e9 ", 200)
	ids := []int{2, 651, 1234, 99, 7, 100000}
	cases := []struct {
		name       string
		shared     *SharedPrompt
		req, whole StreamRequest
	}{
		{"chat", ShareText(text), StreamRequest{API: apiChat, Prompt: " tail a b"}, StreamRequest{API: apiChat, Prompt: text + " tail a b"}},
		{"completions text", ShareText(text), StreamRequest{API: apiCompletions, Prompt: "z"}, StreamRequest{API: apiCompletions, Prompt: text + "z"}},
		{"ids with a tail", ShareIDs(ids), StreamRequest{API: apiCompletions, PromptTokenIDs: []int{5, 6}}, StreamRequest{API: apiCompletions, PromptTokenIDs: append(append([]int{}, ids...), 5, 6)}},
		{"ids alone", ShareIDs(ids), StreamRequest{API: apiCompletions}, StreamRequest{API: apiCompletions, PromptTokenIDs: ids}},
	}
	for _, tc := range cases {
		tc.req.Model, tc.whole.Model = "m", "m"
		tc.req.MaxTokens, tc.whole.MaxTokens = 64, 64
		tc.req.Shared = tc.shared
		_, parts, err := streamBodyParts(tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_, want, _ := streamBody(tc.whole)
		if got := bytes.Join(parts, nil); !bytes.Equal(got, want) {
			t.Errorf("%s: body\n%s\nwant\n%s", tc.name, got, want)
		}
		if len(parts) != 3 || &parts[1][0] != &tc.shared.wire[0] {
			t.Errorf("%s: the shared start was copied into the body", tc.name)
		}
	}
}

// TestSharedPromptMismatch: ids after a text start, or a token-id start in
// a chat request, are refused with a message.
func TestSharedPromptMismatch(t *testing.T) {
	for _, req := range []StreamRequest{
		{API: apiChat, Shared: ShareIDs([]int{1, 2})},
		{API: apiCompletions, Shared: ShareIDs([]int{1, 2}), Prompt: "x"},
		{API: apiCompletions, Shared: ShareText("abc"), PromptTokenIDs: []int{1}},
	} {
		if _, _, err := streamBodyParts(req); err == nil {
			t.Errorf("%+v: no error", req)
		}
	}
}
