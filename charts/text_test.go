package charts

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// countingFace counts the glyph advances a layout looks up.
type countingFace struct {
	font.Face
	advances int
}

func (c *countingFace) GlyphAdvance(r rune) (fixed.Int26_6, bool) {
	c.advances++
	return c.Face.GlyphAdvance(r)
}

// wrapReference is the wrapping wrapWith replaced, which measured the
// whole rest of a long word for every line (quadratic): the reference
// for where lines break.
func wrapReference(face font.Face, s string, width fixed.Int26_6) []string {
	fitsIn := func(s string) bool { return font.MeasureString(face, s) <= width }
	var lines []string
	line := ""
	for _, word := range strings.Split(s, " ") {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if fitsIn(try) {
			line = try
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		line = word
		for !fitsIn(line) && utf8.RuneCountInString(line) > 1 {
			runes := []rune(line)
			n := 1
			for n < len(runes) && fitsIn(string(runes[:n+1])) {
				n++
			}
			head := string(runes[:n])
			for i := n - 1; n < len(runes) && i >= n/2 && i > 0; i-- {
				if runes[i] == '/' || runes[i] == '-' {
					head = string(runes[:i+1])
					break
				}
			}
			lines = append(lines, head)
			line = strings.TrimPrefix(line, head)
		}
	}
	return append(lines, line)
}

// TestWrapBreaksWhereItDid: the linear wrapping breaks every text where
// the quadratic one did: spaces, long ids at '/' and '-', words longer
// than a line, kerned pairs, empty words.
func TestWrapBreaksWhereItDid(t *testing.T) {
	face := newFace(fontRegular, 14)
	for _, s := range []string{
		"", "one", "two words", "  leading and  double spaces ", "RedHatAI/gemma-4-26B-A4B-it-NVFP4 on 1 × NVIDIA RTX PRO 6000",
		strings.Repeat("AVAVWAToTa", 40), strings.Repeat("x", 500) + " tail", "a " + strings.Repeat("org-name/", 60),
		"Sustained decode 8K × 16: preempted 3 times: KV cache pressure; the server counted 193.9 tok/s (+6.2 %)",
		"é模型🙂 " + strings.Repeat("模", 200),
	} {
		for _, w := range []float64{1, 40, 120, 600} {
			width := fixed.Int26_6(w * 64)
			if got, want := wrapWith(face, s, width), wrapReference(face, s, width); !slices.Equal(got, want) {
				t.Errorf("%.30q at %v px:\n got %q\nwant %q", s, w, got, want)
			}
		}
	}
}

// TestWrapIsLinear: a 50,000-rune word (a model id with no space) is
// wrapped with a few glyph lookups per rune, where the quadratic wrapping
// looked up the whole rest of the word for every line (about 10⁸), and
// nothing of it is lost.
func TestWrapIsLinear(t *testing.T) {
	word := strings.Repeat("RedHatAI/gemma-4-26B-A4B-it-NVFP4", 1600)[:50000]
	face := &countingFace{Face: newFace(fontRegular, 14)}
	lines := wrapWith(face, word, 300*64)
	if most := 3 * len(word); face.advances > most {
		t.Errorf("%d glyph lookups for %d runes, want at most %d", face.advances, len(word), most)
	}
	if strings.Join(lines, "") != word || len(lines) < 100 {
		t.Errorf("%d lines that do not make up the word", len(lines))
	}
}

// TestPictureTextIsEllipsized: whatever a picture is given, it measures,
// wraps and draws at most maxPictureRunes runes of one text, the last an
// ellipsis.
func TestPictureTextIsEllipsized(t *testing.T) {
	long := strings.Repeat("m", 1<<20)
	lines := wrapText(long, fontRegular, 14, 400)
	if joined := strings.Join(lines, ""); utf8.RuneCountInString(joined) != maxPictureRunes || !strings.HasSuffix(joined, "…") {
		t.Errorf("wrapText of 1 MB: %d runes in %d lines, want %d ending in …", utf8.RuneCountInString(joined), len(lines), maxPictureRunes)
	}
	if w, want := textWidth(long, fontRegular, 14), textWidth(pictureText(long), fontRegular, 14); w != want {
		t.Errorf("textWidth of 1 MB = %v, want that of what is drawn, %v", w, want)
	}
	d := &Drawing{}
	d.text(0, 0, long, textStyle{size: 14})
	if n := utf8.RuneCountInString(d.Texts()[0]); n != maxPictureRunes {
		t.Errorf("a drawn text of 1 MB keeps %d runes, want %d", n, maxPictureRunes)
	}
}
