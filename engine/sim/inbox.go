package sim

import "math"

// message is a request to the scheduler goroutine about q.
type message struct {
	q    *seq
	kind msgKind
}

// msgKind is what a message asks for.
type msgKind int

const (
	msgSubmit msgKind = iota // queue q
	msgAbort                 // drop q now
	msgLinger                // q's client left: drop q after the linger fault's time
)

// submit hands q (arrivalS set) to the scheduler; false if the server is closing.
func (s *Server) submit(q *seq) bool {
	select {
	case s.inbox <- message{q: q, kind: msgSubmit}:
		return true
	case <-s.stop:
		return false
	}
}

// abort asks the scheduler to drop q now (a fault cut its stream).
func (s *Server) abort(q *seq) { s.send(message{q: q, kind: msgAbort}) }

// disconnected tells the scheduler that q's client went away: q is dropped
// now, or after Faults.LingerAfterDisconnect.
func (s *Server) disconnected(q *seq) {
	if s.isSGLang() || s.opts.Faults.LingerAfterDisconnect > 0 {
		s.send(message{q: q, kind: msgLinger})
		return
	}
	s.abort(q)
}

func (s *Server) send(m message) {
	select {
	case s.inbox <- m:
	case <-s.stop:
	}
}

func (s *Server) receive(m message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch m.kind {
	case msgAbort:
		s.core.abort(m.q)
	case msgLinger:
		until := s.modelNowS() + s.opts.Faults.LingerAfterDisconnect.Seconds()
		if s.isSGLang() {
			until = math.Inf(1) // until it finishes or /abort_request names it
		}
		s.core.linger(m.q, until)
	default:
		if m.q.state == stDone {
			// Aborted before it reached the scheduler (SGLang mode).
			m.q.out.fail()
			break
		}
		if s.isSGLang() && s.core.lingeringLive() > 0 {
			s.sglang.ranOn++
		}
		s.core.submit(m.q, m.q.arrivalS)
	}
	s.publishGauges()
}
