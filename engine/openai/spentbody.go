package openai

import (
	"bytes"
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
	mu sync.Mutex
	b  []byte // nil once spent
}

// setSpendableBody makes b the body of req, released once sent.
func setSpendableBody(req *http.Request, b []byte) {
	s := &spendableBody{b: b}
	req.ContentLength = int64(len(b))
	req.Body, _ = s.open()
	req.GetBody = s.open
}

// open is a reader of the bytes, or errBodySpent once they were all read.
func (s *spendableBody) open() (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b == nil {
		return nil, errBodySpent
	}
	return &spendingReader{s: s, r: bytes.NewReader(s.b)}, nil
}

func (s *spendableBody) spend() {
	s.mu.Lock()
	s.b = nil
	s.mu.Unlock()
}

// spendingReader reads a spendableBody and spends it at the end.
type spendingReader struct {
	s *spendableBody
	r *bytes.Reader // nil once read to the end
}

func (sr *spendingReader) Read(p []byte) (int, error) {
	if sr.r == nil {
		return 0, io.EOF
	}
	n, err := sr.r.Read(p)
	if sr.r.Len() == 0 {
		sr.r = nil
		sr.s.spend()
	}
	return n, err
}

// Close does nothing: the bytes go once read, not when the transport is done.
func (sr *spendingReader) Close() error { return nil }
