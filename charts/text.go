package charts

import (
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
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

// textWidth is the advance width of s in logical pixels.
func textWidth(s string, kind fontKind, sizePx float64) float64 {
	measureMu.Lock()
	defer measureMu.Unlock()
	k := faceKey{kind, sizePx}
	face, ok := measureFaces[k]
	if !ok {
		face = newFace(kind, sizePx)
		measureFaces[k] = face
	}
	return fixedToFloat(font.MeasureString(face, s))
}

func fixedToFloat(v fixed.Int26_6) float64 { return float64(v) / 64 }

// wrapText breaks s into lines no wider than width, at spaces where it can
// and inside words longer than a line where it must.
func wrapText(s string, kind fontKind, sizePx, width float64) []string {
	var lines []string
	line := ""
	for _, word := range strings.Split(s, " ") {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if textWidth(try, kind, sizePx) <= width {
			line = try
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		line = word
		for textWidth(line, kind, sizePx) > width && len([]rune(line)) > 1 {
			head := breakAt(line, kind, sizePx, width)
			lines = append(lines, head)
			line = strings.TrimPrefix(line, head)
		}
	}
	return append(lines, line)
}

// breakAt returns the longest prefix of s (at least one rune) that fits,
// cut after a '/' or '-' in its second half if it has one, so that a model
// id wraps as "RedHatAI/gemma-4-26B-A4B-it-" + "NVFP4".
func breakAt(s string, kind fontKind, sizePx, width float64) string {
	runes := []rune(s)
	n := 1
	for n < len(runes) && textWidth(string(runes[:n+1]), kind, sizePx) <= width {
		n++
	}
	if n < len(runes) {
		for i := n - 1; i >= n/2 && i > 0; i-- {
			if runes[i] == '/' || runes[i] == '-' {
				return string(runes[:i+1])
			}
		}
	}
	return string(runes[:n])
}
