package openai

import (
	"bytes"
	"fmt"
	"io"
	"time"
)

const (
	sseInitialBuf = 8 << 10
	// sseMaxEvent bounds one event, in one line or in all its data lines
	// together; a real chunk is a few hundred bytes.
	sseMaxEvent = 16 << 20
)

// errEventTooLarge is an event over sseMaxEvent.
var errEventTooLarge = fmt.Errorf("%w: the server sent an event over %d MiB, the most one event may hold", ErrMalformed, sseMaxEvent>>20)

// sseReader splits a server-sent event stream into the data of its events
// and notes when each event's last byte was read.
//
// It follows the WHATWG rules that matter here: lines end in LF, CRLF or
// CR; "data:" with or without the space; several data lines join with LF;
// lines starting with ':' are comments (keep-alives); other fields are
// ignored; a blank line ends an event. Unlike the spec it also delivers an
// event cut off by the end of the stream, since a server that forgets the
// last blank line still meant it; not one cut off by a failed read (a
// broken connection, a cancelled request), which was not all sent.
type sseReader struct {
	r          io.Reader
	buf        []byte
	start, end int       // buf[start:end] is not yet parsed
	readAt     time.Time // when the last read returned
	data       []byte    // data of the event being assembled
	hasData    bool
	skipLF     bool // the last line ended in CR at the end of the buffer
	eof        bool
	err        error
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: r, buf: make([]byte, sseInitialBuf)}
}

// next returns the data of the next event and when the read that completed
// it returned. The data is valid until the next call. At the end of the
// stream it returns io.EOF; a failed read returns that read's error.
func (s *sseReader) next() (data []byte, arrived time.Time, err error) {
	for {
		line, ok := s.line()
		if !ok {
			if s.err != nil {
				return nil, s.readAt, s.err
			}
			if s.eof {
				if s.start < s.end { // a last line without its line end
					line, s.start = s.buf[s.start:s.end], s.end
					s.field(line)
				}
				if s.hasData {
					return s.dispatch(), s.readAt, nil
				}
				return nil, s.readAt, io.EOF
			}
			if err := s.fill(); err != nil {
				return nil, s.readAt, err
			}
			continue
		}
		if len(line) == 0 {
			if s.hasData {
				return s.dispatch(), s.readAt, nil
			}
			continue
		}
		s.field(line)
		if len(s.data) > sseMaxEvent {
			return nil, s.readAt, errEventTooLarge
		}
	}
}

func (s *sseReader) dispatch() []byte {
	s.hasData = false
	d := s.data
	s.data = s.data[:0]
	return d
}

// line returns the next complete line without its line end.
func (s *sseReader) line() ([]byte, bool) {
	b := s.buf[s.start:s.end]
	if s.skipLF && len(b) > 0 {
		s.skipLF = false
		if b[0] == '\n' {
			s.start++
			b = b[1:]
		}
	}
	lf := bytes.IndexByte(b, '\n')
	scope := b
	if lf >= 0 {
		scope = b[:lf]
	}
	if cr := bytes.IndexByte(scope, '\r'); cr >= 0 {
		switch {
		case cr+1 == len(b):
			s.skipLF = true // the LF of a CRLF may be in the next read
			s.start += cr + 1
		case b[cr+1] == '\n':
			s.start += cr + 2
		default:
			s.start += cr + 1
		}
		return b[:cr], true
	}
	if lf < 0 {
		return nil, false
	}
	s.start += lf + 1
	return b[:lf], true
}

// field applies one non-empty line to the event being assembled.
func (s *sseReader) field(line []byte) {
	if line[0] == ':' {
		return
	}
	name, value := line, []byte(nil)
	if colon := bytes.IndexByte(line, ':'); colon >= 0 {
		name, value = line[:colon], line[colon+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	if string(name) != "data" {
		return // event, id, retry and unknown fields do not matter here
	}
	if s.hasData {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, value...)
	s.hasData = true
}

// fill reads more bytes, making room first.
func (s *sseReader) fill() error {
	if s.start > 0 {
		s.end = copy(s.buf, s.buf[s.start:s.end])
		s.start = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= sseMaxEvent {
			return errEventTooLarge
		}
		grown := make([]byte, 2*len(s.buf))
		copy(grown, s.buf[:s.end])
		s.buf = grown
	}
	n, err := s.r.Read(s.buf[s.end:])
	if n > 0 {
		s.readAt = time.Now()
		s.end += n
	}
	switch {
	case err == io.EOF:
		s.eof = true
	case err != nil:
		s.err = err
	}
	return nil
}
