package launch

import (
	"bytes"
	"sync"
)

// logLines is how many of the server's last log lines are kept in memory.
const logLines = 2000

// maxLineBytes cuts overlong lines (a progress bar without newlines) so one
// line never holds the reader up.
const maxLineBytes = 64 << 10

// logBuffer is a ring of the last log lines with subscribers for new ones.
type logBuffer struct {
	mu     sync.Mutex
	lines  []string
	next   int // where the next line goes once the ring is full
	full   bool
	subs   map[int]func(string)
	nextID int
}

func newLogBuffer(size int) *logBuffer {
	return &logBuffer{lines: make([]string, 0, size), subs: map[int]func(string){}}
}

// add stores line and hands it to every subscriber.
func (b *logBuffer) add(line string) {
	b.mu.Lock()
	if !b.full && len(b.lines) < cap(b.lines) {
		b.lines = append(b.lines, line)
	} else {
		b.full = true
		b.lines[b.next] = line
		b.next = (b.next + 1) % len(b.lines)
	}
	subs := make([]func(string), 0, len(b.subs))
	for _, f := range b.subs {
		subs = append(subs, f)
	}
	b.mu.Unlock()
	for _, f := range subs {
		f(line)
	}
}

// last returns up to n of the newest lines, oldest first (n <= 0: all).
func (b *logBuffer) last(n int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	all := make([]string, 0, len(b.lines))
	all = append(all, b.lines[b.next:]...)
	all = append(all, b.lines[:b.next]...)
	if n > 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}

// subscribe registers f for every new line; the returned func removes it.
func (b *logBuffer) subscribe(f func(string)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.nextID
	b.nextID++
	b.subs[id] = f
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs, id)
	}
}

// splitLines is a bufio.SplitFunc that ends a line at \n or \r (progress
// bars redraw with \r) and cuts lines longer than maxLineBytes.
func splitLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if i > maxLineBytes {
			return maxLineBytes, data[:maxLineBytes], nil
		}
		return i + 1, data[:i], nil
	}
	if len(data) >= maxLineBytes {
		return maxLineBytes, data[:maxLineBytes], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
