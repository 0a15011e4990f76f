package measure

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"speedmatrix/engine"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/engine/sim"
)

// sentRecorder keeps the body of every generation response a server
// wrote: what it sent, byte for byte.
type sentRecorder struct {
	mu     sync.Mutex
	bodies []*bytes.Buffer
}

func (rc *sentRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "completions") {
			h.ServeHTTP(w, r)
			return
		}
		b := &bytes.Buffer{}
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, b)
		rc.mu.Unlock()
		h.ServeHTTP(&teeWriter{ResponseWriter: w, rc: rc, b: b}, r)
	})
}

type teeWriter struct {
	http.ResponseWriter
	rc *sentRecorder
	b  *bytes.Buffer
}

func (t *teeWriter) Write(p []byte) (int, error) {
	t.rc.mu.Lock()
	t.b.Write(p)
	t.rc.mu.Unlock()
	return t.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController flush the real writer.
func (t *teeWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// texts is the generated text of every recorded response: its reasoning
// and content deltas (or completions text) in the order sent.
func (rc *sentRecorder) texts(t *testing.T) []string {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, b := range rc.bodies {
		var text strings.Builder
		for ev := range strings.SplitSeq(b.String(), "\n\n") {
			data, ok := strings.CutPrefix(strings.TrimSpace(ev), "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			var c struct {
				Choices []struct {
					Text  string
					Delta struct {
						Content   string
						Reasoning string `json:"reasoning_content"`
					}
				}
			}
			if err := json.Unmarshal([]byte(data), &c); err != nil {
				t.Fatalf("the simulator sent %q: %v", data, err)
			}
			for _, ch := range c.Choices {
				text.WriteString(ch.Delta.Reasoning + ch.Delta.Content + ch.Text)
			}
		}
		out = append(out, text.String())
	}
	return out
}

// tappedRequest is what a tap passed on about one request.
type tappedRequest struct {
	stream         int
	start, join    bool
	text           strings.Builder
	end            *OutputChunk
	chunks, others int // text chunks; chunks of another cell or stream than the first
}

// runTapped runs one chat decode cell of 3 streams against the tiny
// simulator with tap, and returns the texts the simulator sent and the cell.
func runTapped(t *testing.T, tap *OutputTap) ([]string, engine.Cell) {
	t.Helper()
	p, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sim.Options{Profile: p, TimeScale: 20})
	if err != nil {
		t.Fatal(err)
	}
	var rc sentRecorder
	srv := httptest.NewServer(rc.wrap(s))
	t.Cleanup(func() { srv.Close(); s.Close() })
	plan := decodePlan(engine.K, 3, 600*time.Millisecond, 48, engine.APIChat)
	rep, _, err := runAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}, RunOptions: RunOptions{Output: tap}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	res := findResult(t, rep, engine.PhaseDecode)
	if res.Status != engine.StatusValid {
		t.Fatalf("the cell is %s (%s), want Valid", res.Status, res.Error)
	}
	return rc.texts(t), res.Cell
}

// collector is a tap's function that groups chunks by request, in order.
type collector struct {
	mu    sync.Mutex
	reqs  map[int]*tappedRequest
	order []int // requests in the order of their first chunk
	after func(c OutputChunk)
}

func (c *collector) add(ch OutputChunk) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.reqs[ch.Request]
	if r == nil {
		r = &tappedRequest{stream: ch.Stream}
		c.reqs[ch.Request] = r
		c.order = append(c.order, ch.Request)
	}
	if ch.Stream != r.stream {
		r.others++
	}
	switch ch.Kind {
	case OutputStart:
		r.start = true
	case OutputJoin:
		r.join = true
	case OutputText:
		r.chunks++
		r.text.WriteString(ch.Text)
	case OutputEnd:
		r.end = &ch
	}
	if c.after != nil {
		c.after(ch)
	}
}

// requestsOf counts the requests of stream passed on so far (c.mu held).
func (c *collector) requestsOf(stream int) int {
	n := 0
	for _, id := range c.order {
		if c.reqs[id].stream == stream {
			n++
		}
	}
	return n
}

func sentOnce(sent []string, text string) int {
	n := 0
	for _, s := range sent {
		if s == text {
			n++
		}
	}
	return n
}

// TestOutputTapFollowsStream: the tap passes on the chosen stream's
// requests, each from its start, its text in order and equal to what the
// simulator sent for that request, and nothing of the other streams.
func TestOutputTapFollowsStream(t *testing.T) {
	t.Parallel()
	col := &collector{reqs: map[int]*tappedRequest{}}
	tap := NewOutputTap(col.add)
	tap.Follow(1)
	sent, cell := runTapped(t, tap)
	finished := 0
	for _, id := range col.order {
		r := col.reqs[id]
		if r.stream != 1 || r.others != 0 || !r.start || r.join {
			t.Fatalf("request %d: stream %d (%d chunks of others), start %v, join %v; want stream 1 only, from its start", id, r.stream, r.others, r.start, r.join)
		}
		if r.end == nil || r.end.Cell != cell {
			t.Fatalf("request %d ended %+v, want an end in cell %+v", id, r.end, cell)
		}
		text := r.text.String()
		switch {
		case r.end.Stopped:
			// Closed by the window's end: what came is the start of one response.
			if !anyHas(sent, text, strings.HasPrefix) {
				t.Errorf("stopped request %d: %q is the start of no response the simulator sent", id, text)
			}
		case r.end.FinishReason == "length":
			finished++
			if n := sentOnce(sent, text); n != 1 || r.chunks < 40 {
				t.Errorf("request %d: %d chunks, %q matches %d responses the simulator sent; want its one response", id, r.chunks, text, n)
			}
		default:
			t.Errorf("request %d ended %+v, want length or stopped", id, r.end)
		}
	}
	t.Logf("%d requests of stream 1 followed, %d to their end; the simulator sent %d responses", len(col.order), finished, len(sent))
	if finished < 2 {
		t.Fatalf("%d finished requests followed, want several (the stream restarts)", finished)
	}
}

// TestOutputTapSwitches: following another stream mid-request says so
// (OutputJoin), and what follows is the rest of that request's response.
func TestOutputTapSwitches(t *testing.T) {
	t.Parallel()
	col := &collector{reqs: map[int]*tappedRequest{}}
	tap := NewOutputTap(col.add)
	switchedAt := 0 // how many requests had been passed on at the switch
	col.after = func(c OutputChunk) {
		// In stream 0's second request: by then every stream has been
		// generating for a whole request, so stream 2 is mid-request
		// (its first request may not have been sent yet at stream 0's
		// first token, on a busy machine).
		if switchedAt == 0 && c.Kind == OutputText && c.Stream == 0 && col.requestsOf(0) >= 2 {
			switchedAt = len(col.order)
			tap.Follow(7) // past the last stream: follows stream 2
		}
	}
	sent, _ := runTapped(t, tap)
	var joined *tappedRequest // stream 2's first request passed on after the switch
	for i, id := range col.order {
		r := col.reqs[id]
		if r.stream == 2 && switchedAt > 0 && i >= switchedAt && joined == nil {
			joined = r
		}
		if r.stream == 0 && switchedAt > 0 && i >= switchedAt {
			t.Errorf("request %d of stream 0 passed on after the switch", id)
		}
	}
	if joined == nil {
		t.Fatalf("nothing of stream 2 passed on after the switch (at request %d of %d)", switchedAt, len(col.order))
	}
	text := joined.text.String()
	part := strings.Contains
	switch {
	case !joined.join && joined.start:
		// On a busy machine stream 2 can be between two requests at the
		// switch: its next one is passed on whole, from its start.
		part = strings.HasPrefix
	case !joined.join:
		t.Fatalf("stream 2's first request after the switch is neither an OutputJoin nor an OutputStart: %+v", joined)
	case joined.end != nil && joined.end.FinishReason == "length":
		part = strings.HasSuffix // it ran to its end: the rest of one response
	}
	if text == "" || !anyHas(sent, text, part) {
		t.Errorf("joined request (ended %+v): %q is part of no response the simulator sent", joined.end, text)
	}
}

// anyHas reports whether has(s, text) holds for one of sent.
func anyHas(sent []string, text string, has func(s, text string) bool) bool {
	for _, s := range sent {
		if has(s, text) {
			return true
		}
	}
	return false
}

// BenchmarkStreamOutput is the tap's cost per chunk: without a tap, with
// one that follows another stream, and for the followed stream (the tap's
// lock and a call to a function that does nothing).
func BenchmarkStreamOutput(b *testing.B) {
	cell := engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8 * engine.K, Concurrency: 128}
	tap := NewOutputTap(func(OutputChunk) {})
	for _, bc := range []struct {
		name string
		tap  *OutputTap
		w    int
	}{{"no tap", nil, 5}, {"other stream", tap, 5}, {"followed", tap, 0}} {
		b.Run(bc.name, func(b *testing.B) {
			out := streamOutput{tap: bc.tap, cell: cell, stream: bc.w, streams: 128, request: 1}
			for b.Loop() {
				out.text("", " token")
			}
		})
	}
}
