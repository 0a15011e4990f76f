package sim

import "sync"

// stream carries a sequence's progress from the scheduler goroutine to the
// HTTP handler that serves it. The scheduler only moves counters and pokes
// notify; the handler renders the text, so a step costs O(batch).
type stream struct {
	notify chan struct{} // capacity 1: "something changed"
	mu     sync.Mutex
	tokens int
	loop   int // first looping token, -1 if none
	batch  int // sequences in the step of the first token, a power of two
	done   bool
	failed bool // the server closed before the sequence finished
}

func newStream() *stream { return &stream{notify: make(chan struct{}, 1), loop: -1} }

func (s *stream) poke() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// publish sets the token count; done marks the last token in the same
// update, so a reader never sees the last token without knowing it is last.
func (s *stream) publish(tokens, loopFrom, batch int, done bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.tokens, s.loop, s.batch, s.done = tokens, loopFrom, batch, done
	s.mu.Unlock()
	s.poke()
}

func (s *stream) fail() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.done, s.failed = true, true
	s.mu.Unlock()
	s.poke()
}

// snapshot is the stream's state at one moment.
type snapshot struct {
	tokens, loop, batch int
	done, failed        bool
}

func (s *stream) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot{s.tokens, s.loop, s.batch, s.done, s.failed}
}
