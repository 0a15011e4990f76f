package measure

import (
	"slices"
	"strings"
	"testing"
)

// datasetCases are the dataset table, and the fuzz test's seeds.
var datasetCases = []struct {
	name, in string
	want     []string
	err      string
}{
	{"prompts", "{\"prompt\": \"a\"}\n\n{\"prompt\": \"b\"}\n", []string{"a", "b"}, ""},
	{"sharegpt", `{"id": "x", "conversations": [{"from": "system", "value": "s"}, {"from": "human", "value": "q1"}, {"from": "gpt", "value": "a1"}, {"from": "human", "value": "q2"}]}`, []string{"q1"}, ""},
	{"openai messages", `{"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]}`, []string{"hi"}, ""},
	{"content parts", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "image_url"}, {"type": "text", "text": "y"}]}]}`, []string{"xy"}, ""},
	{"CRLF", "{\"prompt\": \"a\"}\r\n{\"prompt\": \"b\"}\r\n", []string{"a", "b"}, ""},
	{"not JSON", "{\"prompt\": \"a\"}\nprompt: b\n", nil, "prompts.jsonl line 2: not JSON ("},
	{"a JSON array", `["a"]`, nil, "prompts.jsonl line 1: not a prompt ("},
	{"no prompt", `{"text": "a"}`, nil, `prompts.jsonl line 1: no "prompt", "conversations" or "messages"`},
	{"no human turn", `{"conversations": [{"from": "gpt", "value": "a"}]}`, nil, "prompts.jsonl line 1: an empty prompt"},
	{"empty file", "\n\n", nil, "prompts.jsonl: no prompt"},
	{"line too long", `{"prompt": "` + strings.Repeat("x", MaxDatasetLineBytes) + `"}`, nil, "prompts.jsonl line 1: longer than 1 MiB"},
	{"prompt not a string", `{"prompt": 3}`, nil, "prompts.jsonl line 1: not a prompt ("},
}

func TestParseDataset(t *testing.T) {
	t.Parallel()
	for _, tc := range datasetCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseDataset(strings.NewReader(tc.in), "prompts.jsonl")
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("err %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("got %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}

// TestDatasetTooManyPrompts: a file of more prompts than a test sends is
// refused at the first one past the bound.
func TestDatasetTooManyPrompts(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("{\"prompt\": \"a\"}\n", MaxDatasetPrompts+1)
	if _, err := parseDataset(strings.NewReader(in), "big.jsonl"); err == nil || !strings.Contains(err.Error(), "more than 100000 prompts") {
		t.Errorf("err %v, want too many prompts", err)
	}
}

// FuzzParseDataset: any input gives prompts or a one-line error naming the
// file, never a panic, an empty prompt or a prompt with no line.
func FuzzParseDataset(f *testing.F) {
	for _, tc := range datasetCases {
		if len(tc.in) < 4096 {
			f.Add(tc.in)
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := parseDataset(strings.NewReader(in), "d.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "d.jsonl") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line naming the file", err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatal("no prompt and no error")
		}
		for _, p := range got {
			if strings.TrimSpace(p) == "" {
				t.Fatalf("an empty prompt from %q", in)
			}
		}
	})
}
