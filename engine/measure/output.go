package measure

import (
	"speedmatrix/engine"
	"sync"
	"sync/atomic"
)

// OutputKind says what an OutputChunk reports.
type OutputKind int

// What an OutputChunk reports about the followed stream.
const (
	// OutputStart: the stream sent a new request; its text starts afresh.
	OutputStart OutputKind = iota
	// OutputJoin: the tap began following a stream in the middle of a
	// request (the text so far is not repeated).
	OutputJoin
	// OutputText: Text is the next piece the request generated.
	OutputText
	// OutputEnd: the request ended (FinishReason, Stopped or Err says how).
	OutputEnd
)

// OutputChunk is what the followed stream of a decode cell did: a request
// began or ended, or the next piece of the text it generates arrived.
type OutputChunk struct {
	Kind   OutputKind
	Cell   engine.Cell
	Stream int // which of the cell's streams, 0-based
	// Request numbers the run's requests; a stream sends one after another.
	Request int
	Text    string
	// Reasoning is set when Text is reasoning (thinking) rather than the answer.
	Reasoning bool
	// FinishReason is the server's reason on OutputEnd ("length", "stop").
	FinishReason string
	// Stopped is set on OutputEnd when the run closed the stream: the
	// cell's window ended, or the run was cancelled.
	Stopped bool
	Err     error // on OutputEnd, why the request failed
}

// OutputTap follows one stream of each decode cell and passes what it
// generates to a function (RunOptions.Output): a caller can show that the
// model produces sensible text. A run without a tap pays one nil check per
// chunk; with one, one atomic load per chunk of every stream, and a call
// per chunk of the followed stream only.
type OutputTap struct {
	stream atomic.Int64
	f      func(OutputChunk)

	mu   sync.Mutex // serialises f; guards last
	last [2]int     // stream and request of the last chunk passed on
}

// NewOutputTap is a tap that follows the first stream of each decode cell
// and calls f on the stream's goroutine, in order; f must return quickly.
func NewOutputTap(f func(OutputChunk)) *OutputTap {
	return &OutputTap{f: f, last: [2]int{-1, -1}}
}

// Follow makes the tap follow stream i (0-based) from now on, in this cell
// and the next; a cell with fewer streams is followed on its last one. Safe
// from any goroutine.
func (t *OutputTap) Follow(i int) { t.stream.Store(int64(max(i, 0))) }

// follows reports whether the tap follows stream w of a cell of n streams.
func (t *OutputTap) follows(w, n int) bool {
	return t != nil && min(int(t.stream.Load()), n-1) == w
}

// pass hands c on, preceded by an OutputJoin when the tap has switched to
// this request in its middle.
func (t *OutputTap) pass(c OutputChunk) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id := [2]int{c.Stream, c.Request}
	if c.Kind != OutputStart && id != t.last {
		if c.Kind == OutputEnd {
			return // the end of a request the caller never saw
		}
		t.f(OutputChunk{Kind: OutputJoin, Cell: c.Cell, Stream: c.Stream, Request: c.Request})
	}
	t.last = id
	t.f(c)
}

// streamOutput is what one request of a decode cell tells the run's tap,
// if it has one and follows this stream.
type streamOutput struct {
	tap     *OutputTap
	cell    engine.Cell
	stream  int
	streams int
	request int
}

func (s *streamOutput) chunk(kind OutputKind) OutputChunk {
	return OutputChunk{Kind: kind, Cell: s.cell, Stream: s.stream, Request: s.request}
}

func (s *streamOutput) start() {
	if s.tap.follows(s.stream, s.streams) {
		s.tap.pass(s.chunk(OutputStart))
	}
}

// text passes on the text of one chunk of the stream: reasoning, then content.
func (s *streamOutput) text(reasoning, content string) {
	if s.tap == nil || reasoning == "" && content == "" || !s.tap.follows(s.stream, s.streams) {
		return
	}
	if reasoning != "" {
		c := s.chunk(OutputText)
		c.Text, c.Reasoning = reasoning, true
		s.tap.pass(c)
	}
	if content != "" {
		c := s.chunk(OutputText)
		c.Text = content
		s.tap.pass(c)
	}
}

// end says how the request ended: with the server's finish reason, closed
// by the run (stopped), or failed (err).
func (s *streamOutput) end(finish string, stopped bool, err error) {
	if !s.tap.follows(s.stream, s.streams) {
		return
	}
	c := s.chunk(OutputEnd)
	c.FinishReason, c.Stopped = finish, stopped
	if !stopped {
		c.Err = err
	}
	s.tap.pass(c)
}
