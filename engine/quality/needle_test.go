package quality

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// austen is natural text (Pride and Prejudice, 1813, public domain).
const austen = "It is a truth universally acknowledged, that a single man in possession of a good fortune, " +
	"must be in want of a wife. However little known the feelings or views of such a man may be on his " +
	"first entering a neighbourhood, this truth is so well fixed in the minds of the surrounding families, " +
	"that he is considered the rightful property of some one or other of their daughters.\n\n" +
	"\"My dear Mr. Bennet,\" said his lady to him one day, \"have you heard that Netherfield Park is let at last?\" " +
	"Mr. Bennet replied that he had not. \"But it is,\" returned she; \"for Mrs. Long has just been here, " +
	"and she told me all about it.\" Mr. Bennet made no answer. \"Do you not want to know who has taken it?\" " +
	"cried his wife impatiently. \"You want to tell me, and I have no objection to hearing it.\"\n"

// words counts tokens as a tokenizer of whole words and punctuation would,
// and how often it was asked.
type words struct{ calls int }

func (w *words) count(s string) (int, error) {
	w.calls++
	n := 0
	for _, f := range strings.Fields(s) {
		n += 1 + strings.Count(f, ",") + strings.Count(f, ".")
	}
	return n, nil
}

// TestNewNeedleTrial: the prompt holds the key once at about its depth,
// ends with the question, fills the context within the slack, and the
// same seed builds the same trial.
func TestNewNeedleTrial(t *testing.T) {
	for _, context := range []int{64, 512, 8192, 131072} {
		for seed := range uint64(5) {
			w := &words{}
			tr, err := NewNeedleTrial(austen, context, w.count, seed)
			if err != nil {
				t.Fatal(err)
			}
			slack := max(8, context/100)
			switch {
			case len(tr.Key) != 6 || tr.Key[0] == '0':
				t.Errorf("key %q is not 6 digits", tr.Key)
			case strings.Count(tr.Prompt, NeedleSentence(tr.Key)) != 1 || !strings.HasSuffix(tr.Prompt, "\n\n"+NeedleQuestion):
				t.Errorf("prompt does not hold the needle once and end with the question: …%s", tail(tr.Prompt))
			case tr.Tokens > context || tr.Tokens < context-slack:
				t.Errorf("context %d, seed %d: %d tokens, want %d–%d", context, seed, tr.Tokens, context-slack, context)
			case w.calls > maxNeedleCounts:
				t.Errorf("counted %d times", w.calls)
			case !utf8.ValidString(tr.Prompt):
				t.Error("prompt is not valid UTF-8")
			}
			if n, _ := (&words{}).count(tr.Prompt); n != tr.Tokens {
				t.Errorf("Tokens %d, the prompt counts %d", tr.Tokens, n)
			}
			again, _ := NewNeedleTrial(austen, context, (&words{}).count, seed)
			if again != tr {
				t.Errorf("seed %d built two trials", seed)
			}
		}
	}
}

// TestNeedleDepth: over many seeds the key sits at depths spread over the
// whole haystack, each where its sentence starts.
func TestNeedleDepth(t *testing.T) {
	keys, lo, hi := map[string]bool{}, 1.0, 0.0
	for seed := range uint64(200) {
		tr, err := NewNeedleTrial(austen, 4096, (&words{}).count, seed)
		if err != nil {
			t.Fatal(err)
		}
		keys[tr.Key] = true
		lo, hi = math.Min(lo, tr.Depth), math.Max(hi, tr.Depth)
		i := strings.Index(tr.Prompt, NeedleSentence(tr.Key))
		if i > 0 && !slices.ContainsFunc(sentenceEnds, func(end string) bool { return strings.HasSuffix(tr.Prompt[:i], end) }) {
			t.Errorf("seed %d: needle not at a sentence's start: …%q", seed, tr.Prompt[max(0, i-30):i])
		}
	}
	if len(keys) < 195 || lo > 0.05 || hi < 0.95 {
		t.Errorf("200 seeds: %d keys, depths %.2f–%.2f; want different keys over the whole haystack", len(keys), lo, hi)
	}
}

// TestNewNeedleTrialRefuses: no text; a context the question alone
// overflows; a counter that fails.
func TestNewNeedleTrialRefuses(t *testing.T) {
	if _, err := NewNeedleTrial(" \n", 512, (&words{}).count, 1); !errors.Is(err, ErrNoText) {
		t.Errorf("blank text: %v", err)
	}
	if _, err := NewNeedleTrial(austen, 10, (&words{}).count, 1); !errors.Is(err, ErrTooShort) {
		t.Errorf("10 tokens: %v", err)
	}
	broken := errors.New("tokenize: 500")
	if _, err := NewNeedleTrial(austen, 512, func(string) (int, error) { return 0, broken }, 1); !errors.Is(err, broken) {
		t.Errorf("failing counter: %v", err)
	}
}

// TestNeedleTextWithoutSpaces: text with no white space is cut at runes.
func TestNeedleTextWithoutSpaces(t *testing.T) {
	text := strings.Repeat("吾輩は猫である。名前はまだ無い。", 50)
	tr, err := NewNeedleTrial(text, 300, func(s string) (int, error) { return utf8.RuneCountInString(s) / 2, nil }, 3)
	if err != nil || !utf8.ValidString(tr.Prompt) || tr.Tokens > 300 || tr.Tokens < 290 {
		t.Errorf("trial %d tokens, valid %v, %v", tr.Tokens, utf8.ValidString(tr.Prompt), err)
	}
}

// TestCheckNeedle: the key given back exactly passes; anything else fails.
func TestCheckNeedle(t *testing.T) {
	for answer, want := range map[string]bool{
		"482913":                    true,
		" 482913\n":                 true,
		"The secret key is 482913.": true,
		"**482913**":                true,
		"48291":                     false,
		"4829135":                   false,
		"482,913":                   false,
		"482913 or maybe 123456":    false,
		"":                          false,
		"I don't know.":             false,
	} {
		if got := CheckNeedle(answer, "482913"); got != want {
			t.Errorf("CheckNeedle(%q) = %v, want %v", answer, got, want)
		}
	}
}

func tail(s string) string { return s[max(0, len(s)-80):] }

// TestNeedleCounterThatHardlyGrows: a counter whose count barely grows
// with the text is never handed a haystack past maxBytesPerToken a token.
func TestNeedleCounterThatHardlyGrows(t *testing.T) {
	calls, longest := 0, 0
	count := func(s string) (int, error) {
		calls, longest = calls+1, max(longest, len(s))
		return 20 + len(s)/3000, nil
	}
	_, err := NewNeedleTrial(austen, 1000, count, 1)
	if err != nil || calls > maxNeedleCounts || longest > maxBytesPerToken*1000+200 {
		t.Errorf("%d counts, the longest prompt %d bytes, %v", calls, longest, err)
	}
}
