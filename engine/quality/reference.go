package quality

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// FormatVersion is the version of the reference file this build writes and
// reads; ReadReference refuses any other.
const FormatVersion = 1

// MaxK is the most top-K logprobs a reference keeps per position: vLLM's
// default cap (--max-logprobs 20), which the issue fixes as the ceiling.
const MaxK = 20

// MaxTopKEntries is the most entries one position may list: vLLM adds the
// chosen token to the top K when it is not among them.
const MaxTopKEntries = MaxK + 1

// MaxTokenID is the largest token id a reference may hold (int32's range,
// which every tokenizer's vocabulary fits).
const MaxTokenID = math.MaxInt32

// FloorLogprob is how a logprob of −Inf is written, since JSON has no
// infinity: vLLM's own floor, and exp(−9999) is 0 in float64 anyway.
const FloorLogprob = -9999.0

// Reference is a reference file: its header and its probes.
type Reference struct {
	Header
	Probes []Probe `json:"probes"`
	// Needle is the reference server's needle runs, which later runs of
	// the same trials pair with; empty when none ran.
	Needle []NeedleContext `json:"needle,omitempty"`
	// Tasks is the reference server's run of a task file; nil when none
	// ran.
	Tasks *TaskRun `json:"tasks,omitempty"`
}

// Probe is one probe text at one context, recorded: the prompt's token
// ids, the greedy continuation's, and the top-K at each continuation
// position, alone (TopK) and again teacher-forced on the same tokens while
// other requests ran (Loaded, the noise floor; empty when not recorded).
type Probe struct {
	ContextTokens int    `json:"context_tokens"`
	Prompt        []int  `json:"prompt"`
	Continuation  []int  `json:"continuation"`
	TopK          []TopK `json:"top_k"`
	Loaded        []TopK `json:"top_k_loaded,omitempty"`
}

// Logprob is one token's natural-log probability at one position.
type Logprob struct {
	Token   int
	Logprob float64
}

// TopK is one position's most probable tokens with their logprobs. In a
// file it is an object keyed by token id, as vLLM writes it:
// {"263": -0.12, "9": -2.5}.
type TopK []Logprob

// NewTopK is m (token id → logprob) as a TopK, most probable first.
func NewTopK(m map[int]float64) TopK {
	t := make(TopK, 0, len(m))
	for id, lp := range m {
		t = append(t, Logprob{id, lp})
	}
	t.sort()
	return t
}

// sort orders t most probable first, ties by token id.
func (t TopK) sort() {
	slices.SortFunc(t, func(a, b Logprob) int {
		if a.Logprob != b.Logprob {
			if a.Logprob > b.Logprob {
				return -1
			}
			return 1
		}
		return a.Token - b.Token
	})
}

// MarshalJSON writes t as an object keyed by token id, most probable
// first; −Inf as FloorLogprob. NaN and +Inf are refused.
func (t TopK) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range t {
		lp := e.Logprob
		if math.IsInf(lp, -1) {
			lp = FloorLogprob
		}
		if math.IsNaN(lp) || math.IsInf(lp, 1) {
			return nil, fmt.Errorf("token %d: logprob %v: %w", e.Token, lp, ErrLogprob)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(e.Token) + `":`)
		b.WriteString(strconv.FormatFloat(lp, 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object keyed by token id, at most MaxTopKEntries
// entries, each token once and each value a number: what a hostile file
// holds costs no more memory than a real one.
func (t *TopK) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("a position is not an object of token ids and logprobs")
	}
	var out TopK
	for dec.More() {
		if len(out) == MaxTopKEntries {
			return fmt.Errorf("a position lists more than %d tokens", MaxTopKEntries)
		}
		e, err := readEntry(dec)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(out, func(o Logprob) bool { return o.Token == e.Token }) {
			return fmt.Errorf("a position lists token %d twice", e.Token)
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return errors.New("a position lists no token")
	}
	out.sort()
	*t = out
	return nil
}

// readEntry reads one "id": logprob pair of a TopK object.
func readEntry(dec *json.Decoder) (Logprob, error) {
	key, err := dec.Token()
	if err != nil {
		return Logprob{}, err
	}
	s, _ := key.(string)
	id, err := strconv.Atoi(s)
	if err != nil || id < 0 || id > MaxTokenID {
		return Logprob{}, fmt.Errorf("%q is not a token id", engine.BoundText(s, 32))
	}
	val, err := dec.Token()
	if err != nil {
		return Logprob{}, err
	}
	lp, ok := val.(float64)
	if !ok {
		return Logprob{}, fmt.Errorf("token %d has no numeric logprob", id)
	}
	return Logprob{id, lp}, nil
}

// FingerprintText is the fixed text whose token ids fingerprint a
// tokenizer: words, digits, punctuation, accents, several scripts, an
// emoji, code and white space, where tokenizers differ.
const FingerprintText = "Speed Matrix tokenizer check: The quick brown fox jumps over the lazy dog. " +
	"0123456789 3.14159 -42 1,000,000; naïve café, Zürich, 東京, Ελληνικά, русский, 🙂!\n" +
	"\tdef f(x): return x**2  # code_x = [1, 2]\n"

// Fingerprint is a tokenizer's fingerprint from the token ids it gives
// FingerprintText (through the server's /tokenize, as it tokenizes a
// prompt): "sha256:" and the hex SHA-256 of the ids written in decimal,
// joined by commas ("1,2,3"). Two tokenizers that split the text alike
// share it; a reference is compared only with a server that does.
func Fingerprint(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	sum := sha256.Sum256([]byte(strings.Join(s, ",")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// validFingerprint reports whether s is a fingerprint Fingerprint writes.
func validFingerprint(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}
