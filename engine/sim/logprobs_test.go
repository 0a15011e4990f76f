package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// recordedDir holds vLLM 0.32.0's answers to logprob requests, and the
// requests (requests.json).
const recordedDir = "testdata/vllm-0.32.0-cpu"

// recordedVocab is the recording model's vocabulary, which vLLM names in
// its answer to a request for every token's logprob.
const recordedVocab = "4091"

// skeleton describes v's shape: objects by their keys (in order), arrays
// by their first element, scalars by their JSON type. Objects keyed by
// token (completions' top_logprobs maps, a prompt position) show one
// entry, as the tokens differ; arrays show no length, as the tokenizers
// differ.
func skeleton(v any, key string) string {
	switch x := v.(type) {
	case map[string]any:
		if _, item := x["logprob"]; !item && (key == "top_logprobs[]" || key == "prompt_logprobs[]") {
			for _, e := range x {
				return "{TOKEN:" + skeleton(e, "") + "}"
			}
			return "{}"
		}
		var keys []string
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("{")
		for _, k := range keys {
			fmt.Fprintf(&b, "%s:%s,", k, skeleton(x[k], k))
		}
		return b.String() + "}"
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		if key == "prompt_logprobs" {
			return "[null," + skeleton(x[len(x)-1], key+"[]") + "...]"
		}
		return "[" + skeleton(x[0], key+"[]") + "...]"
	case nil:
		return "null"
	case string:
		return "str"
	case float64:
		return "num"
	case bool:
		return "bool"
	}
	return "?"
}

// logprobFields are the parts of an answer that logprobs and token ids
// shape: the simulator's must look like vLLM's (other fields of vLLM's,
// service_tier and the like, the simulator does not send).
func logprobFields(t *testing.T, body []byte) map[string]string {
	t.Helper()
	var a map[string]any
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	out := map[string]string{}
	for _, k := range []string{"prompt_logprobs", "prompt_token_ids"} {
		if v, ok := a[k]; ok {
			out[k] = skeleton(v, k)
		}
	}
	if choices, _ := a["choices"].([]any); len(choices) > 0 {
		c := choices[0].(map[string]any)
		for _, k := range []string{"logprobs", "token_ids", "prompt_logprobs", "prompt_token_ids"} {
			if v, ok := c[k]; ok {
				out["choices[0]."+k] = skeleton(v, k)
			}
		}
	}
	return out
}

// dataEvents are a stream's data events, [DONE] left out.
func dataEvents(t *testing.T, body []byte) [][]byte {
	var out [][]byte
	for _, e := range events(t, body) {
		if e != "[DONE]" {
			out = append(out, []byte(e))
		}
	}
	return out
}

// TestLogprobShapesMatchVLLM replays the requests whose answers vLLM
// 0.32.0 gave (testdata/vllm-0.32.0-cpu) and checks that the simulator's
// answers have the same shape where logprobs and token ids are: the same
// fields, types and nesting, chunk by chunk for streams; its errors the
// same status, message, type and parameter.
func TestLogprobShapesMatchVLLM(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(recordedDir, "requests.json"))
	if err != nil {
		t.Fatal(err)
	}
	var reqs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &reqs); err != nil {
		t.Fatal(err)
	}
	s, url := newTestServer(t, Options{})
	vocab := strconv.Itoa(s.tok.vocabSize())
	checked := 0
	for name, req := range reqs {
		var r [2]json.RawMessage
		if json.Unmarshal(req, &r) != nil {
			continue // the "about" note
		}
		var path string
		var body map[string]any
		if json.Unmarshal(r[0], &path) != nil || json.Unmarshal(r[1], &body) != nil {
			t.Fatalf("%s: bad request entry", name)
		}
		delete(body, "model")
		sent, _ := json.Marshal(body)
		code, got := post(t, url+path, string(sent))
		want, err := os.ReadFile(filepath.Join(recordedDir, name))
		if err != nil {
			t.Fatal(err)
		}
		checked++
		compareRecorded(t, name, code, got, want, vocab)
	}
	if checked < 20 {
		t.Errorf("checked %d recorded answers, want all of them", checked)
	}
}

// compareRecorded compares the simulator's answer (code, got) to a request
// with vLLM's recorded one (want): an error's status and body exactly, but
// for the vocabulary's size; an answer's logprob fields' shapes, event by
// event for a stream.
func compareRecorded(t *testing.T, name string, code int, got, want []byte, vocab string) {
	t.Helper()
	if strings.HasPrefix(name, "error-") {
		status, wantBody, _ := bytes.Cut(want, []byte("\n"))
		wantBody = bytes.ReplaceAll(bytes.TrimSpace(wantBody), []byte(recordedVocab), []byte(vocab))
		if strconv.Itoa(code) != string(status) || !bytes.Equal(bytes.TrimSpace(got), wantBody) {
			t.Errorf("%s: %d %s\nvLLM: %s %s", name, code, got, status, wantBody)
		}
		return
	}
	if code != 200 {
		t.Errorf("%s: %d %s", name, code, got)
		return
	}
	gotParts, wantParts := [][]byte{got}, [][]byte{want}
	if strings.HasPrefix(name, "stream-") {
		gotParts, wantParts = dataEvents(t, got), dataEvents(t, want)
	}
	if len(gotParts) != len(wantParts) {
		t.Errorf("%s: %d events, vLLM sent %d", name, len(gotParts), len(wantParts))
		return
	}
	for i := range gotParts {
		g, w := logprobFields(t, gotParts[i]), logprobFields(t, wantParts[i])
		for k, wv := range w {
			if _, sent := g[k]; !sent && wv == "null" {
				continue // a field the simulator leaves out when it would be null
			}
			if g[k] != wv {
				t.Errorf("%s, part %d, %s:\n  simulator %s\n  vLLM      %s", name, i, k, g[k], wv)
			}
		}
	}
}

// completionAnswer is a completions answer, as the tests read it.
type completionAnswer struct {
	Choices []struct {
		Text     string `json:"text"`
		Logprobs *struct {
			Tokens        []string             `json:"tokens"`
			TokenLogprobs []float64            `json:"token_logprobs"`
			TopLogprobs   []map[string]float64 `json:"top_logprobs"`
			TextOffset    []int                `json:"text_offset"`
		} `json:"logprobs"`
		TokenIDs       []int32                                `json:"token_ids"`
		PromptLogprobs []map[string]struct{ Logprob float64 } `json:"prompt_logprobs"`
		PromptTokenIDs []int32                                `json:"prompt_token_ids"`
		FinishReason   string                                 `json:"finish_reason"`
	} `json:"choices"`
}

func complete(t *testing.T, url, body string) completionAnswer {
	t.Helper()
	code, b := post(t, url+"/v1/completions", body)
	if code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	var a completionAnswer
	if err := json.Unmarshal(b, &a); err != nil || len(a.Choices) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	return a
}

// TestPromptLogprobsAgreeWithGeneration checks that teacher forcing sees
// what generation saw: a greedy continuation sent back as prompt gets, at
// each of its positions, the logprobs it was generated with, its token
// ranked first; and asking for logprobs does not change the text.
func TestPromptLogprobsAgreeWithGeneration(t *testing.T) {
	for _, n := range []Numerics{{}, {KVCacheDType: "fp8", Quantization: "awq"}} {
		_, url := newTestServer(t, Options{Numerics: n})
		const prompt = `"The quick brown fox jumps over the lazy dog."`
		gen := complete(t, url, `{"prompt":`+prompt+`,"max_tokens":40,"logprobs":5,"return_token_ids":true,"return_tokens_as_token_ids":true}`).Choices[0]
		plain := complete(t, url, `{"prompt":`+prompt+`,"max_tokens":40}`).Choices[0]
		if plain.Text != gen.Text {
			t.Errorf("%+v: the text with logprobs %q differs from without %q", n, gen.Text, plain.Text)
		}
		ids := append(append([]int32{}, gen.PromptTokenIDs...), gen.TokenIDs...)
		body, _ := json.Marshal(map[string]any{"prompt": ids, "max_tokens": 1, "prompt_logprobs": 5})
		forced := complete(t, url, string(body)).Choices[0]
		if len(forced.PromptLogprobs) != len(ids) || forced.PromptLogprobs[0] != nil {
			t.Fatalf("%+v: %d prompt logprobs for %d tokens, first %v", n, len(forced.PromptLogprobs), len(ids), forced.PromptLogprobs[0])
		}
		for i, id := range gen.TokenIDs {
			pos := forced.PromptLogprobs[len(gen.PromptTokenIDs)+i]
			top := gen.Logprobs.TopLogprobs[i]
			if len(pos) != len(top) || len(top) != 5 {
				t.Fatalf("%+v, token %d: %d prompt logprobs, %d top logprobs, want 5", n, i, len(pos), len(top))
			}
			for key, lp := range top {
				id, _ := strings.CutPrefix(key, "token_id:")
				if pos[id].Logprob != lp {
					t.Errorf("%+v, token %d: %s has logprob %g teacher-forced, %g generated", n, i, id, pos[id].Logprob, lp)
				}
			}
			if gen.Logprobs.Tokens[i] != "token_id:"+strconv.Itoa(int(id)) || gen.Logprobs.TokenLogprobs[i] != top[gen.Logprobs.Tokens[i]] {
				t.Errorf("%+v, token %d: generated %s with logprob %g, not the top one", n, i, gen.Logprobs.Tokens[i], gen.Logprobs.TokenLogprobs[i])
			}
		}
	}
}

// TestMaxLogprobsCap checks the cap: vLLM's 400 above it, with the
// simulator's own cap named; the option's range checked by New.
func TestMaxLogprobsCap(t *testing.T) {
	_, url := newTestServer(t, Options{MaxLogprobs: 5})
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/completions", `{"prompt":"Hi","max_tokens":1,"logprobs":6}`, "Requested sample logprobs of 6, which is greater than max allowed: 5 (parameter=logprobs, value=6)"},
		{"/v1/completions", `{"prompt":"Hi","max_tokens":1,"prompt_logprobs":6}`, "Requested prompt logprobs of 6, which is greater than max allowed: 5 (parameter=prompt_logprobs, value=6)"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":1,"logprobs":true,"top_logprobs":6}`, "Requested sample logprobs of 6, which is greater than max allowed: 5 (parameter=logprobs, value=6)"},
	} {
		code, b := post(t, url+tc.path, tc.body)
		var e struct{ Error apiError }
		if code != 400 || json.Unmarshal(b, &e) != nil || e.Error.Message != tc.want {
			t.Errorf("%s: %d %s, want 400 %q", tc.body, code, b, tc.want)
		}
	}
	if code, b := post(t, url+"/v1/completions", `{"prompt":"Hi","max_tokens":1,"logprobs":5}`); code != 200 {
		t.Errorf("logprobs at the cap: %d %s", code, b)
	}
	for _, n := range []int{-1, MaxLogprobsLimit + 1} {
		if _, err := New(Options{Profile: tinyProfile(), MaxLogprobs: n}); err == nil {
			t.Errorf("New accepted MaxLogprobs %d", n)
		}
	}
}

// TestBatchJitter checks the noise floor a quality check measures: a
// request's logprobs alone are the same every time, differ a little when
// another client's requests share its steps, and not at all under load
// on a batch-invariant server.
func TestBatchJitter(t *testing.T) {
	const body = `{"prompt":"A probe of the noise floor.","max_tokens":30,"logprobs":5,"return_tokens_as_token_ids":true}`
	logprobs := func(opts Options) []float64 {
		_, url := newTestServer(t, opts)
		return complete(t, url, body).Choices[0].Logprobs.TokenLogprobs
	}
	alone := logprobs(Options{})
	again := logprobs(Options{})
	loaded := logprobs(Options{Faults: Faults{OtherLoad: 4}})
	invariant := logprobs(Options{Faults: Faults{OtherLoad: 4}, Numerics: Numerics{BatchInvariant: true}})
	differ, most := 0, 0.0
	for i := range alone {
		if again[i] != alone[i] || invariant[i] != alone[i] {
			t.Fatalf("token %d: alone %g, again %g, batch-invariant under load %g: want the same", i, alone[i], again[i], invariant[i])
		}
		if d := loaded[i] - alone[i]; d != 0 {
			differ++
			most = max(most, d, -d)
		}
	}
	if differ < len(alone)/2 || most > 0.05 {
		t.Errorf("under load %d of %d logprobs differ, by up to %g: want most, by a little", differ, len(alone), most)
	}
}
