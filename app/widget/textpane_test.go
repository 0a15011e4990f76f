package widget

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func TestWrapLine(t *testing.T) {
	tests := []struct {
		name, line string
		cols       int
		want       []string
	}{
		{"fits", "short line", 20, []string{"short line"}},
		{"empty", "", 8, []string{""}},
		{"exactly a row", "abcdefgh", 8, []string{"abcdefgh"}},
		{"at the last space", "the quick brown fox", 10, []string{"the quick", "brown fox"}},
		{"space just past the row", "abcd efgh", 4, []string{"abcd", "efgh"}},
		{"word longer than a row", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"characters, not bytes", "8K × 128 · Valid", 8, []string{"8K × 128", "· Valid"}},
		{"tabs and control characters", "a\tb\x1bc", 20, []string{"a    bc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wrapLine(tt.line, tt.cols, nil); !slices.Equal(got, tt.want) {
				t.Errorf("wrapLine(%q, %d) = %q, want %q", tt.line, tt.cols, got, tt.want)
			}
		})
	}
}

// TestTextPaneNeverWidens: a line far longer than the pane wraps into rows
// that fit, and the pane asks for no more room than a few short rows.
func TestTextPaneNeverWidens(t *testing.T) {
	p := NewTextPane()
	w := test.NewTempWindow(t, p.Object())
	w.Resize(fyne.NewSize(400, 300))
	small := p.Object().MinSize()
	p.SetLines([]string{strings.Repeat("x", 5000), strings.Repeat("word ", 1000)})
	if got := p.Object().MinSize(); got != small {
		t.Errorf("min size %v with 10,000 characters of text, want %v (as when empty)", got, small)
	}
	if small.Width > 300 {
		t.Errorf("min width %v: the pane would widen a narrow window", small.Width)
	}
	if p.cols < paneMinCols || p.cols*int(p.cell.Width) > 400 {
		t.Fatalf("%d columns of %v px in a 400 px pane", p.cols, p.cell.Width)
	}
	for i, r := range p.rows {
		if n := utf8.RuneCountInString(r); n > p.cols {
			t.Fatalf("row %d has %d characters, more than the %d that fit", i, n, p.cols)
		}
	}
	if want := 5000/p.cols + 1000*5/p.cols; len(p.rows) < want {
		t.Errorf("%d rows, want at least %d", len(p.rows), want)
	}
}

func TestLogViewKeepsTheLastLines(t *testing.T) {
	v := NewLogView(1000)
	for i := range 1500 {
		v.Add(fmt.Sprintf("line %d", i))
	}
	v.Add("two\nlines\n")
	v.Flush()
	lines := strings.Split(v.Text(), "\n")
	if len(lines) != 1000 || lines[0] != "line 502" || lines[998] != "two" || lines[999] != "lines" {
		t.Errorf("%d lines from %q to %q, want the last 1,000 (line 502 … two, lines)", len(lines), lines[0], lines[len(lines)-1])
	}
	if got := v.pane.Text(); got != v.Text() {
		t.Errorf("the pane shows %d bytes, the log holds %d", len(got), len(v.Text()))
	}
}
