package measure

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"speedmatrix/engine"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine/openai"
)

// TestPromptSizes checks usage.prompt_tokens against the requested context:
// exact with /tokenize, within 1 % without; a prefill repeat's prompt, with
// a start of its own, too.
func TestPromptSizes(t *testing.T) {
	cases := []struct {
		name       string
		api        engine.API
		noTokenize bool
		tolerance  float64
	}{
		{"completions ids with /tokenize", engine.APICompletions, false, 0},
		{"chat with /tokenize", engine.APIChat, false, 0},
		{"completions text, calibrated", engine.APICompletions, true, 0.01},
		{"chat, calibrated", engine.APIChat, true, 0.01},
	}
	contexts := []int{1000, 3 * engine.K, 6000}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeServer(t, fakeOpts{NoTokenize: c.noTokenize, Interval: 5 * time.Millisecond})
			plan := engine.Plan{PrefillContexts: contexts, DecodeContexts: []int{6000}, Concurrency: []int{2},
				Duration: 200 * time.Millisecond, MaxOutputTokens: 100, API: c.api, PrefillRepeats: 2}
			rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: f.URL}}, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Status != engine.StatusValid {
					t.Fatalf("%s %d: %s %s", r.Phase, r.ContextTokens, r.Status, r.Error)
				}
			}
			seen := map[int]int{}
			log := f.requestsLog()
			if c.noTokenize {
				log = log[2:] // the two calibration requests
			}
			for _, q := range log {
				if q.PromptTokens < 200 { // measures the chat template
					continue
				}
				want := nearest(contexts, q.PromptTokens)
				seen[want]++
				if off := math.Abs(float64(q.PromptTokens-want)) / float64(want); off > c.tolerance {
					t.Errorf("a request for %d tokens had %d prompt tokens (%.2f %% off)", want, q.PromptTokens, 100*off)
				}
			}
			if len(seen) != len(contexts) || seen[6000] < 4 || seen[1000] < 2 {
				t.Errorf("requests per context = %v, want every context twice (prefill repeats), 6000 at least 4 times", seen)
			}
		})
	}
}

func nearest(values []int, v int) int {
	best := values[0]
	for _, x := range values {
		if abs(x-v) < abs(best-v) {
			best = x
		}
	}
	return best
}

func TestFillerIsVariedAndStable(t *testing.T) {
	t.Parallel()
	a, b := fillerText(100000), fillerText(50000)
	if a[:50000] != b[:50000] {
		t.Error("fillerText is not deterministic: two calls differ in their common prefix")
	}
	var d loopDetector
	if d.Write(a) {
		t.Error("the loop detector fires on the filler text: it repeats itself")
	}
}

func TestTailsDiffer(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for i := range 2000 {
		s := tailText(tailAlphabet, i)
		if seen[s] {
			t.Fatalf("tailText(%d) = %q repeats an earlier tail", i, s)
		}
		seen[s] = true
	}
	cp := &contextPrompt{ids: make([]int, 100), bodyID: []int{5, 6, 7, 8, 9, 10, 11}}
	cp.share()
	sa, _, a := cp.request(1)
	sb, _, b := cp.request(2)
	if len(a) != tailTokens || len(b) != tailTokens || equalInts(a, b) || sa != sb {
		t.Errorf("request tails: lengths %d, %d, equal %v, one shared start %v; want %d each, differing, one start", len(a), len(b), equalInts(a, b), sa == sb, tailTokens)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTailLettersTokenizeAlike: with a tokenizer that splits " q", " x"
// and " z" in two (the real vLLM rig's byte-level BPE did so for some
// letters), tails keep to the letters whose words are one token, so every
// chat prompt of a context is as long as the one it was sized with.
func TestTailLettersTokenizeAlike(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Prompt string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			t.Error(err)
		}
		n := len(strings.Fields(in.Prompt))
		for _, c := range "qxz" {
			n += strings.Count(in.Prompt, " "+string(c))
		}
		fmt.Fprintf(w, `{"tokens":[%s],"count":%d}`, strings.TrimSuffix(strings.Repeat("1,", n), ","), n)
	}))
	defer srv.Close()
	p := newPrompter(openai.New(srv.URL, ""), "m", engine.APIChat, "r")
	if err := p.pickTailLetters(t.Context()); err != nil {
		t.Fatal(err)
	}
	if p.tailLetters != "abcdefghijklmnoprstuvwy" {
		t.Errorf("tail letters %q; want every letter but q, x and z", p.tailLetters)
	}
	want := len(strings.Fields(tailText(p.tailLetters, 0)))
	for i := range 5000 {
		if s := tailText(p.tailLetters, i); strings.ContainsAny(s[len("\n\nRequest"):], "qxz") || len(strings.Fields(s)) != want {
			t.Fatalf("tail %d = %q", i, s)
		}
	}
}

// TestForeignTokenize: a first /tokenize answer that refuses vLLM's body
// (GuideLLM's mock server wants "text") makes the run calibrate, as
// without /tokenize; a refusal of the model, of the length or of the key
// still stops it with its own message.
func TestForeignTokenize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&openai.APIError{StatusCode: 400, Message: "1 validation error for TokenizeRequest text Field required"}, true},
		{&openai.APIError{StatusCode: 422, Message: "field required"}, true},
		{&openai.APIError{StatusCode: 404, Message: "The model `x` does not exist.", Type: "NotFoundError"}, false},
		{&openai.APIError{StatusCode: 401, Message: "unauthorized"}, false},
		{&openai.APIError{StatusCode: 500, Message: "boom"}, false},
		{errors.New("connection refused"), false},
	} {
		if got := foreignTokenize(c.err); got != c.want {
			t.Errorf("foreignTokenize(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
