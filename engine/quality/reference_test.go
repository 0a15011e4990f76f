package quality

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// validReference is a small reference as a recording writes it.
func validReference() Reference {
	a := NewTopK(map[int]float64{5: -0.1, 7: -2.5, 9: math.Inf(-1)})
	b := NewTopK(map[int]float64{5: -3, 7: -0.1, 11: -4})
	return Reference{
		Header: Header{FormatVersion: FormatVersion, Model: "tiny", Tokenizer: Fingerprint([]int{1, 2, 3}),
			Server: engine.ServerInfo{Name: "vllm", Version: "0.32.0"}, Settings: map[string]string{"dtype": "bfloat16"},
			K: 3, ContinuationTokens: 2, Contexts: []int{8, 16}, Seed: 7, RecordedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		Probes: []Probe{
			{ContextTokens: 8, Prompt: []int{1, 2, 3}, Continuation: []int{5, 7}, TopK: []TopK{a, b}, Loaded: []TopK{a, b}},
			{ContextTokens: 16, Prompt: []int{4, 5, 6, 7}, Continuation: []int{5}, TopK: []TopK{a}},
		},
	}
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReferenceRoundTrip: what a recording writes reads back the same,
// a logprob of −Inf as FloorLogprob, token ids as vLLM keys them.
func TestReferenceRoundTrip(t *testing.T) {
	ref := validReference()
	data := encode(t, ref)
	if !bytes.Contains(data, []byte(`"top_k":[{"5":-0.1,"7":-2.5,"9":-9999}`)) {
		t.Errorf("top-K not keyed by token id, most probable first, −Inf as -9999:\n%s", data)
	}
	got, err := ReadReference(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encode(t, got), data) {
		t.Errorf("read back differs:\n%s\n%s", encode(t, got), data)
	}
	if got.Probes[0].TopK[0][2] != (Logprob{9, FloorLogprob}) {
		t.Errorf("−Inf read back as %+v", got.Probes[0].TopK[0][2])
	}
}

// TestReadReferenceRefuses: each thing no recording writes is one
// *ReferenceError that says what it is; another version is a *VersionError.
func TestReadReferenceRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(r *Reference)
		raw  string
		want string
	}{
		{name: "not JSON", raw: `{"format_version": 1,`, want: "not JSON"},
		{name: "no version", raw: `{"model": "x"}`, want: "no format_version"},
		{name: "no model", edit: func(r *Reference) { r.Model = "" }, want: "no model"},
		{name: "bad fingerprint", edit: func(r *Reference) { r.Tokenizer = "md5:00" }, want: "fingerprint"},
		{name: "K 21", edit: func(r *Reference) { r.K = 21 }, want: "K is 21"},
		{name: "contexts unsorted", edit: func(r *Reference) { r.Contexts = []int{16, 8} }, want: "ascending"},
		{name: "context 0", edit: func(r *Reference) { r.Contexts[0] = 0; r.Probes[0].ContextTokens = 0 }, want: "outside 1"},
		{name: "no probes", edit: func(r *Reference) { r.Probes = nil }, want: "0 probes"},
		{name: "probe at an unlisted context", edit: func(r *Reference) { r.Probes[0].ContextTokens = 9 }, want: "probe 1: its context 9"},
		{name: "prompt longer than its context", edit: func(r *Reference) { r.Probes[0].Prompt = make([]int, 9) }, want: "prompt has 9 tokens"},
		{name: "continuation past the header", edit: func(r *Reference) {
			r.Probes[0].Continuation = []int{1, 2, 3}
		}, want: "continuation has 3 tokens"},
		{name: "top-K short of the continuation", edit: func(r *Reference) { r.Probes[0].TopK = r.Probes[0].TopK[:1] }, want: "top-K at 1 positions"},
		{name: "load pass short", edit: func(r *Reference) { r.Probes[0].Loaded = r.Probes[0].Loaded[:1] }, want: "under load at 1"},
		{name: "negative token id", edit: func(r *Reference) { r.Probes[1].Prompt[0] = -1 }, want: "probe 2: a token id"},
		{name: "fewer than K", edit: func(r *Reference) { r.Probes[1].TopK[0] = r.Probes[1].TopK[0][:2] }, want: "position 1: it lists 2 tokens, fewer than K = 3"},
		{name: "positive logprob", edit: func(r *Reference) { r.Probes[0].TopK[1] = TopK{{1, 0.5}, {2, -1}, {3, -2}} }, want: "position 2: token 1 has logprob 0.5"},
		{name: "sum past 1", edit: func(r *Reference) {
			r.Probes[0].TopK[1] = TopK{{1, math.Log(.6)}, {2, math.Log(.6)}, {3, -9}}
		}, want: "sum to 1.2"},
		{name: "needle without trials", edit: func(r *Reference) { r.Needle = []NeedleContext{{ContextTokens: 8}} }, want: "needle run at 8 tokens has 0 trials"},
		{name: "needle with too many trials", edit: func(r *Reference) {
			r.Needle = []NeedleContext{{ContextTokens: 8, Correct: make([]bool, MaxNeedleTrials+1)}}
		}, want: "1001 trials"},
		{name: "tasks past their items", edit: func(r *Reference) {
			r.Tasks = &TaskRun{Digest: Fingerprint(nil), Items: 1, Correct: []bool{true, false}}
		}, want: "task run has 2 of 1 items"},
		{name: "tasks already paired", edit: func(r *Reference) {
			r.Tasks = &TaskRun{Digest: Fingerprint(nil), Items: 1, Correct: []bool{true}, Flipped: []Flip{{Line: 1}}}
		}, want: "paired with another"},
		{name: "22 entries", raw: strings.Replace(string(encode(t, validReference())), `{"5":-0.1,`, `{`+manyEntries(22)+`,"5":-0.1,`, 1), want: "more than 21 tokens"},
		{name: "a token twice", raw: strings.Replace(string(encode(t, validReference())), `{"5":-0.1,`, `{"5":-0.2,"5":-0.1,`, 1), want: "token 5 twice"},
		{name: "a key not a token id", raw: strings.Replace(string(encode(t, validReference())), `{"5":-0.1,`, `{"he":-0.2,"5":-0.1,`, 1), want: `"he" is not a token id`},
		{name: "a position null", raw: strings.Replace(string(encode(t, validReference())), `"top_k":[`, `"top_k":[null,`, 1), want: "not an object"},
		{name: "a logprob a string", raw: strings.Replace(string(encode(t, validReference())), `{"5":-0.1,`, `{"5":"-0.1",`, 1), want: "no numeric logprob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.raw)
			if tc.edit != nil {
				ref := validReference()
				tc.edit(&ref)
				data = encode(t, ref)
			}
			_, err := ReadReference(bytes.NewReader(data))
			var re *ReferenceError
			if !errors.As(err, &re) || !strings.Contains(re.Problem, tc.want) {
				t.Errorf("ReadReference = %v, want a *ReferenceError about %q", err, tc.want)
			}
		})
	}
}

// manyEntries is n entries of a TopK object, tokens 100 onwards.
func manyEntries(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = `"` + strconv.Itoa(100+i) + `":-5`
	}
	return strings.Join(s, ",")
}

// TestReadReferenceVersionAndSize: another version is a *VersionError
// naming both; a file past the limit is refused unread past it.
func TestReadReferenceVersionAndSize(t *testing.T) {
	ref := validReference()
	ref.FormatVersion = 2
	_, err := ReadReference(bytes.NewReader(encode(t, ref)))
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Version != 2 || ve.Want != FormatVersion {
		t.Errorf("version 2: %v, want a *VersionError 2 → %d", err, FormatVersion)
	}
	data := encode(t, validReference())
	_, err = readReference(bytes.NewReader(data), int64(len(data)-1))
	var re *ReferenceError
	if !errors.As(err, &re) || !strings.Contains(re.Problem, "larger than") {
		t.Errorf("one byte over the limit: %v", err)
	}
	if _, err := readReference(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

// TestReadReferenceBoundsStrings: a hostile model name or setting comes
// back bounded, hidden characters gone.
func TestReadReferenceBoundsStrings(t *testing.T) {
	ref := validReference()
	ref.Model = strings.Repeat("m", 1<<20) + "\u202e"
	ref.Settings = map[string]string{"kv_cache_dtype\x1b[31m": strings.Repeat("v", 10000)}
	got, err := ReadReference(bytes.NewReader(encode(t, ref)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(got.Model)); n > engine.MaxNameRunes {
		t.Errorf("model of %d runes", n)
	}
	for k, v := range got.Settings {
		if strings.ContainsRune(k, 0x1b) || len([]rune(v)) > engine.MaxTextRunes {
			t.Errorf("setting %q = %d runes", k, len([]rune(v)))
		}
	}
}

// TestCheckTokenizer: the same tokenizer under another model (a
// quantization) compares; another tokenizer is refused, naming both.
func TestCheckTokenizer(t *testing.T) {
	h := validReference().Header
	if err := CheckTokenizer(h, "tiny-fp8", Fingerprint([]int{1, 2, 3})); err != nil {
		t.Errorf("same tokenizer, quantized model: %v", err)
	}
	err := CheckTokenizer(h, "other", Fingerprint([]int{1, 2, 4}))
	var te *TokenizerError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "tiny") || !strings.Contains(err.Error(), "other") {
		t.Errorf("another tokenizer: %v, want a *TokenizerError naming tiny and other", err)
	}
}

// TestFingerprint: fixed for fixed ids (the format is stable), different
// for different ids or order.
func TestFingerprint(t *testing.T) {
	// sha256 of "1,2,3"
	if got := Fingerprint([]int{1, 2, 3}); got != "sha256:8a6ae15122001229edb8866f56e342af12ae8187203c3e3b33931743e7c0c48d" || !validFingerprint(got) {
		t.Errorf("Fingerprint = %q", got)
	}
	if Fingerprint([]int{1, 2, 3}) == Fingerprint([]int{3, 2, 1}) || Fingerprint([]int{12, 3}) == Fingerprint([]int{1, 23}) {
		t.Error("different ids, same fingerprint")
	}
}

// FuzzReadReference: whatever a file holds, ReadReference returns a
// reference that passes its own checks, or an error; it never panics.
func FuzzReadReference(f *testing.F) {
	f.Add(encodeF(validReference()))
	f.Add([]byte(`{"format_version":1,"probes":[{"top_k":[{"1":-1}]}]}`))
	f.Add([]byte(`{"format_version":1,"k":3,"contexts":[8],"probes":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, err := readReference(bytes.NewReader(data), 1<<20)
		if err == nil && ref.problem() != "" {
			t.Errorf("accepted a reference with a problem: %s", ref.problem())
		}
	})
}

func encodeF(v any) []byte { b, _ := json.Marshal(v); return b }
