package charts

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"strconv"
	"strings"
	"testing"
)

// TestPNGSizes decodes every picture in both themes: 1× is the drawing's
// size and 2× (light theme) exactly twice it.
func TestPNGSizes(t *testing.T) {
	pixelTest(t)
	r := loadSeed(t, "seed003")
	for _, kind := range Kinds {
		for _, th := range []Theme{Light, Dark} {
			scales := []int{1, 2}
			if th == Dark || (testing.Short() && kind == KindReport) {
				scales = []int{1} // 2× of each picture once is enough
			}
			d, err := Draw(kind, r, Options{Theme: th})
			if err != nil {
				t.Fatal(err)
			}
			w, h := d.Size()
			for _, s := range scales {
				b, err := d.png(s)
				if err != nil {
					t.Fatal(err)
				}
				cfg, err := png.DecodeConfig(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s %s %d×: %v", kind, th, s, err)
				}
				if cfg.Width != w*s || cfg.Height != h*s {
					t.Errorf("%s %s %d×: %d×%d, want %d×%d", kind, th, s, cfg.Width, cfg.Height, w*s, h*s)
				}
			}
		}
	}
}

// TestSVGParses reads every SVG with encoding/xml: the root's size is the
// drawing's times the scale, every text of the drawing is there, escaped
// where needed (the launch command's "<redacted>").
func TestSVGParses(t *testing.T) {
	r := loadSeed(t, "seed000")
	for _, kind := range Kinds {
		for _, scale := range []int{1, 2} {
			d, err := Draw(kind, r, Options{Theme: Dark})
			if err != nil {
				t.Fatal(err)
			}
			b, err := d.svg(scale)
			if err != nil {
				t.Fatal(err)
			}
			texts, width, height := parseSVG(t, b)
			w, h := d.Size()
			if width != strconv.Itoa(w*scale) || height != strconv.Itoa(h*scale) {
				t.Errorf("%s %d×: svg is %s×%s, want %d×%d", kind, scale, width, height, w*scale, h*scale)
			}
			if strings.Join(texts, "\n") != strings.Join(d.Texts(), "\n") {
				t.Errorf("%s: the SVG's texts differ from the drawing's", kind)
			}
		}
	}
	sheet, _ := RenderSVG(KindReport, r, DefaultOptions())
	texts, _, _ := parseSVG(t, sheet)
	if !strings.Contains(strings.Join(texts, " "), "--api-key <redacted>") {
		t.Error("the launch command's <redacted> did not survive XML escaping")
	}
}

func parseSVG(t *testing.T, b []byte) (texts []string, width, height string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return texts, width, height
		}
		if err != nil {
			t.Fatalf("svg does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "svg" {
				for _, a := range tok.Attr {
					switch a.Name.Local {
					case "width":
						width = a.Value
					case "height":
						height = a.Value
					}
				}
			}
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
}
