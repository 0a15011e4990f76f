package widget

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// OutputMaxBytes bounds the text the output panel keeps: the end of the
// answer being generated. A 4,096-token answer is about 16 KB.
const OutputMaxBytes = 16 << 10

// OutputPanel shows, read-only, the text that one stream of the decode cell
// being measured is generating right now, so that the user sees the model
// write sense rather than garbage. It follows one stream (a picker chooses
// which) through its requests; each new request starts the text afresh.
// UI goroutine only, except the tap's function.
type OutputPanel struct {
	Status *widget.Label
	Picker *DropDown
	Pane   *TextPane
	box    fyne.CanvasObject

	tap       *measure.OutputTap // the run's; nil before the first run
	Text      string             // the current request's text, at most outputMaxBytes
	reasoning bool               // the text so far ends in reasoning
	cell      engine.Cell
	stream    int // followed, 0-based
	request   int
	state     string // what the request is doing: "waiting for the first token", …
}

// outputIdle is what the panel's pane says before a run reaches a decode
// cell; the status line above it is hidden until then.
const outputIdle = "Shows the text one stream generates during the decode cells, to check that the model writes sense."

// NewOutputPanel is the panel of the streams' output, empty.
func NewOutputPanel() *OutputPanel {
	p := &OutputPanel{Status: widget.NewLabel(""), Pane: NewTextPane()}
	p.Status.Wrapping = fyne.TextWrapWord
	p.idle()
	p.Picker = NewDropDown(nil, p.onPick)
	p.Picker.PlaceHolder = "Stream"
	p.Picker.Disable()
	title := widget.NewLabelWithStyle("Output", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head := container.NewBorder(nil, nil, title, p.Picker)
	p.box = container.NewBorder(container.NewVBox(head, p.Status), nil, nil, nil, Panel(p.Pane.Object()))
	return p
}

// Object is the panel's canvas object.
func (p *OutputPanel) Object() fyne.CanvasObject { return p.box }

// NewTap starts following a new run: it returns the tap for
// RunOptions.Output, which hands the chunks to feed (from the streams'
// goroutines), following the stream the picker shows.
func (p *OutputPanel) NewTap(feed func(measure.OutputChunk)) *measure.OutputTap {
	p.tap = measure.NewOutputTap(feed)
	p.tap.Follow(max(p.Picker.SelectedIndex(), 0))
	p.Text, p.reasoning, p.cell, p.request, p.state = "", false, engine.Cell{}, 0, ""
	SetOptional(p.Status, "Waiting for the first decode cell.")
	p.Pane.SetLines(nil)
	return p.tap
}

// OutputLoad is the panel's status line during a load test, which it does
// not follow: "Waiting for the first decode cell." waited for nothing.
const OutputLoad = "A load test's requests are not shown here: this panel follows a stream of a matrix's decode cells."

// ForLoadTest says the panel shows nothing of the load test that runs.
func (p *OutputPanel) ForLoadTest() { SetOptional(p.Status, OutputLoad) }

// onPick follows the chosen stream from its next chunk on.
func (p *OutputPanel) onPick(string) {
	if i := p.Picker.SelectedIndex(); i >= 0 && p.tap != nil {
		p.tap.Follow(i)
	}
}

// Show applies the chunks of one UI update, in order.
func (p *OutputPanel) Show(chunks []measure.OutputChunk) {
	if len(chunks) == 0 {
		return
	}
	for _, c := range chunks {
		p.Add(c)
	}
	SetOptional(p.Status, p.describe())
	p.Pane.SetLines(strings.Split(p.Text, "\n"))
}

// Add shows c, a piece of a stream's output.
func (p *OutputPanel) Add(c measure.OutputChunk) {
	if c.Cell != p.cell {
		p.setStreams(c.Cell.Concurrency, c.Stream)
	}
	p.cell, p.stream, p.request = c.Cell, c.Stream, c.Request
	switch c.Kind {
	case measure.OutputStart:
		p.Text, p.reasoning, p.state = "", false, "waiting for the first token"
	case measure.OutputJoin:
		p.Text, p.reasoning, p.state = "… ", false, "generating (joined mid-answer)"
	case measure.OutputText:
		p.appendText(c.Text, c.Reasoning)
		if !strings.HasPrefix(p.state, "generating") {
			p.state = "generating"
		}
	case measure.OutputEnd:
		p.state = endState(c)
	}
}

// setStreams offers one choice per stream of the cell, showing the
// followed one (a cell with fewer streams than chosen follows its last).
func (p *OutputPanel) setStreams(n, followed int) {
	opts := make([]string, n)
	for i := range opts {
		opts[i] = "Stream " + strconv.Itoa(i+1)
	}
	p.Picker.Options = opts
	p.Picker.Enable()
	p.Picker.SetSelectedIndex(followed)
}

// appendText adds text, marking where reasoning starts and the answer
// after it, and keeps the last outputMaxBytes.
func (p *OutputPanel) appendText(text string, reasoning bool) {
	switch {
	case reasoning && !p.reasoning:
		text = "[thinking]\n" + text
	case !reasoning && p.reasoning:
		text = "\n[answer]\n" + text
	}
	p.reasoning = reasoning
	p.Text = KeepTail(p.Text+text, OutputMaxBytes)
}

// KeepTail is the last max bytes of s, starting at a whole character.
func KeepTail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[len(s)-max:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

// endState says how a request ended, in the panel's words.
func endState(c measure.OutputChunk) string {
	switch {
	case c.Stopped:
		return "stream ended: the cell's measurement is over"
	case c.Err != nil:
		return "stream ended: the request failed (the cell's result says why)"
	case c.FinishReason == "length":
		return "stream ended at the max output; the next request follows"
	case c.FinishReason != "":
		return "stream ended (" + c.FinishReason + "); the next request follows"
	}
	return "stream ended; the next request follows"
}

// describe is the status line: what the panel follows and what it does.
func (p *OutputPanel) describe() string {
	return fmt.Sprintf("%s %s × %d · stream %d · request %d · %s", p.cell.Phase.Title(),
		engine.ContextLabel(p.cell.ContextTokens), p.cell.Concurrency, p.stream+1, p.request, p.state)
}

// RunEnded says the run is over, keeping the last text.
func (p *OutputPanel) RunEnded() {
	p.tap = nil
	p.Picker.Disable()
	if p.cell == (engine.Cell{}) {
		p.idle()
		return
	}
	SetOptional(p.Status, p.describe()+" · the run has ended")
}

// idle says in the pane what it is for, with no status line: before a run
// has reached a decode cell.
func (p *OutputPanel) idle() {
	SetOptional(p.Status, "")
	p.Pane.SetLines([]string{outputIdle})
}
