package app

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
)

// uiUpdateEvery is how often background work may refresh the widgets: at
// most 5 updates a second keeps the UI responsive however fast events come.
const uiUpdateEvery = 200 * time.Millisecond

// logView shows the last lines of a log, wrapped (textPane). add may be
// called from any goroutine; flush only on the UI goroutine.
type logView struct {
	maxLines int
	pane     *textPane

	mu    sync.Mutex
	lines []string
	dirty bool
}

func newLogView(maxLines int) *logView {
	return &logView{maxLines: maxLines, pane: newTextPane()}
}

// object is the log's canvas object.
func (v *logView) object() fyne.CanvasObject { return v.pane.object() }

// add appends a line (or several, split at newlines), dropping the oldest
// beyond maxLines.
func (v *logView) add(line string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for l := range strings.SplitSeq(strings.TrimRight(line, "\r\n"), "\n") {
		v.lines = append(v.lines, strings.TrimRight(l, "\r"))
	}
	if over := len(v.lines) - v.maxLines; over > 0 {
		v.lines = append(v.lines[:0], v.lines[over:]...)
	}
	v.dirty = true
}

// clear empties the log.
func (v *logView) clear() {
	v.mu.Lock()
	v.lines, v.dirty = nil, true
	v.mu.Unlock()
}

// flush shows new lines, following the end; UI goroutine only.
func (v *logView) flush() {
	v.mu.Lock()
	if !v.dirty {
		v.mu.Unlock()
		return
	}
	lines := slices.Clone(v.lines)
	v.dirty = false
	v.mu.Unlock()
	v.pane.setLines(lines)
}

// pump flushes on the UI goroutine (through do) every uiUpdateEvery
// until ctx ends.
func (v *logView) pump(ctx context.Context, do func(func())) {
	t := time.NewTicker(uiUpdateEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			do(v.flush)
			return
		case <-t.C:
			v.mu.Lock()
			dirty := v.dirty
			v.mu.Unlock()
			if dirty {
				do(v.flush)
			}
		}
	}
}

// text is the whole log as shown.
func (v *logView) text() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return strings.Join(v.lines, "\n")
}
