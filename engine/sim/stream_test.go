package sim

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
)

// events splits an SSE body into its data payloads.
func events(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// sseChunk is the union of the completion and chat chunk shapes.
type sseChunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Text  *string `json:"text"`
		Delta *struct {
			Role             string  `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

func decodeChunks(t *testing.T, evs []string) []sseChunk {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", evs)
	}
	var out []sseChunk
	for _, e := range evs[:len(evs)-1] {
		var c sseChunk
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("chunk %q: %v", e, err)
		}
		out = append(out, c)
	}
	return out
}

func TestCompletionStreamShape(t *testing.T) {
	_, url := newTestServer(t, Options{})
	for _, tc := range []struct {
		name       string
		options    string
		continuous bool
		usageChunk bool
	}{
		{"no usage", ``, false, false},
		{"include usage", `,"stream_options":{"include_usage":true}`, false, true},
		{"continuous usage", `,"stream_options":{"include_usage":true,"continuous_usage_stats":true}`, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b := post(t, url+"/v1/completions", `{"model":"tiny","prompt":[1,300,301,302],"max_tokens":7,"stream":true`+tc.options+`}`)
			if code != 200 {
				t.Fatalf("status %d: %s", code, b)
			}
			chunks := decodeChunks(t, events(t, b))
			tokens := len(chunks)
			if tc.usageChunk {
				last := chunks[len(chunks)-1]
				if len(last.Choices) != 0 || last.Usage == nil || last.Usage.PromptTokens != 4 || last.Usage.CompletionTokens != 7 || last.Usage.TotalTokens != 11 {
					t.Errorf("last chunk %+v: want empty choices and usage 4+7", last)
				}
				tokens--
			}
			if tokens != 7 {
				t.Fatalf("%d token chunks, want 7", tokens)
			}
			for i, c := range chunks[:7] {
				if c.Object != "text_completion" || c.Choices[0].Text == nil {
					t.Fatalf("chunk %d: %+v", i, c)
				}
				if tc.continuous != (c.Usage != nil) || tc.continuous && c.Usage.CompletionTokens != i+1 {
					t.Errorf("chunk %d usage %+v, continuous %v", i, c.Usage, tc.continuous)
				}
				if fr := c.Choices[0].FinishReason; (i == 6) != (fr != nil) || fr != nil && *fr != "length" {
					t.Errorf("chunk %d finish_reason %v", i, fr)
				}
			}
		})
	}
}

// TestChatStreamReasoning: a reasoning profile streams its thought first,
// as delta.reasoning (current vLLM) or, with OldReasoningField, as
// delta.reasoning_content (vLLM before 0.16), then the answer as
// delta.content.
func TestChatStreamReasoning(t *testing.T) {
	for _, old := range []bool{false, true} {
		p, _ := LookupProfile("gemma-4-e2b-rtxpro6000")
		p.ReasoningTokens = 3
		_, url := newTestServer(t, Options{Profile: p, TimeScale: 50, OldReasoningField: old})
		code, b := post(t, url+"/v1/chat/completions", `{"model":"gemma","messages":[{"role":"user","content":"hi"}],"max_tokens":6,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`)
		if code != 200 {
			t.Fatalf("status %d: %s", code, b)
		}
		chunks := decodeChunks(t, events(t, b))
		if len(chunks) != 8 {
			t.Fatalf("%d chunks, want role + 6 tokens + usage", len(chunks))
		}
		if d := chunks[0].Choices[0].Delta; d == nil || d.Role != "assistant" {
			t.Errorf("first chunk %+v: want the assistant role", chunks[0])
		}
		for i, c := range chunks[1:7] {
			d := c.Choices[0].Delta
			thought, other := d.Reasoning, d.ReasoningContent
			if old {
				thought, other = other, thought
			}
			if reasoning := i < 3; reasoning != (thought != nil) || other != nil || reasoning == (d.Content != nil) {
				t.Errorf("old field %v, token %d: reasoning %v (the other name %v), content %v", old, i, thought, other, d.Content)
			}
			if c.Object != "chat.completion.chunk" || c.Usage == nil || c.Usage.CompletionTokens != i+1 {
				t.Errorf("token %d chunk %+v", i, c)
			}
		}
		if u := chunks[7].Usage; len(chunks[7].Choices) != 0 || u == nil || u.CompletionTokens != 6 {
			t.Errorf("last chunk %+v", chunks[7])
		}
	}
}
