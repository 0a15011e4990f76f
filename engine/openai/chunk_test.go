package openai

import (
	"errors"
	"testing"
)

// chunkCases is the table of chunk shapes, shared by the parser test and
// the fuzz seeds. fast says whether the fast parser should take it.
var chunkCases = []struct {
	name string
	in   string
	want flatChunk
	fast bool
}{
	{"chat role", `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
		flatChunk{}, true},
	{"chat content, usage null", `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":null}`,
		flatChunk{content: "Hello"}, true},
	{"several tokens in one chunk", `{"choices":[{"delta":{"content":" the quick brown fox"}}],"usage":{"prompt_tokens":10,"total_tokens":15,"completion_tokens":5}}`,
		flatChunk{content: " the quick brown fox", usage: Usage{10, 5, 15}, hasUsage: true}, true},
	{"escapes", `{"choices":[{"delta":{"content":"a\n\"b\"\\\t\/"}}]}`,
		flatChunk{content: "a\n\"b\"\\\t/"}, true},
	{"unicode escape falls back", `{"choices":[{"delta":{"content":"caf\u00e9"}}]}`,
		flatChunk{content: "café"}, false},
	{"raw UTF-8", `{"choices":[{"delta":{"content":"café 日本"}}]}`,
		flatChunk{content: "café 日本"}, true},
	{"reasoning_content", `{"choices":[{"delta":{"reasoning_content":"think"}}]}`,
		flatChunk{reasoningContent: "think"}, true},
	{"reasoning", `{"choices":[{"delta":{"reasoning":"think","content":null}}]}`,
		flatChunk{reasoning: "think"}, true},
	{"finish", `{"choices":[{"index":0,"delta":{},"finish_reason":"length","stop_reason":null}]}`,
		flatChunk{finish: "length"}, true},
	{"final usage, empty choices", `{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":8192,"total_tokens":12288,"completion_tokens":4096,"prompt_tokens_details":null}}`,
		flatChunk{usage: Usage{8192, 4096, 12288}, hasUsage: true}, true},
	{"completions text", `{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":" world","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`,
		flatChunk{text: " world"}, true},
	{"nested values skipped", `{"choices":[{"delta":{"content":"x","tool_calls":[{"id":"t","function":{"arguments":"{}"}}]},"logprobs":{"content":[{"token":"x","logprob":-0.5e-3,"top_logprobs":[]}]}}],"x":[true,false,null,1.5E+2]}`,
		flatChunk{content: "x"}, true},
	{"white space", " {\n\t\"choices\" : [ { \"text\" : \"a\" } ] , \"usage\" : null }\r\n",
		flatChunk{text: "a"}, true},
	{"key case differs", `{"Choices":[{"text":"a"}]}`, flatChunk{text: "a"}, false},
	{"duplicate key", `{"choices":[{"text":"a"}],"choices":[]}`, flatChunk{}, false},
	{"two choices", `{"choices":[{"text":"a"},{"text":"b"}]}`, flatChunk{text: "a"}, false},
	{"float usage", `{"usage":{"prompt_tokens":1.0}}`, flatChunk{}, false},
	{"empty object", `{}`, flatChunk{}, true},
}

func TestParseChunk(t *testing.T) {
	for _, tc := range chunkCases {
		t.Run(tc.name, func(t *testing.T) {
			var fast flatChunk
			if ok := parseChunkFast([]byte(tc.in), &fast); ok != tc.fast {
				t.Errorf("fast parser took it: %v, want %v", ok, tc.fast)
			}
			got, err := parseChunk([]byte(tc.in))
			if tc.name == "float usage" {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("parseChunk = %+v, %v; want %+v", got, err, tc.want)
			}
			compareParsers(t, []byte(tc.in))
		})
	}
}

func TestParseChunkErrorEvent(t *testing.T) {
	for _, in := range []string{
		`{"error":{"message":"This model's maximum context length is 10 tokens.","type":"BadRequestError","code":400}}`,
		`{"object":"error","message":"This model's maximum context length is 10 tokens.","type":"BadRequestError","param":null,"code":400}`,
	} {
		_, err := parseChunk([]byte(in))
		var apiErr *APIError
		if !errors.As(err, &apiErr) || !errors.Is(err, ErrContextTooLong) || apiErr.StatusCode != 400 {
			t.Fatalf("parseChunk(%s) = %v; want an APIError for a too long context", in, err)
		}
	}
}

// compareParsers fails when the fast parser accepts data and disagrees
// with encoding/json.
func compareParsers(t *testing.T, data []byte) {
	t.Helper()
	var fast flatChunk
	if !parseChunkFast(data, &fast) {
		return
	}
	slow, err := parseChunkJSON(data)
	if err != nil {
		t.Fatalf("fast parser accepted %q, encoding/json says %v", data, err)
	}
	if fast != slow {
		t.Fatalf("parsers disagree on %q:\nfast %+v\njson %+v", data, fast, slow)
	}
}

// FuzzChunkParsers checks that the fast chunk parser never disagrees with
// encoding/json.
func FuzzChunkParsers(f *testing.F) {
	for _, tc := range chunkCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		compareParsers(t, []byte(in))
		_, _ = parseChunk([]byte(in))
	})
}

// BenchmarkParseChunk compares the fast parser with encoding/json on a
// typical vLLM chat chunk.
func BenchmarkParseChunk(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-0123456789abcdef","object":"chat.completion.chunk","created":1764489600,"model":"bench","choices":[{"index":0,"delta":{"content":" tok1"},"logprobs":null,"finish_reason":null}],"usage":null}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseChunk(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseChunkJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
