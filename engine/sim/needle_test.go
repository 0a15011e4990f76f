package sim

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/quality"
)

// needlePrompt is a chat request hiding key at depth (0–1) in about
// tokens of prose, asking for it as a client's needle task must.
func needlePrompt(t *testing.T, key string, tokens int, depth float64) string {
	t.Helper()
	prose, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		t.Fatal(err)
	}
	var hay strings.Builder
	for hay.Len() < 4*tokens {
		hay.Write(prose)
		hay.WriteByte(' ')
	}
	text := hay.String()[:4*tokens]
	at := strings.LastIndexByte(text[:min(len(text), int(depth*float64(len(text)))+1)], ' ') + 1
	text = text[:at] + NeedleKeyIntro + key + ". " + text[at:]
	body, _ := json.Marshal(map[string]any{
		"max_tokens": 64,
		"messages":   []map[string]string{{"role": "user", "content": text + "\n\n" + NeedleQuestion + "\n"}},
	})
	return string(body)
}

// chatAnswer sends a chat request and returns its content and finish reason.
func chatAnswer(t *testing.T, url, body string) (content, finish string) {
	t.Helper()
	code, b := post(t, url+"/v1/chat/completions", body)
	var a struct {
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
	}
	if code != 200 || json.Unmarshal(b, &a) != nil || len(a.Choices) != 1 {
		t.Fatalf("%d %s", code, b)
	}
	return a.Choices[0].Message.Content, a.Choices[0].FinishReason
}

// needleErrors asks url the needle question in trials prompts of tokens
// and returns which trials it answered wrong: a wrong answer is the key
// with one digit changed.
func needleErrors(t *testing.T, url string, tokens, trials int) []bool {
	t.Helper()
	wrong := make([]bool, trials)
	for i := range trials {
		key := fmt.Sprintf("%06d", (i*7919+104729)%1000000)
		got, finish := chatAnswer(t, url, needlePrompt(t, key, tokens, float64(i%5)/4))
		if len(got) != needleDigits || finish != "stop" {
			t.Fatalf("trial %d at %d tokens: answered %q (%s), want six digits that stop", i, tokens, got, finish)
		}
		diff := 0
		for j := range needleDigits {
			if got[j] != key[j] {
				diff++
			}
		}
		if diff > 1 {
			t.Fatalf("trial %d: answered %s for key %s, more than one digit wrong", i, got, key)
		}
		wrong[i] = diff == 1
	}
	return wrong
}

// TestNeedleAnswers checks the needle task against the simulator: the
// reference answers every trial at every context; an int4 KV cache errs,
// more at 7K than at 512 tokens; FP8's errors at 7K are a subset of
// int4's (one draw per trial, a chance per server) and the same when asked
// again.
func TestNeedleAnswers(t *testing.T) {
	const trials = 40
	_, ref := newTestServer(t, Options{})
	_, fp8 := newTestServer(t, Options{Numerics: Numerics{KVCacheDType: "fp8"}})
	_, int4 := newTestServer(t, Options{Numerics: Numerics{KVCacheDType: "int4_per_token_head"}})
	for _, tokens := range []int{512, 7000} {
		if n := engine.Right(needleErrors(t, ref, tokens, trials)); n != 0 {
			t.Errorf("the reference answered %d of %d trials wrong at %d tokens", n, trials, tokens)
		}
	}
	short, long := needleErrors(t, int4, 512, trials), needleErrors(t, int4, 7000, trials)
	if engine.Right(long) < 10 || engine.Right(short) > 6 || engine.Right(long) <= engine.Right(short) {
		t.Errorf("int4 KV cache: %d of %d wrong at 512 tokens, %d at 7K; calibrated for about 5 %% and 40 %%", engine.Right(short), trials, engine.Right(long))
	}
	fp8Long := needleErrors(t, fp8, 7000, trials)
	for i := range trials {
		if fp8Long[i] && !long[i] {
			t.Errorf("trial %d: FP8 answered wrong at 7K where int4 answered right", i)
		}
	}
	t.Logf("wrong of %d: int4 KV %d at 512 tokens, %d at 7K; FP8 KV %d at 7K", trials, engine.Right(short), engine.Right(long), engine.Right(fp8Long))
	if again := needleErrors(t, int4, 7000, trials); fmt.Sprint(again) != fmt.Sprint(long) {
		t.Error("int4 at 7K answered differently when asked again")
	}
}

// TestNeedleRecognition checks what counts as the needle question: the
// question must end the last message and a key follow the intro; any other
// chat is answered with the model's own text.
func TestNeedleRecognition(t *testing.T) {
	msg := func(content string) []chatMessage {
		raw, _ := json.Marshal(content)
		return []chatMessage{{Role: "user", Content: raw}}
	}
	for _, tc := range []struct {
		content, want string
	}{
		{"Notes. " + NeedleKeyIntro + "123456. More notes.\n" + NeedleQuestion, "123456"},
		{NeedleKeyIntro + "111111. " + NeedleKeyIntro + "222222.\n" + NeedleQuestion + "  \n\n", "222222"},
		{NeedleKeyIntro + "123456. " + NeedleQuestion + " And then tell me a long story about the sea, the harbour and its boats.", ""},
		{NeedleKeyIntro + "1234567. " + NeedleQuestion, ""},
		{NeedleKeyIntro + "12345. " + NeedleQuestion, ""},
		{"No key here. " + NeedleQuestion, ""},
	} {
		if got := findNeedle(msg(tc.content)); got != tc.want {
			t.Errorf("%q: key %q, want %q", tc.content, got, tc.want)
		}
	}
	_, url := newTestServer(t, Options{})
	body, _ := json.Marshal(map[string]any{"max_tokens": 20, "messages": []map[string]string{{"role": "user", "content": "What is the capital of France?"}}})
	if got, _ := chatAnswer(t, url, string(body)); len(got) < 20 {
		t.Errorf("an ordinary chat answered %q, want the model's text", got)
	}
}

// TestNeedlePhrasesAreQuality's: the quality check's needle task asks in
// engine/quality's words, so the simulator must recognise exactly those.
func TestNeedlePhrasesAreQuality(t *testing.T) {
	if NeedleKeyIntro != quality.NeedleKeyIntro || NeedleQuestion != quality.NeedleQuestion {
		t.Errorf("the simulator's needle phrases %q, %q differ from engine/quality's %q, %q", NeedleKeyIntro, NeedleQuestion, quality.NeedleKeyIntro, quality.NeedleQuestion)
	}
}
