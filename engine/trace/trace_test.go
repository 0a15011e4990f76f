package trace

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

// TestParse reads Mooncake lines: times scaled from the first request's,
// lengths and ids kept, blank lines skipped, and the implied hit rate from
// the ids: a block is a hit only behind a prefix of hits.
func TestParse(t *testing.T) {
	in := `{"timestamp": 1000, "input_length": 1024, "output_length": 10, "hash_ids": [1, 2]}

{"timestamp": 1500, "input_length": 1100, "output_length": 20, "hash_ids": [1, 2, 3]}
{"timestamp": 3000, "input_length": 600, "output_length": 5, "hash_ids": [9, 2]}
{"timestamp": 3000, "input_length": 10, "output_length": 5}
`
	tr, err := Parse(strings.NewReader(in), "t.jsonl", Options{TimeScale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Requests) != 4 || tr.Sorted || tr.Cut != "" || tr.BlockSize != 512 {
		t.Fatalf("%d requests, sorted %v, cut %q, block %d", len(tr.Requests), tr.Sorted, tr.Cut, tr.BlockSize)
	}
	if r := tr.Requests[1]; r.At != 250*time.Millisecond || r.Input != 1100 || r.Output != 20 || len(r.Blocks) != 3 || r.Line != 3 {
		t.Errorf("second request %+v", r)
	}
	if tr.Span() != time.Second || tr.LongestInput() != 1100 || tr.LongestOutput() != 20 {
		t.Errorf("span %s, longest %d in, %d out", tr.Span(), tr.LongestInput(), tr.LongestOutput())
	}
	// Request 2 finds blocks 1 and 2 (1,024 tokens); request 3's block 2
	// follows a new block 9, so it is no hit.
	if got, want := tr.ImpliedHitRate(), 1024.0/(1024+1100+600+10); math.Abs(got-want) > 1e-12 {
		t.Errorf("implied hit rate %v, want %v", got, want)
	}
}

// TestParseSortsOutOfOrder: timestamps out of order are sorted, and say so.
func TestParseSortsOutOfOrder(t *testing.T) {
	in := `{"timestamp": 500, "input_length": 10, "output_length": 1, "hash_ids": [1]}
{"timestamp": 100, "input_length": 20, "output_length": 1, "hash_ids": [2]}
{"timestamp": 300, "input_length": 30, "output_length": 1, "hash_ids": [3]}
`
	tr, err := Parse(strings.NewReader(in), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Sorted || tr.Requests[0].Input != 20 || tr.Requests[1].Input != 30 || tr.Requests[2].At != 400*time.Millisecond || tr.Requests[0].Line != 2 {
		t.Errorf("sorted %v, requests %+v", tr.Sorted, tr.Requests)
	}
}

// TestParseRefusesBadLines: each bad line is refused in one line that
// names the file and the line and says what to do.
func TestParseRefusesBadLines(t *testing.T) {
	good := `{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]}` + "\n"
	for _, c := range []struct{ name, line, want string }{
		{"not JSON", `{"timestamp": 0,`, "line 2: not JSON"},
		{"wrong shape", `{"timestamp": "soon", "input_length": 1, "output_length": 1}`, "line 2: not a Mooncake request"},
		{"no timestamp", `{"input_length": 1, "output_length": 1}`, `line 2: no "timestamp"`},
		{"no lengths", `{"timestamp": 1}`, `line 2: no "input_length" or "output_length"`},
		{"negative input", `{"timestamp": 1, "input_length": -5, "output_length": 1}`, "line 2: input_length -5: use a whole number of tokens from 1 to 10000000"},
		{"absurd output", `{"timestamp": 1, "input_length": 5, "output_length": 1e15}`, "line 2: output_length 1e+15: use a whole number"},
		{"fraction", `{"timestamp": 1, "input_length": 5.5, "output_length": 1}`, "line 2: input_length 5.5"},
		{"negative time", `{"timestamp": -1, "input_length": 5, "output_length": 1}`, "line 2: timestamp -1 ms"},
		{"string id", `{"timestamp": 1, "input_length": 5, "output_length": 1, "hash_ids": ["abc"]}`, `line 2: hash_ids[0] is "abc", not a non-negative integer`},
		{"float id", `{"timestamp": 1, "input_length": 5, "output_length": 1, "hash_ids": [1.5]}`, "line 2: hash_ids[0] is 1.5"},
		{"too few ids", `{"timestamp": 1, "input_length": 1500, "output_length": 1, "hash_ids": [1, 2]}`, "line 2: input_length 1500 is 3 blocks of 512 tokens, but it has 2 hash ids"},
		{"too many ids", `{"timestamp": 1, "input_length": 100, "output_length": 1, "hash_ids": [1, 2]}`, "line 2: input_length 100 is 1 blocks of 512 tokens, but it has 2 hash ids"},
	} {
		_, err := Parse(strings.NewReader(good+c.line+"\n"), "t.jsonl", Options{})
		if err == nil || !strings.Contains(err.Error(), "t.jsonl "+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := Parse(strings.NewReader("\n\n"), "t.jsonl", Options{}); err == nil || !strings.Contains(err.Error(), "no request") {
		t.Errorf("an empty trace: %v", err)
	}
	for _, o := range []Options{{TimeScale: -1}, {TimeScale: math.NaN()}, {BlockSize: -1}, {MaxRequests: MaxRequests + 1}} {
		if CheckOptions(o) == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestParseBounds: a line over the bound is refused without reading it
// all into memory twice; a trace of more requests than asked for is cut,
// and says so; one whose replay would last over a day is refused.
func TestParseBounds(t *testing.T) {
	long := `{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [` + strings.Repeat("1,", MaxLineBytes/2) + `1]}`
	if _, err := Parse(strings.NewReader(long), "big.jsonl", Options{}); err == nil || !strings.Contains(err.Error(), "big.jsonl line 1: longer than 1 MiB") {
		t.Errorf("a long line: %v", err)
	}
	tr, err := Parse(endless(), "endless.jsonl", Options{MaxRequests: 1000})
	if err != nil || len(tr.Requests) != 1000 || tr.Cut != "the first 1000 requests" {
		t.Errorf("an endless trace: %v, %d requests, cut %q", err, len(tr.Requests), tr.Cut)
	}
	tr, err = Parse(endless(), "endless.jsonl", Options{})
	if err != nil || len(tr.Requests) != MaxRequests || !strings.Contains(tr.Cut, "the most a replay holds") {
		t.Errorf("an endless trace without a bound: %v, cut %q", err, tr.Cut)
	}
	slow := `{"timestamp": 0, "input_length": 1, "output_length": 1}
{"timestamp": 90000000, "input_length": 1, "output_length": 1}`
	if _, err := Parse(strings.NewReader(slow), "slow.jsonl", Options{}); err == nil || !strings.Contains(err.Error(), "lower --time-scale") {
		t.Errorf("a trace of 25 hours: %v", err)
	}
	if tr, err := Parse(strings.NewReader(slow), "slow.jsonl", Options{TimeScale: 0.5}); err != nil || tr.Span() != 12*time.Hour+30*time.Minute {
		t.Errorf("the same at half time: %v", err)
	}
}

// endless is a trace that never ends: ten million lines and more.
func endless() io.Reader {
	return io.MultiReader(readerFunc(func(p []byte) (int, error) {
		var b bytes.Buffer
		for b.Len() < len(p)-200 {
			fmt.Fprintf(&b, `{"timestamp": 1, "input_length": 600, "output_length": 1, "hash_ids": [1, 2]}`+"\n")
		}
		return copy(p, b.Bytes()), nil
	}))
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
