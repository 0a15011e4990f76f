package charts

import (
	"math"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"speedmatrix/engine"
)

// fontKind selects one of the embedded Go fonts.
type fontKind int

const (
	fontRegular fontKind = iota
	fontBold
	fontMono
)

// svgFontFamilies lists fonts close to the Go fonts' metrics, so SVGs look
// like the PNGs without embedding a font file.
var svgFontFamilies = map[fontKind]string{
	fontRegular: `'Go', 'Inter', 'Helvetica Neue', Helvetica, Arial, 'Noto Sans', sans-serif`,
	fontBold:    `'Go', 'Inter', 'Helvetica Neue', Helvetica, Arial, 'Noto Sans', sans-serif`,
	fontMono:    `'Go Mono', 'JetBrains Mono', Menlo, Consolas, 'DejaVu Sans Mono', monospace`,
}

var (
	fontsOnce sync.Once
	fonts     map[fontKind]*opentype.Font
	fontsErr  error

	// measureMu guards measureFaces: a font.Face is not safe for concurrent use.
	measureMu    sync.Mutex
	measureFaces = map[faceKey]font.Face{}
)

type faceKey struct {
	kind fontKind
	size float64
}

func loadFonts() (map[fontKind]*opentype.Font, error) {
	fontsOnce.Do(func() {
		fonts = map[fontKind]*opentype.Font{}
		for k, ttf := range map[fontKind][]byte{fontRegular: goregular.TTF, fontBold: gobold.TTF, fontMono: gomono.TTF} {
			f, err := opentype.Parse(ttf)
			if err != nil {
				fontsErr = err
				return
			}
			fonts[k] = f
		}
	})
	return fonts, fontsErr
}

// newFace returns a face of the given pixel size; the caller owns it.
func newFace(kind fontKind, sizePx float64) font.Face {
	fs, err := loadFonts()
	if err != nil {
		// The fonts are compiled in; failing to parse them is a build defect.
		panic("charts: parse embedded Go font: " + err.Error())
	}
	face, err := opentype.NewFace(fs[kind], &opentype.FaceOptions{Size: sizePx, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		panic("charts: make font face: " + err.Error())
	}
	return face
}

// maxPictureRunes is the most runes of one text a picture draws: a longer
// one (a launch command, a note) ends in "…", and report.md has it whole.
// Names are shorter still where they enter (engine.MaxNameRunes).
const maxPictureRunes = 1000

// pictureText is s as a picture draws it: engine.BoundText to
// maxPictureRunes.
func pictureText(s string) string { return engine.BoundText(s, maxPictureRunes) }

// measureFace is the shared face of kind and size; measureMu must be held.
func measureFace(kind fontKind, sizePx float64) font.Face {
	k := faceKey{kind, sizePx}
	face, ok := measureFaces[k]
	if !ok {
		face = newFace(kind, sizePx)
		measureFaces[k] = face
	}
	return face
}

// textWidth is the advance width of s (as pictureText draws it) in
// logical pixels.
func textWidth(s string, kind fontKind, sizePx float64) float64 {
	measureMu.Lock()
	defer measureMu.Unlock()
	return fixedToFloat(font.MeasureString(measureFace(kind, sizePx), pictureText(s)))
}

func fixedToFloat(v fixed.Int26_6) float64 { return float64(v) / 64 }

// wrapText breaks s (as pictureText draws it) into lines no wider than
// width, at spaces where it can and inside words longer than a line where
// it must.
func wrapText(s string, kind fontKind, sizePx, width float64) []string {
	measureMu.Lock()
	defer measureMu.Unlock()
	return wrapWith(measureFace(kind, sizePx), pictureText(s), fixed.Int26_6(math.Floor(width*64)))
}

// pen adds up a text's advance width rune by rune, as font.MeasureString
// does (kerning each rune against the one before), so that a line grows
// without being measured again.
type pen struct {
	face font.Face
	w    fixed.Int26_6
	prev rune
}

func newPen(face font.Face) pen { return pen{face: face, prev: -1} }

func (p *pen) add(r rune) {
	if p.prev >= 0 {
		p.w += p.face.Kern(p.prev, r)
	}
	a, _ := p.face.GlyphAdvance(r)
	p.w += a
	p.prev = r
}

// addAll adds every rune of s.
func (p *pen) addAll(s []rune) {
	for _, r := range s {
		p.add(r)
	}
}

// wrapWith is wrapText with face's widths, in time linear in s: each rune
// is measured a bounded number of times (a word tried on the line, then
// alone, and the runes a break gives back), never the whole rest of a word
// per line.
func wrapWith(face font.Face, s string, width fixed.Int26_6) []string {
	var lines []string
	var line []rune
	at := newPen(face) // line's width
	for _, word := range strings.Split(s, " ") {
		w := []rune(word)
		try := at
		if len(line) > 0 {
			try.add(' ')
		}
		try.addAll(w)
		if try.w <= width {
			if len(line) > 0 {
				line = append(line, ' ')
			}
			line, at = append(line, w...), try
			continue
		}
		if len(line) > 0 {
			lines = append(lines, string(line))
		}
		var rest []rune
		lines, rest, at = breakWord(face, w, width, lines)
		line = append(line[:0], rest...)
	}
	return append(lines, string(line))
}

// breakWord appends to lines the heads of w that fill a line (breakAt)
// while w is wider than a line and longer than one rune, and returns w's
// last part and its width.
func breakWord(face font.Face, w []rune, width fixed.Int26_6, lines []string) ([]string, []rune, pen) {
	for {
		n, whole := fits(face, w, width)
		if n == len(w) || len(w) <= 1 {
			return lines, w, whole
		}
		cut := breakAt(w, n)
		lines = append(lines, string(w[:cut]))
		w = w[cut:]
	}
}

// fits is how many runes of w, at least one, fit in width, each prefix
// measured by adding one rune to the last; when all of them do, the pen
// holds w's width.
func fits(face font.Face, w []rune, width fixed.Int26_6) (int, pen) {
	p := newPen(face)
	for i, r := range w {
		next := p
		next.add(r)
		if i > 0 && next.w > width {
			return i, p
		}
		p = next
	}
	return len(w), p
}

// breakAt is where to break w, n of whose runes fit: after a '/' or '-'
// in the second half of those when there is one, so that a model id wraps
// as "RedHatAI/gemma-4-26B-A4B-it-" + "NVFP4", else after the n.
func breakAt(w []rune, n int) int {
	for i := n - 1; i >= n/2 && i > 0; i-- {
		if w[i] == '/' || w[i] == '-' {
			return i + 1
		}
	}
	return n
}
