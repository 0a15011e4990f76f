// Package trace reads request traces in Mooncake's JSONL format, the one
// vllm bench serve, GuideLLM and AIPerf replay: one request a line,
//
//	{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59]}
//
// with its arrival in milliseconds from the trace's start and the ids of
// its prompt's blocks (of BlockSize tokens, the last one partial): equal
// ids are equal blocks, a shared prefix. It bounds what it reads where it
// reads it, and says what the trace implies of a prefix cache: the share
// of prompt tokens an unbounded cache would hold.
package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"speedmatrix/engine"
)

// Bounds of a trace: a mistaken or hostile file (a gigabyte of lines, a
// length of 10^15) is cut or refused where it is read, in bounded memory.
const (
	// DefaultBlockSize is Mooncake's block: 512 tokens a hash id.
	DefaultBlockSize = 512
	// MaxBlockSize is the largest block a trace may name.
	MaxBlockSize = 1 << 16
	// MaxRequests is the most requests a replay reads; a longer trace is
	// cut there, and says so.
	MaxRequests = 100_000
	// MaxBlocks is the most hash ids a replay holds in all (32 MiB); a
	// trace past it is cut at the line that reaches it.
	MaxBlocks = 4 << 20
	// MaxLineBytes is the longest line: a prompt of 10^6 tokens has under
	// 2,000 ids of 512 tokens, some 20 KB.
	MaxLineBytes = 1 << 20
	// MaxInputTokens and MaxOutputTokens bound one request's lengths, past
	// any model's context; the model's own limit is checked before the
	// replay starts.
	MaxInputTokens  = 10_000_000
	MaxOutputTokens = 1_000_000
	// MaxSpan is the longest a replay may last once scaled.
	MaxSpan = 24 * time.Hour
	// maxTimestampMs bounds a timestamp before scaling: a year.
	maxTimestampMs = 365 * 24 * 3600 * 1000
)

// Options are how a trace is read.
type Options struct {
	// TimeScale multiplies every arrival time: 0.5 replays twice as fast.
	// 0 means 1.
	TimeScale float64
	// BlockSize is the tokens per hash id; 0 means DefaultBlockSize.
	BlockSize int
	// MaxRequests replays the first requests only (0: up to MaxRequests).
	MaxRequests int
}

// Request is one request of a trace, as it will be replayed.
type Request struct {
	// At is when it is due after the replay's start, scaled.
	At     time.Duration
	Input  int      // prompt tokens
	Output int      // output tokens (max_tokens, with ignore_eos)
	Blocks []uint64 // its prompt's block ids, ceil(Input ÷ BlockSize) of them
	Line   int      // its line in the file, for what is said about it
}

// Trace is a trace read for replay: its requests in arrival order, and
// what was done to them on the way.
type Trace struct {
	Name      string // the file's base name
	BlockSize int
	TimeScale float64
	Requests  []Request
	// Sorted: the file's timestamps were out of order, and were sorted.
	Sorted bool
	// Cut says why the trace was cut short ("" when read whole): the
	// requests asked for, or a bound.
	Cut string
}

// Options checks o, and fills in its defaults.
func (o Options) normalize() (Options, error) {
	o.TimeScale = cmp.Or(o.TimeScale, 1)
	o.BlockSize = cmp.Or(o.BlockSize, DefaultBlockSize)
	switch {
	case math.IsNaN(o.TimeScale) || math.IsInf(o.TimeScale, 0) || o.TimeScale <= 0 || o.TimeScale > 1000:
		return o, fmt.Errorf("time scale %v: use a factor above 0 and up to 1000 (0.5 replays twice as fast)", o.TimeScale)
	case o.BlockSize < 1 || o.BlockSize > MaxBlockSize:
		return o, fmt.Errorf("block size %d: use 1 to %d tokens per hash id (Mooncake's is %d)", o.BlockSize, MaxBlockSize, DefaultBlockSize)
	case o.MaxRequests < 0 || o.MaxRequests > MaxRequests:
		return o, fmt.Errorf("max requests %d: use 0 (all, up to %d) to %d", o.MaxRequests, MaxRequests, MaxRequests)
	}
	return o, nil
}

// CheckOptions says what is wrong with o, nil when nothing is.
func CheckOptions(o Options) error {
	_, err := o.normalize()
	return err
}

// Read reads a trace file (Parse), naming it by its base name.
func Read(path string, o Options) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, filepath.Base(path), o)
}

// line is one line of a trace. Hash ids are read raw, so that one that is
// not an integer is named.
type line struct {
	Timestamp    *float64          `json:"timestamp"`
	InputLength  *float64          `json:"input_length"`
	OutputLength *float64          `json:"output_length"`
	HashIDs      []json.RawMessage `json:"hash_ids"`
}

// Parse reads a trace from r, line by line, holding only the requests it
// keeps: at most o.MaxRequests (MaxRequests) and MaxBlocks hash ids; a
// longer file is cut there, and Trace.Cut says so. A bad line is refused
// with its number, in name's words: "trace.jsonl line 12: …". Blank lines
// are skipped. Out-of-order timestamps are sorted (Trace.Sorted).
func Parse(r io.Reader, name string, o Options) (*Trace, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	limit := cmp.Or(o.MaxRequests, MaxRequests)
	t := &Trace{Name: name, BlockSize: o.BlockSize, TimeScale: o.TimeScale}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), MaxLineBytes)
	n, blocks := 0, 0
	var stamps []float64
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if len(t.Requests) == limit {
			t.Cut = fmt.Sprintf("the first %d requests", limit)
			if o.MaxRequests == 0 {
				t.Cut = fmt.Sprintf("the first %d requests, the most a replay holds", limit)
			}
			break
		}
		req, ms, err := parseLine(b, o.BlockSize)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n, err)
		}
		if blocks+len(req.Blocks) > MaxBlocks {
			t.Cut = fmt.Sprintf("the first %d requests: their hash ids reach the %d a replay holds", len(t.Requests), MaxBlocks)
			break
		}
		blocks += len(req.Blocks)
		req.Line = n
		if len(stamps) > 0 && ms < stamps[len(stamps)-1] {
			t.Sorted = true
		}
		stamps = append(stamps, ms)
		t.Requests = append(t.Requests, req)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s line %d: longer than %d MiB: is this a Mooncake trace, one JSON request a line?", name, n+1, MaxLineBytes>>20)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(t.Requests) == 0 {
		return nil, fmt.Errorf(`%s: no request: write one {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": […]} per line`, name)
	}
	order := make([]int, len(stamps))
	for i := range order {
		order[i] = i
	}
	if t.Sorted {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(stamps[a], stamps[b]) })
		sorted := make([]Request, len(order))
		for i, j := range order {
			sorted[i] = t.Requests[j]
		}
		t.Requests = sorted
	}
	first := stamps[order[0]]
	for i, j := range order {
		t.Requests[i].At = time.Duration((stamps[j] - first) * o.TimeScale * float64(time.Millisecond))
	}
	if span := t.Span(); span > MaxSpan {
		return nil, fmt.Errorf("%s: the replay would last %s at time scale %v, more than %s: lower --time-scale or --max-requests", name, span.Round(time.Second), o.TimeScale, MaxSpan)
	}
	return t, nil
}

// parseLine is one request, with its timestamp in ms.
func parseLine(b []byte, blockSize int) (Request, float64, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(b) {
			return Request{}, 0, fmt.Errorf("not JSON (%s): write one JSON object per line", short(err.Error()))
		}
		return Request{}, 0, fmt.Errorf(`not a Mooncake request (%s): write {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [integers]}`, short(err.Error()))
	}
	switch {
	case l.Timestamp == nil:
		return Request{}, 0, errors.New(`no "timestamp": give each request its arrival in milliseconds from the trace's start`)
	case l.InputLength == nil || l.OutputLength == nil:
		return Request{}, 0, errors.New(`no "input_length" or "output_length": give each request its prompt and output tokens`)
	case *l.Timestamp < 0 || *l.Timestamp > maxTimestampMs:
		return Request{}, 0, fmt.Errorf("timestamp %v ms: use 0 to %d (a year)", *l.Timestamp, int64(maxTimestampMs))
	}
	in, err := length("input_length", *l.InputLength, MaxInputTokens)
	if err != nil {
		return Request{}, 0, err
	}
	out, err := length("output_length", *l.OutputLength, MaxOutputTokens)
	if err != nil {
		return Request{}, 0, err
	}
	want := (in + blockSize - 1) / blockSize
	req := Request{Input: in, Output: out}
	if l.HashIDs == nil {
		return req, *l.Timestamp, nil // no ids: every block its own
	}
	if len(l.HashIDs) != want {
		return Request{}, 0, fmt.Errorf("input_length %d is %d blocks of %d tokens, but it has %d hash ids: fix the line, or give the trace's block size (--block-size)",
			in, want, blockSize, len(l.HashIDs))
	}
	req.Blocks = make([]uint64, len(l.HashIDs))
	for i, raw := range l.HashIDs {
		id, err := strconv.ParseUint(string(bytes.TrimSpace(raw)), 10, 64)
		if err != nil {
			return Request{}, 0, fmt.Errorf("hash_ids[%d] is %s, not a non-negative integer: hash ids name blocks by integers", i, short(string(raw)))
		}
		req.Blocks[i] = id
	}
	return req, *l.Timestamp, nil
}

// length is a token count read as a JSON number: whole, at least 1 and at
// most most.
func length(field string, v float64, most int) (int, error) {
	if v != math.Trunc(v) || v < 1 || v > float64(most) {
		return 0, fmt.Errorf("%s %v: use a whole number of tokens from 1 to %d", field, v, most)
	}
	return int(v), nil
}

// short cuts a message from a hostile line to a readable length.
func short(s string) string {
	const most = 80
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}

// Span is the time from the first request's arrival to the last's.
func (t *Trace) Span() time.Duration {
	if len(t.Requests) == 0 {
		return 0
	}
	return t.Requests[len(t.Requests)-1].At
}

// Tokens is the prompt and output tokens of every request.
func (t *Trace) Tokens() (input, output int) {
	for _, r := range t.Requests {
		input += r.Input
		output += r.Output
	}
	return input, output
}

// LongestInput is the longest prompt of the trace.
func (t *Trace) LongestInput() int {
	n := 0
	for _, r := range t.Requests {
		n = max(n, r.Input)
	}
	return n
}

// LongestOutput is the longest output the trace asks for.
func (t *Trace) LongestOutput() int {
	n := 0
	for _, r := range t.Requests {
		n = max(n, r.Output)
	}
	return n
}

// ImpliedHitRate is the share of the trace's prompt tokens an unbounded
// prefix cache would hold when they arrive: each request's leading blocks
// whose ids an earlier request sent (a block is cached only behind its
// prefix, so the run of hits ends at the first new id). A request without
// hash ids shares nothing. 0 for a trace without prompts.
func (t *Trace) ImpliedHitRate() float64 {
	seen := map[uint64]struct{}{}
	var hit, total int
	for _, r := range t.Requests {
		total += r.Input
		prefix := true
		for i, id := range r.Blocks {
			if _, ok := seen[id]; ok && prefix {
				hit += min(t.BlockSize, r.Input-i*t.BlockSize)
			} else {
				prefix = false
			}
			seen[id] = struct{}{}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(hit) / float64(total)
}

// Summary is what report.json says of the trace replayed.
func (t *Trace) Summary() *engine.TraceSummary {
	in, out := t.Tokens()
	return &engine.TraceSummary{
		Name: t.Name, Requests: len(t.Requests), SpanS: t.Span().Seconds(), TimeScale: t.TimeScale, BlockSize: t.BlockSize,
		InputTokens: in, OutputTokens: out, TraceHitRate: t.ImpliedHitRate(), Sorted: t.Sorted, Cut: t.Cut,
	}
}
