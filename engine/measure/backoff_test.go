package measure

import (
	"context"
	"slices"
	"speedmatrix/engine"
	"strings"
	"sync"
	"testing"
	"time"
)

// pauses records the waits of a run through the pause seam, without
// waiting.
type pauses struct {
	mu    sync.Mutex
	waits []time.Duration
}

// options are testOptions that wait through p.
func (p *pauses) options() runOptions {
	opts := testOptions()
	opts.pause = func(_ context.Context, d time.Duration) {
		p.mu.Lock()
		p.waits = append(p.waits, d)
		p.mu.Unlock()
	}
	return opts
}

// got returns the waits so far.
func (p *pauses) got() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.waits)
}

// TestRejectedWarmUpWaits: requests the server rejects (429, 503) before a
// cell's window opens are sent again after the wait its Retry-After asks
// (in seconds or as a date), else after a doubling pause, and the cell is
// measured once the server takes them: more rejections than the failures
// warm-up tolerates (2 × C + 2) don't fail it.
func TestRejectedWarmUpWaits(t *testing.T) {
	t.Parallel()
	const pause = 20 * time.Millisecond // testOptions' retryPause
	for _, tc := range []struct {
		name  string
		plan  engine.Plan
		o     fakeOpts
		waits []time.Duration
	}{
		{"decode, Retry-After in seconds", decodePlan(engine.K, 2, 200*time.Millisecond, 50, engine.APICompletions),
			// Request 1 warms the prefix cache; 2 to 8 are the streams'.
			fakeOpts{FailStatus: 429, FailFrom: 1, FailUntil: 8, RetryAfter: "3"},
			[]time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}},
		{"decode, no Retry-After", decodePlan(engine.K, 1, 200*time.Millisecond, 50, engine.APICompletions),
			fakeOpts{FailStatus: 503, FailFrom: 1, FailUntil: 6},
			[]time.Duration{pause, 2 * pause, 4 * pause, 8 * pause, 16 * pause}},
		{"prefill, Retry-After as a date", engine.Plan{PrefillContexts: []int{engine.K}, Duration: time.Second, MaxOutputTokens: 50, API: engine.APICompletions},
			// A date in the past: no wait asked, so the doubling pause.
			fakeOpts{FailStatus: 429, FailUntil: 3, RetryAfter: "Thu, 01 Jan 2026 00:00:00 GMT"},
			[]time.Duration{pause, 2 * pause, 4 * pause}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Interval, tc.o.FailMessage = 2*time.Millisecond, "Too many requests"
			f := newFakeServer(t, tc.o)
			var p pauses
			rep, _, err := runAll(t, t.Context(), tc.plan, Subject{Target: Target{BaseURL: f.URL}}, p.options())
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Status != engine.StatusValid {
					t.Errorf("%s: %s %q, want Valid once the server takes the requests", r.Key(), r.Status, r.Error)
				}
			}
			got := p.got()
			slices.Sort(got)
			if !slices.Equal(got, tc.waits) {
				t.Errorf("waits %v, want %v", got, tc.waits)
			}
		})
	}
}

// TestRejectedForever: a server that rejects every request fails the cell
// after maxRejections waits in a row, none longer than maxRetryWait
// however long its Retry-After, and the reason says so.
func TestRejectedForever(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, FailStatus: 429, FailFrom: 1, FailMessage: "Too many requests", RetryAfter: "3600"})
	var p pauses
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 1, 200*time.Millisecond, 50, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, p.options())
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	want := "the server rejected 9 requests in a row over 4 min: POST /v1/completions: the server rejected requests (429): Too many requests"
	if r.Status != engine.StatusFailed || !strings.HasPrefix(r.Error, want) {
		t.Errorf("cell %s %q, want Failed: %s…", r.Status, r.Error, want)
	}
	if got := p.got(); len(got) != maxRejections || slices.Max(got) != maxRetryWait {
		t.Errorf("waits %v, want %d of at most %v", got, maxRejections, maxRetryWait)
	}
}

// TestRejectedInWindow: a request the server rejects inside the window
// fails the cell, with the reason.
func TestRejectedInWindow(t *testing.T) {
	t.Parallel()
	// Request 1 warms the prefix cache, 2 opens the window and ends in it.
	f := newFakeServer(t, fakeOpts{Interval: 2 * time.Millisecond, FailStatus: 429, FailFrom: 2, FailMessage: "Too many requests"})
	var p pauses
	rep, _, err := runAll(t, t.Context(), decodePlan(engine.K, 1, 2*time.Second, 20, engine.APICompletions), Subject{Target: Target{BaseURL: f.URL}}, p.options())
	if err != nil {
		t.Fatal(err)
	}
	r := findResult(t, rep, engine.PhaseDecode)
	if want := "1 of 1 stream failed: the server rejected requests (429): Too many requests"; r.Status != engine.StatusFailed || r.Error != want {
		t.Errorf("cell %s %q, want Failed: %s", r.Status, r.Error, want)
	}
}
