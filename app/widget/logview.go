package widget

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
)

// UiUpdateEvery is how often background work may refresh the widgets: at
// most 5 updates a second keeps the UI responsive however fast events come.
const UiUpdateEvery = 200 * time.Millisecond

// LogView shows the last lines of a log, wrapped (textPane). add may be
// called from any goroutine; flush only on the UI goroutine.
type LogView struct {
	maxLines int
	pane     *TextPane

	mu    sync.Mutex
	lines []string
	dirty bool
}

// NewLogView is an empty log that keeps its last maxLines lines.
func NewLogView(maxLines int) *LogView {
	return &LogView{maxLines: maxLines, pane: NewTextPane()}
}

// Object is the log's canvas object.
func (v *LogView) Object() fyne.CanvasObject { return v.pane.Object() }

// Add appends a line (or several, split at newlines), dropping the oldest
// beyond maxLines.
func (v *LogView) Add(line string) {
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

// Clear empties the log.
func (v *LogView) Clear() {
	v.mu.Lock()
	v.lines, v.dirty = nil, true
	v.mu.Unlock()
}

// Flush shows new lines, following the end; UI goroutine only.
func (v *LogView) Flush() {
	v.mu.Lock()
	if !v.dirty {
		v.mu.Unlock()
		return
	}
	lines := slices.Clone(v.lines)
	v.dirty = false
	v.mu.Unlock()
	v.pane.SetLines(lines)
}

// Pump flushes on the UI goroutine (through do) every uiUpdateEvery
// until ctx ends.
func (v *LogView) Pump(ctx context.Context, do func(func())) {
	t := time.NewTicker(UiUpdateEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			do(v.Flush)
			return
		case <-t.C:
			v.mu.Lock()
			dirty := v.dirty
			v.mu.Unlock()
			if dirty {
				do(v.Flush)
			}
		}
	}
}

// Text is the whole log as shown.
func (v *LogView) Text() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return strings.Join(v.lines, "\n")
}
