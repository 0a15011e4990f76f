package shell

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"speedmatrix/app/run"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

var outCell = engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8 * engine.K, Concurrency: 16}

func outChunk(kind measure.OutputKind, request int, text string) measure.OutputChunk {
	return measure.OutputChunk{Kind: kind, Cell: outCell, Stream: 2, Request: request, Text: text}
}

// TestOutputPanelIsBounded: however much a stream generates, the panel keeps
// the last outputMaxBytes of it, and a row without spaces does not widen it.
func TestOutputPanelIsBounded(t *testing.T) {
	p := appwidget.NewOutputPanel()
	w := test.NewTempWindow(t, p.Object())
	w.Resize(fyne.NewSize(500, 400))
	small := p.Object().MinSize()
	p.NewTap(func(measure.OutputChunk) {})
	p.Show([]measure.OutputChunk{outChunk(measure.OutputStart, 7, "")})
	piece := strings.Repeat("y", 999) + "\n"
	for i := range 100 { // 100 KB in 1 KB chunks, 10 per update
		chunks := make([]measure.OutputChunk, 10)
		for j := range chunks {
			chunks[j] = outChunk(measure.OutputText, 7, piece)
		}
		chunks[9].Text = "end of update " + string(rune('a'+i%26)) + " "
		p.Show(chunks)
	}
	if n := len(p.Text); n > appwidget.OutputMaxBytes || n < appwidget.OutputMaxBytes-len(piece) {
		t.Errorf("the panel keeps %d bytes, want the last %d", n, appwidget.OutputMaxBytes)
	}
	if !strings.HasSuffix(p.Text, "end of update v ") {
		t.Errorf("the panel ends with %q, want the last text received", p.Text[len(p.Text)-20:])
	}
	if n := len(p.Pane.Lines); n > appwidget.OutputMaxBytes/len(piece)+2 {
		t.Errorf("the pane holds %d lines, want at most %d", n, appwidget.OutputMaxBytes/len(piece)+2)
	}
	if got := p.Object().MinSize(); got.Width > small.Width {
		t.Errorf("min width %v after 100 KB of 1,000-character lines, was %v", got.Width, small.Width)
	}
	if got := p.Status.Text; got != "Sustained decode 8K × 16 · stream 3 · request 7 · generating" {
		t.Errorf("status %q", got)
	}
}

// TestOutputPanelStates: the panel says what it follows and what the
// request does, marks reasoning, starts afresh with each request, and
// offers one stream per request of the cell.
func TestOutputPanelStates(t *testing.T) {
	p := appwidget.NewOutputPanel()
	test.NewTempWindow(t, p.Object())
	if p.Status.Visible() || !strings.HasPrefix(p.Pane.Text(), "Shows the text one stream generates") || !p.Picker.Disabled() {
		t.Fatalf("before a run: status shown %v, pane %q, picker disabled %v", p.Status.Visible(), p.Pane.Text(), p.Picker.Disabled())
	}
	var fed []measure.OutputChunk
	tap := p.NewTap(func(c measure.OutputChunk) { fed = append(fed, c) })
	if tap == nil || p.Status.Text != "Waiting for the first decode cell." {
		t.Fatalf("a new run: tap %v, status %q", tap, p.Status.Text)
	}
	steps := []struct {
		chunks      []measure.OutputChunk
		state, text string
	}{
		{[]measure.OutputChunk{outChunk(measure.OutputStart, 3, "")}, "waiting for the first token", ""},
		{[]measure.OutputChunk{{Kind: measure.OutputText, Cell: outCell, Stream: 2, Request: 3, Text: "Let me think.", Reasoning: true},
			outChunk(measure.OutputText, 3, "Paris.")}, "generating", "[thinking]\nLet me think.\n[answer]\nParis."},
		{[]measure.OutputChunk{{Kind: measure.OutputEnd, Cell: outCell, Stream: 2, Request: 3, FinishReason: "length"}},
			"stream ended at the max output; the next request follows", "[thinking]\nLet me think.\n[answer]\nParis."},
		{[]measure.OutputChunk{outChunk(measure.OutputStart, 9, ""), outChunk(measure.OutputText, 9, "Lyon")}, "generating", "Lyon"},
		{[]measure.OutputChunk{{Kind: measure.OutputEnd, Cell: outCell, Stream: 2, Request: 9, Err: errors.New("boom")}},
			"stream ended: the request failed (the cell's result says why)", "Lyon"},
		{[]measure.OutputChunk{outChunk(measure.OutputJoin, 12, ""), outChunk(measure.OutputText, 12, "rest")},
			"generating (joined mid-answer)", "… rest"},
		{[]measure.OutputChunk{{Kind: measure.OutputEnd, Cell: outCell, Stream: 2, Request: 12, Stopped: true}},
			"stream ended: the cell's measurement is over", "… rest"},
	}
	for i, s := range steps {
		p.Show(s.chunks)
		if !strings.HasSuffix(p.Status.Text, " · "+s.state) || p.Pane.Text() != s.text {
			t.Errorf("step %d: status %q, text %q; want state %q, text %q", i, p.Status.Text, p.Pane.Text(), s.state, s.text)
		}
	}
	if len(p.Picker.Options) != 16 || p.Picker.Selected != "Stream 3" || p.Picker.Disabled() {
		t.Errorf("picker: %d options, %q selected, disabled %v; want 16 streams, stream 3", len(p.Picker.Options), p.Picker.Selected, p.Picker.Disabled())
	}
	p.RunEnded()
	if !strings.HasSuffix(p.Status.Text, "the run has ended") || p.Pane.Text() != "… rest" || !p.Picker.Disabled() {
		t.Errorf("after the run: status %q, text %q, picker disabled %v", p.Status.Text, p.Pane.Text(), p.Picker.Disabled())
	}
}

func TestCoalesceOutput(t *testing.T) {
	var pending []measure.OutputChunk
	for _, c := range []measure.OutputChunk{
		outChunk(measure.OutputStart, 1, ""), outChunk(measure.OutputText, 1, "a"), outChunk(measure.OutputEnd, 1, ""),
		outChunk(measure.OutputStart, 2, ""), outChunk(measure.OutputText, 2, "b"), outChunk(measure.OutputText, 2, "c"),
		{Kind: measure.OutputText, Cell: outCell, Stream: 2, Request: 2, Text: "r", Reasoning: true},
		outChunk(measure.OutputText, 2, strings.Repeat("d", 2*appwidget.OutputMaxBytes)),
	} {
		pending = run.CoalesceOutput(pending, c)
	}
	if len(pending) != 4 || pending[0].Kind != measure.OutputStart || pending[0].Request != 2 ||
		pending[1].Text != "bc" || pending[2].Text != "r" || len(pending[3].Text) != appwidget.OutputMaxBytes {
		t.Fatalf("coalesced to %d chunks: %+v", len(pending), pending[:min(len(pending), 3)])
	}
	pending = run.CoalesceOutput(pending, outChunk(measure.OutputText, 2, "e"))
	if got := pending[3].Text; len(got) != appwidget.OutputMaxBytes || !strings.HasSuffix(got, "de") {
		t.Errorf("the text grew to %d bytes, want the last %d", len(got), appwidget.OutputMaxBytes)
	}
}

// TestAccumulatorCarriesOutput: the tap's chunks reach the next UI update,
// coalesced, and only that one.
func TestAccumulatorCarriesOutput(t *testing.T) {
	var acc run.Accumulator
	for _, c := range []measure.OutputChunk{outChunk(measure.OutputStart, 4, ""), outChunk(measure.OutputText, 4, "Hel"), outChunk(measure.OutputText, 4, "lo")} {
		acc.AddOutput(c)
	}
	u, ok := acc.Take()
	if !ok || len(u.Output) != 2 || u.Output[1].Text != "Hello" {
		t.Fatalf("update %v: %+v, want the start and %q", ok, u.Output, "Hello")
	}
	if u, ok := acc.Take(); ok || u.Output != nil {
		t.Errorf("the next update has %+v (%v), want nothing", u.Output, ok)
	}
}
