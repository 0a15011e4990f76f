package openai

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// errBodySpent is GetBody's answer once a request's body has been sent.
var errBodySpent = errors.New("the request body was sent and released")

// spendableBody is a request body that lets go of its bytes once the
// transport has read them all. A streaming request's body holds its whole
// prompt (half a megabyte at 128K tokens) and net/http keeps the request,
// body included, until the answer ends: a decode cell of 64 long-context
// streams would keep 64 prompts for its whole window. Until the body is
// spent, GetBody can still rewind it, so that the transport may retry a
// request that went out on a connection the server had just closed.
type spendableBody struct {
	mu    sync.Mutex
	parts [][]byte // the body, in order; nil once spent
}

// setSpendableBody makes the parts, one after the other, the body of req,
// released once sent. The parts are read, never written.
func setSpendableBody(req *http.Request, parts [][]byte) {
	s := &spendableBody{parts: parts}
	req.ContentLength = 0
	for _, p := range parts {
		req.ContentLength += int64(len(p))
	}
	req.Body, _ = s.open()
	req.GetBody = s.open
}

// open is a reader of the bytes, or errBodySpent once they were all read.
func (s *spendableBody) open() (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parts == nil {
		return nil, errBodySpent
	}
	// The reader advances its own copy of the part list, so that GetBody
	// can still rewind to the whole body.
	return &spendingReader{s: s, parts: append([][]byte{}, s.parts...)}, nil
}

func (s *spendableBody) spend() {
	s.mu.Lock()
	s.parts = nil
	s.mu.Unlock()
}

// spendingReader reads a spendableBody and spends it at the end.
type spendingReader struct {
	s     *spendableBody
	parts [][]byte // what is left to read; nil once read to the end
}

func (sr *spendingReader) Read(p []byte) (int, error) {
	if sr.parts == nil {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && len(sr.parts) > 0 {
		c := copy(p[n:], sr.parts[0])
		n += c
		if sr.parts[0] = sr.parts[0][c:]; len(sr.parts[0]) == 0 {
			sr.parts = sr.parts[1:]
		}
	}
	if len(sr.parts) == 0 {
		sr.parts = nil
		sr.s.spend()
	}
	return n, nil
}

// Close does nothing: the bytes go once read, not when the transport is done.
func (sr *spendingReader) Close() error { return nil }
