package sim

import (
	"os"
	"runtime"
	"slices"
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

// generated is the first n tokens a server generates after a prompt
// whose hashes are base, looping from loopFrom (≥ 0) as a profile's Loop
// makes it.
func generated(base uint64, n, loopFrom int) []int32 {
	s := &Server{tok: sharedTokenizer()}
	s.lm = newPseudoModel(s.tok, "test", Numerics{})
	st := lmStart(s.lm.key)
	st.h ^= base
	g := &genRequest{textBase: base, lp: noLogprobs, out: textState{state: st}}
	snap := &snapshot{loop: loopFrom, batch: 1}
	ids := make([]int32, n)
	for i := range ids {
		ids[i], _ = s.nextToken(g, snap)
	}
	return ids
}

// TestGeneratedTextTokenizesBack checks that N generated tokens, as text,
// tokenise to the same N ids: what lets a client size prompts with /tokenize.
func TestGeneratedTextTokenizesBack(t *testing.T) {
	tok := sharedTokenizer()
	for _, base := range []uint64{0, 1, 0xdeadbeef} {
		ids := generated(base, 2000, -1)
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
		return string(tok.decode(nil, generated(7, 2000, loopFrom)))
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

// prefixTexts are texts whose every tokenisation prefix must tokenise back
// to itself, including letter runs that start with four consecutive words
// ("veeng" with "ve", "vee" and "veen"), which need escape pieces.
var prefixTexts = []string{
	"internationalization and Supercalifragilistic words",
	" thereafter, Therefore: therein",
	"veengqueue veengz Veengabc  veengxy",
	"qqqqqqqqqqqqqqqqqqqqqqqq ZZZZZ aBcDeFgHiJ",
	"<bos>mixed<eos>caseRUNSandUPPER\n\nlines",
}

// checkPrefixes checks that every prefix of text's tokens decodes to a text
// that tokenises to that prefix.
func checkPrefixes(t *testing.T, tok *tokenizer, text string) {
	t.Helper()
	ids := tok.encode(nil, text)
	for m := 1; m < len(ids); m++ {
		back := tok.encode(nil, string(tok.decode(nil, ids[:m])))
		if !slices.Equal(back, ids[:m]) {
			t.Fatalf("%q: the first %d tokens %v decode to %q, which tokenises to %v", text, m, ids[:m], tok.decode(nil, ids[:m]), back)
		}
	}
}

func TestTokenizerPrefixes(t *testing.T) {
	tok := sharedTokenizer()
	prose, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		t.Fatal(err)
	}
	texts := append(append([]string{string(prose)}, roundTripTexts...), prefixTexts...)
	// Every word with four consecutive word prefixes, followed by more
	// letters: these runs need escape pieces.
	escaped := 0
	for w := range tok.ids {
		if n := len(w); n >= 5 && tok.isWord(w[:n-1]) && tok.isWord(w[:n-2]) && tok.isWord(w[:n-3]) {
			for _, text := range []string{w + "q", "(" + w + "Qrstuvw"} {
				for _, id := range tok.encode(nil, text) {
					if int(id) < len(tok.pieces) && tok.escapes[tok.pieces[id]] == id {
						escaped++
					}
				}
				texts = append(texts, text)
			}
		}
	}
	if escaped == 0 {
		t.Error("no text needed an escape piece: the test no longer covers them")
	}
	for _, text := range texts {
		checkPrefixes(t, tok, text)
		if got := string(tok.decode(nil, tok.encode(nil, text))); got != text {
			t.Errorf("decode(encode(%q)) = %q", text, got)
		}
	}
}

func FuzzTokenizerPrefixes(f *testing.F) {
	for _, text := range append(append([]string{}, roundTripTexts...), prefixTexts...) {
		f.Add(text)
	}
	tok := sharedTokenizer()
	f.Fuzz(func(t *testing.T, text string) { checkPrefixes(t, tok, text) })
}

// TestTokenizerWordChains checks what the letter pieces rely on: no word
// of one letter, and no five consecutive prefixes of a word that are words.
func TestTokenizerWordChains(t *testing.T) {
	tok := sharedTokenizer()
	for w := range tok.ids {
		if len(strings.TrimPrefix(w, " ")) < 2 {
			t.Errorf("word %q has one letter", w)
		}
		run := 0
		for l := 1; l <= len(w); l++ {
			if tok.isWord(w[:l]) {
				run++
			} else {
				run = 0
			}
			if run > maxPieceLetters {
				t.Errorf("%q has %d consecutive prefixes that are words", w, run)
			}
		}
	}
	if len(tok.escapes) == 0 {
		t.Error("no escape pieces: the vocabulary has no four consecutive word prefixes any more, drop them")
	}
}

func TestLetterPieces(t *testing.T) {
	tok := sharedTokenizer()
	for _, tc := range []struct {
		text string
		ids  int // tokens it takes
	}{
		{" the", 1}, {" There", 1}, {" harbour", 2}, {"Zq", 1}, {" zzzz", 1}, {" zzzzz", 2},
		{" ZZZZZZZZ", 2}, {"aBcDeFgHi", 3}, {" internationalization", 5}, {"123", 3},
	} {
		ids := tok.encode(nil, tc.text)
		if len(ids) != tc.ids || string(tok.decode(nil, ids)) != tc.text {
			t.Errorf("%q: %d tokens %v decoding to %q, want %d", tc.text, len(ids), ids, tok.decode(nil, ids), tc.ids)
		}
		for _, id := range ids {
			if !tok.valid(int64(id)) {
				t.Errorf("%q: id %d out of vocabulary", tc.text, id)
			}
		}
	}
	last := int32(tok.vocabSize() - 1)
	if got := string(tok.decode(nil, []int32{last})); got != " ZZZZ" {
		t.Errorf("the last id decodes to %q, want \" ZZZZ\"", got)
	}
	if tok.valid(int64(last) + 1) {
		t.Error("an id past the letter pieces is valid")
	}
}

// TestTokenizerProse checks that ordinary English costs about what a real
// BPE tokenizer charges: 3.5 to 5 characters a token.
func TestTokenizerProse(t *testing.T) {
	prose, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		t.Fatal(err)
	}
	ids := sharedTokenizer().encode(nil, string(prose))
	perToken := float64(len(prose)) / float64(len(ids))
	if perToken < 3.5 || perToken > 5 {
		t.Errorf("%d characters of prose make %d tokens, %.2f a token: want 3.5 to 5", len(prose), len(ids), perToken)
	}
}

// TestTokenizerMemory checks that building the vocabulary stays small.
func TestTokenizerMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tok := newTokenizer()
	runtime.ReadMemStats(&after)
	if mb := float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20); mb > 30 {
		t.Errorf("the tokenizer allocated %.1f MB, want < 30", mb)
	}
	runtime.KeepAlive(tok)
}

func BenchmarkTokenizeProse(b *testing.B) {
	prose, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		b.Fatal(err)
	}
	tok := sharedTokenizer()
	text := strings.Repeat(string(prose), 100)
	b.SetBytes(int64(len(text)))
	var ids []int32
	for b.Loop() {
		ids = tok.encode(ids[:0], text)
	}
}
