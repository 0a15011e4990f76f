package openai

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// sseCases is the table of event stream edge cases, shared by the reader
// tests and the seeds of FuzzSSE.
var sseCases = []struct {
	name string
	in   string
	want []string
}{
	{"one event", "data: {\"a\":1}\n\n", []string{`{"a":1}`}},
	{"no space after colon", "data:x\n\n", []string{"x"}},
	{"only one space is dropped", "data:  x\n\n", []string{" x"}},
	{"CRLF", "data: x\r\n\r\ndata: y\r\n\r\n", []string{"x", "y"}},
	{"CR alone", "data: x\r\rdata: y\r\r", []string{"x", "y"}},
	{"keep-alive comments", ": ping\n\ndata: x\n\n: ping\n\n", []string{"x"}},
	{"several events", "data: a\n\ndata: b\n\ndata: [DONE]\n\n", []string{"a", "b", "[DONE]"}},
	{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}},
	{"other fields ignored", "event: message\nid: 3\nretry: 10\ndata: x\n\n", []string{"x"}},
	{"data without colon", "data\n\n", []string{""}},
	{"missing last blank line", "data: x\n\ndata: [DONE]\n", []string{"x", "[DONE]"}},
	{"missing last line end", "data: x\n\ndata: [DONE]", []string{"x", "[DONE]"}},
	{"empty stream", "", nil},
	{"only comments", ": a\n: b\n", nil},
	{"blank lines around", "\n\n\ndata: x\n\n\n\n", []string{"x"}},
	{"event without data", "event: x\n\n", nil},
	{"colon in value", "data: {\"k\":\"a:b\"}\n\n", []string{`{"k":"a:b"}`}},
	{"mixed line ends", "data: a\r\n\ndata: b\n\r\n", []string{"a", "b"}},
}

// partsReader returns its parts one per Read, like a network connection
// returning one segment at a time.
type partsReader struct{ parts []string }

func (r *partsReader) Read(p []byte) (int, error) {
	for len(r.parts) > 0 && r.parts[0] == "" {
		r.parts = r.parts[1:]
	}
	if len(r.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.parts[0])
	r.parts[0] = r.parts[0][n:]
	return n, nil
}

func readAllEvents(t testing.TB, r io.Reader) ([]string, error) {
	t.Helper()
	s := newSSEReader(r)
	var got []string
	for {
		data, _, err := s.next()
		if err != nil {
			if err == io.EOF {
				return got, nil
			}
			return got, err
		}
		got = append(got, string(data))
	}
}

func TestSSEReaderCases(t *testing.T) {
	for _, tc := range sseCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAllEvents(t, &partsReader{parts: []string{tc.in}})
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("events = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestSSEReaderEverySplit feeds each case in two reads split at every
// offset, and one byte per read: the events must not change.
func TestSSEReaderEverySplit(t *testing.T) {
	for _, tc := range sseCases {
		for k := 0; k <= len(tc.in); k++ {
			got, err := readAllEvents(t, &partsReader{parts: []string{tc.in[:k], tc.in[k:]}})
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("%s split at %d: events = %q, %v; want %q", tc.name, k, got, err, tc.want)
			}
		}
		bytewise := make([]string, len(tc.in))
		for i := range tc.in {
			bytewise[i] = tc.in[i : i+1]
		}
		if got, _ := readAllEvents(t, &partsReader{parts: bytewise}); !slices.Equal(got, tc.want) {
			t.Fatalf("%s byte by byte: events = %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestSSEReaderLargeEvent checks that an event larger than the initial
// buffer grows it instead of failing.
func TestSSEReaderLargeEvent(t *testing.T) {
	big := make([]byte, 3*sseInitialBuf)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	got, err := readAllEvents(t, &partsReader{parts: []string{"data: " + string(big) + "\n\ndata: y\n\n"}})
	if err != nil || len(got) != 2 || got[0] != string(big) || got[1] != "y" {
		t.Fatalf("got %d events, err %v; want the big event and y", len(got), err)
	}
}

// TestSSEReaderEventTooLarge: an event over the limit, in one line or in
// many data lines, fails with ErrMalformed naming the limit, without
// reading the rest.
func TestSSEReaderEventTooLarge(t *testing.T) {
	line := strings.Repeat("x", 1<<20)
	for name, in := range map[string]string{
		"one line":   "data: " + strings.Repeat(line, 17) + "\n\n",
		"many lines": strings.Repeat("data: "+line+"\n", 17) + "\n",
	} {
		got, err := readAllEvents(t, &partsReader{parts: []string{in, "data: after\n\n"}})
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "an event over 16 MiB, the most one event may hold") || len(got) != 0 {
			t.Errorf("%s: events %d, err %v; want none and an event over 16 MiB", name, len(got), err)
		}
	}
}

// errReader returns its data and then a read error, as a reset connection does.
type errReader struct {
	data string
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	got, err := readAllEvents(t, &errReader{data: "data: a\n\ndata: b\n\n", err: boom})
	if !errors.Is(err, boom) || !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("events = %q, err = %v; want a, b then %v", got, err, boom)
	}
}

// timedReader notes the time at the end of every Read.
type timedReader struct {
	r     io.Reader
	reads []time.Time
}

// Read reads from r.r and notes when it returned.
func (r *timedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.reads = append(r.reads, time.Now())
	return n, err
}

// TestSSEArrivalIsReadTime checks that an event's time is when the read
// that completed it returned, not when its first byte came.
func TestSSEArrivalIsReadTime(t *testing.T) {
	r := &timedReader{r: &partsReader{parts: []string{"data: a", "\n\n"}}}
	_, at, err := newSSEReader(r).next()
	if err != nil || len(r.reads) != 2 || at.Before(r.reads[1]) {
		t.Fatalf("arrived %v (err %v), reads %v: want the second read's time", at, err, r.reads)
	}
}

// FuzzSSE reads arbitrary bytes in one read and split in two: no panic, the
// same events both ways, and for every event the fast chunk parser agrees
// with encoding/json.
func FuzzSSE(f *testing.F) {
	for _, tc := range sseCases {
		f.Add(tc.in, len(tc.in)/2)
	}
	for _, tc := range chunkCases {
		f.Add("data: "+tc.in+"\n\n", 7)
	}
	f.Fuzz(func(t *testing.T, in string, split int) {
		whole, errWhole := readAllEvents(t, &partsReader{parts: []string{in}})
		if split < 0 {
			split = -split
		}
		if len(in) > 0 {
			split %= len(in) + 1
		} else {
			split = 0
		}
		parts, errParts := readAllEvents(t, &partsReader{parts: []string{in[:split], in[split:]}})
		if (errWhole == nil) != (errParts == nil) || !slices.Equal(whole, parts) {
			t.Fatalf("whole: %q, %v; split at %d: %q, %v", whole, errWhole, split, parts, errParts)
		}
		for _, data := range whole {
			compareParsers(t, []byte(data))
		}
	})
}
