package sim

import "sort"

// Letter pieces: the ids after the stored vocabulary stand for every piece
// of one to four ASCII letters, with or without a leading space, computed
// arithmetically (about 15 million ids, no table). They let a letter run
// outside the vocabulary cost about a token per four letters, as ordinary
// words do in a real BPE vocabulary, instead of a token per byte.

// maxPieceLetters is the longest letter piece.
const maxPieceLetters = 4

// numLetters is the size of the piece alphabet: a–z, then A–Z.
const numLetters = 52

// pieceOffsets[L] is the index of the first piece of L letters among the
// letter pieces; pieceOffsets[maxPieceLetters+1] is how many there are.
// Each letter string comes twice: without (even index) and with (odd) a
// leading space.
var pieceOffsets = func() [maxPieceLetters + 2]int64 {
	var off [maxPieceLetters + 2]int64
	n := int64(1)
	for l := 1; l <= maxPieceLetters; l++ {
		n *= numLetters
		off[l+1] = off[l] + 2*n
	}
	return off
}()

// numLetterPieces is how many letter-piece ids there are.
var numLetterPieces = pieceOffsets[maxPieceLetters+1]

func letterDigit(c byte) int64 {
	if c >= 'a' {
		return int64(c - 'a')
	}
	return int64(c-'A') + 26
}

func digitLetter(d int64) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('A' + d - 26)
}

// letterID is the id of piece: an optional space and 1 to 4 ASCII letters.
func (t *tokenizer) letterID(piece string) int32 {
	sp := int64(0)
	if piece[0] == ' ' {
		sp, piece = 1, piece[1:]
	}
	idx := int64(0)
	for i := 0; i < len(piece); i++ {
		idx = idx*numLetters + letterDigit(piece[i])
	}
	return int32(int64(len(t.pieces)) + pieceOffsets[len(piece)] + 2*idx + sp)
}

// appendLetterPiece appends the text of letter-piece id (id ≥ len(t.pieces)).
func (t *tokenizer) appendLetterPiece(dst []byte, id int32) []byte {
	r := int64(id) - int64(len(t.pieces))
	l := maxPieceLetters
	for pieceOffsets[l] > r {
		l--
	}
	r -= pieceOffsets[l]
	if r%2 == 1 {
		dst = append(dst, ' ')
	}
	idx := r / 2
	var buf [maxPieceLetters]byte
	for i := l - 1; i >= 0; i-- {
		buf[i] = digitLetter(idx % numLetters)
		idx /= numLetters
	}
	return append(dst, buf[:l]...)
}

// appendLetterRun appends the tokens of run, an optional space and a run of
// ASCII letters that is not a vocabulary word, split into letter pieces
// (the space goes with the first). Each piece is as long as it can be (up
// to four letters) without ending where the run so far is a vocabulary
// word: a prefix of the tokens then decodes to a text that is not one word
// either, and tokenises back to the same prefix.
func (t *tokenizer) appendLetterRun(dst []int32, run string) []int32 {
	from := 0
	pos := 0
	if run[0] == ' ' {
		pos = 1
	}
	for pos < len(run) {
		l := t.pieceLen(run, pos)
		end := pos + l
		if l > maxPieceLetters {
			dst = append(dst, t.escapes[run[pos:end]])
		} else {
			dst = append(dst, t.letterID(run[from:end]))
		}
		from, pos = end, end
	}
	return dst
}

// pieceLen is the length of the letter piece of run that starts at pos:
// the longest of up to four letters that ends the run or doesn't end where
// the run so far is a word, else an escape piece of five letters. Which it
// is depends only on the text up to the piece's end and on whether the run
// ends there, which is what makes prefixes tokenise back.
func (t *tokenizer) pieceLen(run string, pos int) int {
	for l := maxPieceLetters; l >= 1; l-- {
		end := pos + l
		if end == len(run) || end < len(run) && !t.isWord(run[:end]) {
			return l
		}
	}
	// Escapes carry no space: the first piece can't need one, as no word
	// has a single letter.
	if _, ok := t.escapes[run[pos:min(pos+maxPieceLetters+1, len(run))]]; ok && pos > 0 && run[pos-1] != ' ' {
		return maxPieceLetters + 1
	}
	return 1 // unreachable while the vocabulary has no five consecutive word prefixes
}

// isWord reports whether s is one of the vocabulary's word forms.
func (t *tokenizer) isWord(s string) bool {
	if len(s) > t.maxWordLen {
		return false
	}
	_, ok := t.ids[s]
	return ok
}

// addEscapes adds the escape pieces. A letter run can't be split into
// pieces of at most four letters without ending a piece where the run so
// far is a word when four consecutive prefixes of it are words (as "ve",
// "vee", "veen" and "veeng" are): the piece that starts before them then
// takes five letters, the four under them and the next one. The vocabulary
// has no five consecutive such prefixes (a test checks it), so this is the
// only case.
func (t *tokenizer) addEscapes() {
	var stems []string
	seen := map[string]bool{}
	for w := range t.ids {
		n := len(w)
		if n < 5 || !t.isWord(w[:n-1]) || !t.isWord(w[:n-2]) || !t.isWord(w[:n-3]) {
			continue
		}
		if stem := w[n-4:]; !seen[stem] {
			seen[stem] = true
			stems = append(stems, stem)
		}
	}
	sort.Strings(stems)
	for _, stem := range stems {
		for d := range int64(numLetters) {
			piece := stem + string(digitLetter(d))
			t.escapes[piece] = int32(len(t.pieces))
			t.pieces = append(t.pieces, piece)
		}
	}
}
