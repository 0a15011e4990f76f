package shell

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

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
	p := newOutputPanel()
	w := test.NewTempWindow(t, p.Object())
	w.Resize(fyne.NewSize(500, 400))
	small := p.Object().MinSize()
	p.newTap(func(measure.OutputChunk) {})
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
	if n := len(p.text); n > outputMaxBytes || n < outputMaxBytes-len(piece) {
		t.Errorf("the panel keeps %d bytes, want the last %d", n, outputMaxBytes)
	}
	if !strings.HasSuffix(p.text, "end of update v ") {
		t.Errorf("the panel ends with %q, want the last text received", p.text[len(p.text)-20:])
	}
	if n := len(p.pane.Lines); n > outputMaxBytes/len(piece)+2 {
		t.Errorf("the pane holds %d lines, want at most %d", n, outputMaxBytes/len(piece)+2)
	}
	if got := p.Object().MinSize(); got.Width > small.Width {
		t.Errorf("min width %v after 100 KB of 1,000-character lines, was %v", got.Width, small.Width)
	}
	if got := p.status.Text; got != "Sustained decode 8K × 16 · stream 3 · request 7 · generating" {
		t.Errorf("status %q", got)
	}
}

// TestOutputPanelStates: the panel says what it follows and what the
// request does, marks reasoning, starts afresh with each request, and
// offers one stream per request of the cell.
func TestOutputPanelStates(t *testing.T) {
	p := newOutputPanel()
	test.NewTempWindow(t, p.Object())
	if p.status.Visible() || !strings.HasPrefix(p.pane.Text(), "Shows the text one stream generates") || !p.picker.Disabled() {
		t.Fatalf("before a run: status shown %v, pane %q, picker disabled %v", p.status.Visible(), p.pane.Text(), p.picker.Disabled())
	}
	var fed []measure.OutputChunk
	tap := p.newTap(func(c measure.OutputChunk) { fed = append(fed, c) })
	if tap == nil || p.status.Text != "Waiting for the first decode cell." {
		t.Fatalf("a new run: tap %v, status %q", tap, p.status.Text)
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
		if !strings.HasSuffix(p.status.Text, " · "+s.state) || p.pane.Text() != s.text {
			t.Errorf("step %d: status %q, text %q; want state %q, text %q", i, p.status.Text, p.pane.Text(), s.state, s.text)
		}
	}
	if len(p.picker.Options) != 16 || p.picker.Selected != "Stream 3" || p.picker.Disabled() {
		t.Errorf("picker: %d options, %q selected, disabled %v; want 16 streams, stream 3", len(p.picker.Options), p.picker.Selected, p.picker.Disabled())
	}
	p.runEnded()
	if !strings.HasSuffix(p.status.Text, "the run has ended") || p.pane.Text() != "… rest" || !p.picker.Disabled() {
		t.Errorf("after the run: status %q, text %q, picker disabled %v", p.status.Text, p.pane.Text(), p.picker.Disabled())
	}
}

func TestCoalesceOutput(t *testing.T) {
	var pending []measure.OutputChunk
	for _, c := range []measure.OutputChunk{
		outChunk(measure.OutputStart, 1, ""), outChunk(measure.OutputText, 1, "a"), outChunk(measure.OutputEnd, 1, ""),
		outChunk(measure.OutputStart, 2, ""), outChunk(measure.OutputText, 2, "b"), outChunk(measure.OutputText, 2, "c"),
		{Kind: measure.OutputText, Cell: outCell, Stream: 2, Request: 2, Text: "r", Reasoning: true},
		outChunk(measure.OutputText, 2, strings.Repeat("d", 2*outputMaxBytes)),
	} {
		pending = coalesceOutput(pending, c)
	}
	if len(pending) != 4 || pending[0].Kind != measure.OutputStart || pending[0].Request != 2 ||
		pending[1].Text != "bc" || pending[2].Text != "r" || len(pending[3].Text) != outputMaxBytes {
		t.Fatalf("coalesced to %d chunks: %+v", len(pending), pending[:min(len(pending), 3)])
	}
	pending = coalesceOutput(pending, outChunk(measure.OutputText, 2, "e"))
	if got := pending[3].Text; len(got) != outputMaxBytes || !strings.HasSuffix(got, "de") {
		t.Errorf("the text grew to %d bytes, want the last %d", len(got), outputMaxBytes)
	}
}

// TestAccumulatorCarriesOutput: the tap's chunks reach the next UI update,
// coalesced, and only that one.
func TestAccumulatorCarriesOutput(t *testing.T) {
	var acc accumulator
	for _, c := range []measure.OutputChunk{outChunk(measure.OutputStart, 4, ""), outChunk(measure.OutputText, 4, "Hel"), outChunk(measure.OutputText, 4, "lo")} {
		acc.addOutput(c)
	}
	u, ok := acc.take()
	if !ok || len(u.output) != 2 || u.output[1].Text != "Hello" {
		t.Fatalf("update %v: %+v, want the start and %q", ok, u.output, "Hello")
	}
	if u, ok := acc.take(); ok || u.output != nil {
		t.Errorf("the next update has %+v (%v), want nothing", u.output, ok)
	}
}
