package sim

import (
	"strings"
)

// Special tokens of the simulated tokenizer, recognised in text as written.
const (
	tokPad = iota
	tokBOS
	tokEOS
	tokStartOfTurn
	tokEndOfTurn
	numSpecial
)

var specialText = [numSpecial]string{"<pad>", "<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>"}

// byteBase is the id of the byte-fallback token for byte 0; byte b is
// byteBase+b. Every text therefore has a tokenisation that decodes back to it.
const byteBase = numSpecial

// numWords is the size of the generated word list.
const numWords = 4096

// tokenizer is a deterministic word-level tokenizer. Text is split into
// pieces: a special token, an optional single space followed by a run of
// ASCII letters, or a single byte. A letter run found in the vocabulary is
// one token; one that is not is split into letter pieces of up to four
// letters (letters.go), so ordinary English costs about a token per four
// characters, as with a real BPE tokenizer. Decoding concatenates the
// pieces, so text → ids → text round-trips exactly, and a prefix of a
// tokenisation decodes to a text that tokenises to that prefix.
type tokenizer struct {
	pieces     []string         // id → text for the stored ids; letter pieces follow
	ids        map[string]int32 // text → id, for words
	maxWordLen int              // longest text in ids
	words      []int32          // ids of " word" (lower case), for generated text
	caps       []int32          // ids of " Word", same order as words
	escapes    map[string]int32 // five-letter pieces, for runs four pieces can't split (letters.go)
}

// newTokenizer builds the vocabulary: specials, 256 bytes, then for each of
// numWords generated words and then each English word the forms "word",
// " word", "Word" and " Word", the escape pieces, and (computed, not
// stored) the letter pieces.
func newTokenizer() *tokenizer {
	t := &tokenizer{ids: make(map[string]int32, (numWords+len(englishWords))*4), escapes: map[string]int32{}}
	t.pieces = append(t.pieces, specialText[:]...)
	for b := 0; b < 256; b++ {
		t.pieces = append(t.pieces, string([]byte{byte(b)}))
	}
	for _, w := range generateWords(numWords) {
		id := t.addWord(w)
		t.words = append(t.words, id+1)
		t.caps = append(t.caps, id+3)
	}
	for _, w := range englishWords {
		if _, dup := t.ids[w]; !dup {
			t.addWord(w)
		}
	}
	t.addEscapes()
	return t
}

// addWord adds the forms "word", " word", "Word" and " Word" of w, in that
// order, and returns the id of the first.
func (t *tokenizer) addWord(w string) int32 {
	cw := strings.ToUpper(w[:1]) + w[1:]
	first := int32(len(t.pieces))
	for _, form := range []string{w, " " + w, cw, " " + cw} {
		t.ids[form] = int32(len(t.pieces))
		t.pieces = append(t.pieces, form)
		t.maxWordLen = max(t.maxWordLen, len(form))
	}
	return first
}

// vocabSize is the number of token ids.
func (t *tokenizer) vocabSize() int { return len(t.pieces) + int(numLetterPieces) }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// encode appends the token ids of text to dst.
func (t *tokenizer) encode(dst []int32, text string) []int32 {
	for i := 0; i < len(text); {
		c := text[i]
		if c == '<' {
			if id, n := matchSpecial(text[i:]); n > 0 {
				dst = append(dst, id)
				i += n
				continue
			}
		}
		start := i
		if c == ' ' && i+1 < len(text) && isLetter(text[i+1]) {
			i++
		}
		if !isLetter(text[i]) {
			dst = append(dst, int32(byteBase)+int32(text[i]))
			i++
			continue
		}
		j := i
		for j < len(text) && isLetter(text[j]) {
			j++
		}
		if id, ok := t.ids[text[start:j]]; ok {
			dst = append(dst, id)
		} else {
			dst = t.appendLetterRun(dst, text[start:j])
		}
		i = j
	}
	return dst
}

func matchSpecial(s string) (int32, int) {
	for id, sp := range specialText {
		if strings.HasPrefix(s, sp) {
			return int32(id), len(sp)
		}
	}
	return 0, 0
}

// valid reports whether id is a token id of this vocabulary.
func (t *tokenizer) valid(id int64) bool { return id >= 0 && id < int64(t.vocabSize()) }

// decode appends the text of ids to dst; ids must be valid.
func (t *tokenizer) decode(dst []byte, ids []int32) []byte {
	for _, id := range ids {
		if int(id) < len(t.pieces) {
			dst = append(dst, t.pieces[id]...)
		} else {
			dst = t.appendLetterPiece(dst, id)
		}
	}
	return dst
}

// generateWords returns n distinct pronounceable lower-case words, the same
// on every run: syllables drawn by a fixed pseudo-random sequence.
func generateWords(n int) []string {
	onsets := []string{"b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "sl", "st", "th", "tr", "qu"}
	nuclei := []string{"a", "e", "i", "o", "u", "ai", "ea", "ee", "io", "oa", "ou", "y"}
	codas := []string{"", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "ng", "x"}
	seen := make(map[string]bool, n)
	words := make([]string, 0, n)
	r := uint64(0x5eed5eed)
	for len(words) < n {
		var b strings.Builder
		syllables := 1 + int(splitmix(&r)%3)
		for s := 0; s < syllables; s++ {
			b.WriteString(onsets[splitmix(&r)%uint64(len(onsets))])
			b.WriteString(nuclei[splitmix(&r)%uint64(len(nuclei))])
			if s == syllables-1 || splitmix(&r)%3 == 0 {
				b.WriteString(codas[splitmix(&r)%uint64(len(codas))])
			}
		}
		w := b.String()
		if len(w) < 2 || seen[w] {
			continue
		}
		seen[w] = true
		words = append(words, w)
	}
	return words
}

// splitmix advances *state and returns the next value of SplitMix64.
func splitmix(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	return mix64(*state)
}

// mix64 is SplitMix64's finaliser: a fast, well-spread hash of x.
func mix64(x uint64) uint64 {
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
