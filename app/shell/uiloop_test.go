package shell

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// uiLoop stands in for the real driver's event loop in tests. Fyne's test
// driver runs fyne.Do at once on the calling goroutine, so background work
// would touch the widgets concurrently with the test; instead background
// work posts its closures here (deps.do) and the test goroutine runs them
// while it waits (waitFor). Every widget is then touched by one goroutine,
// in the order the updates were posted, as on the real driver.
type uiLoop struct {
	mu     sync.Mutex
	queue  []func()
	closed bool          // the test ended: posts are dropped
	wake   chan struct{} // holds a token when something was posted
	uiOnly bool          // the test said no background work runs (uiOnly)
	ran    bool          // the test goroutine ran something posted
}

// post queues f for the test goroutine; it never blocks.
func (l *uiLoop) post(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.queue = append(l.queue, f)
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// runPending runs what was posted, and what those closures post, until
// nothing is left; test goroutine only.
func (l *uiLoop) runPending() {
	for {
		l.mu.Lock()
		q := l.queue
		l.queue = nil
		l.ran = l.ran || len(q) > 0
		l.mu.Unlock()
		if len(q) == 0 {
			return
		}
		for _, f := range q {
			f()
		}
	}
}

// Close drops what is queued and every later post: the app is gone.
func (l *uiLoop) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed, l.queue = true, nil
}

var (
	loopsMu sync.Mutex
	loops   = map[testing.TB]*uiLoop{}
	// uiOnlyTests are the names of the running tests that called uiOnly.
	uiOnlyTests = map[string]bool{}
)

// loopFor is the UI loop of test t, made on first use and closed when t ends.
func loopFor(t testing.TB) *uiLoop {
	loopsMu.Lock()
	defer loopsMu.Unlock()
	if l, ok := loops[t]; ok {
		return l
	}
	l := &uiLoop{wake: make(chan struct{}, 1), uiOnly: isUIOnly(t.Name())}
	loops[t] = l
	t.Cleanup(func() {
		l.mu.Lock()
		broke := l.uiOnly && l.ran
		l.mu.Unlock()
		if broke {
			t.Error("this test ran background work's updates on its UI: it is not uiOnly (remove uiOnly(t), so that -race checks it)")
		}
		l.Close()
		loopsMu.Lock()
		delete(loops, t)
		loopsMu.Unlock()
	})
	return l
}

// waitFor runs t's UI loop until ch is closed, then runs what is still
// queued (the updates posted before ch closed); it fails the test when ch
// is not closed within a generous bound (a hang detector: a busy machine
// under -race took over 20 s to export an autorun's files).
func waitFor(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	l := loopFor(t)
	deadline := time.NewTimer(2 * time.Minute)
	defer deadline.Stop()
	for {
		l.runPending()
		select {
		case <-ch:
			l.runPending()
			return
		case <-l.wake:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitUntil runs t's UI loop until cond holds (checked on the test
// goroutine, between updates); it fails the test when cond does not hold
// within a generous bound.
func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	l := loopFor(t)
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		l.runPending()
		if cond() {
			return
		}
		select {
		case <-l.wake:
		case <-poll.C:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// uiOnly skips t under the race detector. t drives forms, layout and words
// on its own goroutine and starts no run, load test, server or save: what
// it checks happens on that goroutine alone, and its UI loop fails it if
// it runs an update that background work posted (waitFor). -race slows
// those tests sixfold and finds no race there; what every app starts as
// it is built (the list of local models) runs under -race in every other
// test. scripts/test.sh runs them without -race.
func uiOnly(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("the UI goroutine alone: runs without -race (scripts/test.sh does)")
	}
	loopsMu.Lock()
	uiOnlyTests[t.Name()] = true
	loopsMu.Unlock()
	t.Cleanup(func() {
		loopsMu.Lock()
		delete(uiOnlyTests, t.Name())
		loopsMu.Unlock()
	})
	l := loopFor(t)
	l.mu.Lock()
	l.uiOnly = true
	l.mu.Unlock()
}

// isUIOnly is whether test name or a test it is part of called uiOnly;
// loopsMu held.
func isUIOnly(name string) bool {
	for n := range uiOnlyTests {
		if name == n || strings.HasPrefix(name, n+"/") {
			return true
		}
	}
	return false
}
