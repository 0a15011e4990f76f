package shell

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/theme"
	"golang.org/x/image/font/sfnt"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

// TestSLOTextsInTheAppFont: what the app says of an SLO is drawn in the
// app's own font. Its font has no "≤": Fyne took it from a system font,
// whose wider glyph and space read as "TTFT p99 ≤  50 ms".
func TestSLOTextsInTheAppFont(t *testing.T) {
	u := resultsWithSLO(t)
	r := u.results
	u.Show(app.TabResults)
	r.HeatMode.SetSelected(appwidget.HeatModeSLO)
	r.Slo.Heat.ShowDetails([2]int{8 * engine.K, 32})
	var said int
	for _, text := range visibleTexts(u.Win.Content()) {
		if !strings.Contains(text, "TTFT p") {
			continue
		}
		said++
		if missing := notInFont(t, text); missing != "" {
			t.Errorf("%q: the app's font has no %q", text, missing)
		}
	}
	if said < 3 {
		t.Errorf("%d texts state the SLO, want the key, the lines and the cell's figures", said)
	}
}

// notInFont is the runes of s that the app's regular and bold fonts lack.
func notInFont(t *testing.T, s string) string {
	t.Helper()
	var missing []rune
	for _, res := range []interface{ Content() []byte }{theme.DefaultTextFont(), theme.DefaultTextBoldFont()} {
		f, err := sfnt.Parse(res.Content())
		if err != nil {
			t.Fatal(err)
		}
		var buf sfnt.Buffer
		for _, r := range s {
			if r == '\n' {
				continue
			}
			if i, err := f.GlyphIndex(&buf, r); (err != nil || i == 0) && !strings.ContainsRune(string(missing), r) {
				missing = append(missing, r)
			}
		}
	}
	return string(missing)
}

// resultsWithSLO is the app showing on Results a run judged against
// testSLO, its charts drawn.
func resultsWithSLO(t *testing.T) *ui {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	rep := cannedReport("tiny", 195.7)
	rep.Results = append(rep.Results, sloResults()...)
	rep.Plan.SLO = testSLO
	u.results.Show(rep, "")
	waitFor(t, u.results.Rendered, "the charts")
	return u
}
