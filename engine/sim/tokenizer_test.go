package sim

import (
	"strings"
	"testing"
)

func TestTokenizerVocabulary(t *testing.T) {
	a, b := newTokenizer(), newTokenizer()
	if a.vocabSize() != b.vocabSize() || a.vocabSize() < numWords*4 {
		t.Fatalf("vocabulary sizes %d and %d: want the same, at least %d", a.vocabSize(), b.vocabSize(), numWords*4)
	}
	for i := range a.pieces {
		if a.pieces[i] != b.pieces[i] {
			t.Fatalf("token %d is %q then %q: the vocabulary must not depend on the run", i, a.pieces[i], b.pieces[i])
		}
	}
	if len(a.words) != numWords {
		t.Errorf("%d words, want %d", len(a.words), numWords)
	}
}

var roundTripTexts = []string{
	"",
	"hello world",
	"The engineer measured the narrow bridge near the harbour, before the first snow.",
	"<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n",
	"tabs\tand  double  spaces\n\nand ünïcödé — and 123 numbers!",
	"<not a special> <bos",
}

func TestTokenizerRoundTrip(t *testing.T) {
	tok := sharedTokenizer()
	for _, text := range roundTripTexts {
		ids := tok.encode(nil, text)
		if got := string(tok.decode(nil, ids)); got != text {
			t.Errorf("decode(encode(%q)) = %q", text, got)
		}
	}
}

func FuzzTokenizerRoundTrip(f *testing.F) {
	for _, text := range roundTripTexts {
		f.Add(text)
	}
	tok := sharedTokenizer()
	f.Fuzz(func(t *testing.T, text string) {
		ids := tok.encode(nil, text)
		if got := string(tok.decode(nil, ids)); got != text {
			t.Errorf("decode(encode(%q)) = %q", text, got)
		}
	})
}

// TestGeneratedTextTokenizesBack checks that N generated tokens, as text,
// tokenise to the same N ids: what lets a client size prompts with /tokenize.
func TestGeneratedTextTokenizesBack(t *testing.T) {
	tok := sharedTokenizer()
	for _, base := range []uint64{0, 1, 0xdeadbeef} {
		ids := make([]int32, 2000)
		for i := range ids {
			ids[i] = tok.outputToken(base, i, -1)
		}
		text := string(tok.decode(nil, ids))
		back := tok.encode(nil, text)
		if len(back) != len(ids) {
			t.Fatalf("base %d: %d tokens of text tokenise to %d", base, len(ids), len(back))
		}
		for i := range ids {
			if back[i] != ids[i] {
				t.Fatalf("base %d: token %d is %d, tokenises back to %d", base, i, ids[i], back[i])
			}
		}
	}
}

// TestGeneratedTextIsVaried checks the text a loop detector sees: no phrase
// of 40 tokens comes back in 2,000 tokens unless the request loops, and
// then the phrase repeats from the loop point on.
func TestGeneratedTextIsVaried(t *testing.T) {
	tok := sharedTokenizer()
	text := func(loopFrom int) string {
		var b []byte
		for i := range 2000 {
			b = append(b, tok.pieces[tok.outputToken(7, i, loopFrom)]...)
		}
		return string(b)
	}
	plain := text(-1)
	window := plain[1000:1300]
	if strings.Count(plain, window) != 1 {
		t.Errorf("a 300-character window of plain text occurs %d times, want once", strings.Count(plain, window))
	}
	looped := text(100)
	if looped[:200] != plain[:200] {
		t.Error("a looping request's text differs from the plain text before the loop")
	}
	var phrase []byte
	for j := range loopPhraseTokens {
		phrase = append(phrase, tok.pieces[tok.loopToken(7, j)]...)
	}
	if n := strings.Count(looped, string(phrase)); n < 40 {
		t.Errorf("the loop phrase occurs %d times in 1,900 looping tokens, want ≥ 40", n)
	}
}
