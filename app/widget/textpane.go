package widget

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// TextPane shows lines of text in a monospaced font, wrapped at its width
// like a terminal. It is a virtual list of one-line rows: only the rows on
// screen exist as canvas objects, one text each, however much text the pane
// holds. (widget.TextGrid, which the logs used before, draws a text, a
// rectangle and a line per character on screen; over a Standard run its
// redraws grew the app's memory outside the Go heap by about 100 MB.)
// The pane asks for little room: long rows wrap, they never widen the
// window. It follows the end of the text while the user has not scrolled
// up. UI goroutine only.
type TextPane struct {
	list  *widget.List
	box   *fyne.Container
	Lines []string // the text, one line each
	rows  []string // lines wrapped at cols
	cols  int      // characters per row at the pane's width
	cell  fyne.Size
}

// paneMinCols and paneMinRows are the smallest size a pane asks for.
const paneMinCols, paneMinRows = 16, 3

// NewTextPane is an empty pane of wrapped lines.
func NewTextPane() *TextPane {
	p := &TextPane{cell: fyne.MeasureText("M", theme.TextSize(), fyne.TextStyle{Monospace: true})}
	p.list = widget.NewList(func() int { return len(p.rows) }, p.newRow, p.updateRow)
	p.list.HideSeparators = true
	// Read-only: a tapped row is not left selected.
	p.list.OnSelected = func(id widget.ListItemID) { p.list.Unselect(id) }
	p.box = container.New(&paneLayout{p: p}, p.list)
	return p
}

// Object is the pane's canvas object.
func (p *TextPane) Object() fyne.CanvasObject { return p.box }

func (p *TextPane) newRow() fyne.CanvasObject {
	t := canvas.NewText("", theme.Color(theme.ColorNameForeground))
	t.TextStyle = fyne.TextStyle{Monospace: true}
	pad := theme.Padding()
	return container.New(layout.NewCustomPaddedLayout(0, 0, pad, pad), t)
}

func (p *TextPane) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	t := o.(*fyne.Container).Objects[0].(*canvas.Text)
	text := ""
	if id >= 0 && id < len(p.rows) {
		text = p.rows[id]
	}
	t.Text, t.Color = text, theme.Color(theme.ColorNameForeground)
	t.Refresh()
}

// SetLines shows lines (the pane keeps the slice) and, when the end was in
// view, scrolls to the new end.
func (p *TextPane) SetLines(lines []string) {
	follow := p.atEnd()
	p.Lines = lines
	p.rewrap()
	p.list.Refresh()
	if follow {
		p.list.ScrollToBottom()
	}
}

// atEnd reports whether the last row is in view (or nearly).
func (p *TextPane) atEnd() bool {
	rowH := p.cell.Height + theme.Padding()
	content := rowH * float32(len(p.rows))
	return p.list.GetScrollOffset()+p.list.Size().Height >= content-2*rowH
}

func (p *TextPane) rewrap() {
	p.rows = p.rows[:0]
	for _, l := range p.Lines {
		p.rows = wrapLine(l, max(p.cols, paneMinCols), p.rows)
	}
}

// paneLayout gives the list the pane's whole area and rewraps the text
// when the width holds another number of characters.
type paneLayout struct{ p *TextPane }

// Layout sizes the list and rewraps at the new width.
func (l *paneLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	p := l.p
	// The scroll bar overlays the right edge; keep the text clear of it.
	usable := size.Width - 2*theme.Padding() - theme.ScrollBarSize()
	if cols := int(usable / p.cell.Width); cols != p.cols {
		p.cols = cols
		p.rewrap()
		p.list.Refresh()
	}
	objs[0].Resize(size)
	objs[0].Move(fyne.NewPos(0, 0))
}

// MinSize is a few short rows: the pane takes the room it is given.
func (l *paneLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	c := l.p.cell
	return fyne.NewSize(c.Width*paneMinCols, (c.Height+theme.Padding())*paneMinRows)
}

// wrapLine appends line to rows, broken into rows of at most cols
// characters: after the last space that fits, or mid-word when a word is
// longer than a row. Tabs become spaces and other control characters are
// dropped, so that every row draws as it is counted.
func wrapLine(line string, cols int, rows []string) []string {
	line = printable(line)
	for utf8.RuneCountInString(line) > cols {
		cut, lastSpace, n := 0, -1, 0
		for i, r := range line {
			if r == ' ' {
				lastSpace = i // a space just past the row breaks it too
			}
			if n == cols {
				cut = i
				break
			}
			n++
		}
		if lastSpace > 0 {
			rows = append(rows, line[:lastSpace])
			line = line[lastSpace+1:]
			continue
		}
		rows = append(rows, line[:cut])
		line = line[cut:]
	}
	return append(rows, line)
}

// printable is s with tabs as four spaces and without other control
// characters; s itself when it has none (the common case).
func printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ReplaceAll(s, "\t", "    "))
}

// Text is what the pane shows, its lines joined (tests read it).
func (p *TextPane) Text() string { return strings.Join(p.Lines, "\n") }
