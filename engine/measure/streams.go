package measure

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
)

// failureKind groups failed requests for the cell's one-line reason.
type failureKind int

const (
	failStalled failureKind = iota
	failNoFirstToken
	failCutOff
	failUnreachable
	failAnswered
	failMalformed
	failRejected
)

func classify(err error) failureKind {
	var stall *openai.StallError
	var apiErr *openai.APIError
	switch {
	case errors.As(err, &stall) && stall.AfterFirstToken:
		return failStalled
	case errors.As(err, &stall):
		return failNoFirstToken
	case errors.Is(err, openai.ErrRejected):
		return failRejected
	case errors.As(err, &apiErr):
		return failAnswered
	case errors.Is(err, openai.ErrUnreachable):
		return failUnreachable
	case errors.Is(err, openai.ErrMalformed):
		return failMalformed
	}
	return failCutOff
}

// failureReason says, counting streams, why a cell failed inside its
// window: "3 of 16 streams stalled (no token for 30 s)". A stream is one of
// the cell's C workers; each is counted once per kind of failure.
func failureReason(recs []*requestRecord, windowAt time.Time, concurrency int) string {
	workers := map[failureKind]map[int]bool{}
	example := map[failureKind]error{}
	for _, r := range recs {
		if r.Err == nil || !r.End.After(windowAt) {
			continue
		}
		k := classify(r.Err)
		if workers[k] == nil {
			workers[k] = map[int]bool{}
			example[k] = r.Err
		}
		workers[k][r.Worker] = true
	}
	var parts []string
	for _, k := range []failureKind{failStalled, failNoFirstToken, failCutOff, failUnreachable, failRejected, failAnswered, failMalformed} {
		if n := len(workers[k]); n > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d %s %s", n, concurrency, engine.Plural(concurrency, "stream", "streams"), failureWords(k, n, example[k])))
		}
	}
	if len(parts) == 0 {
		return "a request failed inside the window"
	}
	return strings.Join(parts, "; ")
}

// failureWords says what happened to n streams that failed with err, of kind k.
func failureWords(k failureKind, n int, err error) string {
	var stall *openai.StallError
	errors.As(err, &stall)
	var apiErr *openai.APIError
	errors.As(err, &apiErr)
	switch k {
	case failRejected:
		return fmt.Sprintf("failed: the server rejected requests (%d): %s", apiErr.StatusCode, apiErr.Message)
	case failStalled:
		return fmt.Sprintf("stalled (no token for %s)", openai.Seconds(stall.After))
	case failNoFirstToken:
		return fmt.Sprintf("got no first token within %s", openai.Seconds(stall.After))
	case failUnreachable:
		return "could not connect to the server"
	case failAnswered, failMalformed:
		return "failed: " + err.Error()
	}
	return engine.Plural(n, "was", "were") + " cut off before the answer ended"
}

// quietStreams counts the streams still open at the window's end that had
// received no token for at least limit, and the longest such silence. A
// stall shorter than the stall timeout escapes the watchdog when the
// window ends first; this catches it.
func quietStreams(recs []*requestRecord, from, to time.Time, limit time.Duration) (int, time.Duration) {
	quiet := map[int]bool{}
	var longest time.Duration
	for _, r := range recs {
		if !r.End.IsZero() || r.Err != nil || r.FirstToken.IsZero() {
			continue // ended, failed, or still waiting for its first token
		}
		last := r.FirstToken
		if n := len(r.Arrivals); n > 0 {
			last = r.at(n - 1)
		}
		if last.Before(from) {
			last = from
		}
		if d := to.Sub(last); d >= limit {
			quiet[r.Worker] = true
			longest = max(longest, d)
		}
	}
	return len(quiet), longest
}

// arrivalBucket is the resolution of arrivalMap: fine next to the
// 250 ms between /metrics scrapes, coarse enough to stay small.
const arrivalBucket = 10 * time.Millisecond

// arrivalMap says when tokens arrived inside a window, to the nearest
// arrivalBucket: one mark per bucket, filled in one pass with no sort (a
// cell at 128 streams receives millions of tokens).
type arrivalMap struct {
	from  time.Time
	marks []bool
}

// arrivalsIn maps the arrivals of recs inside (from, to].
func arrivalsIn(recs []*requestRecord, from, to time.Time) arrivalMap {
	m := arrivalMap{from: from}
	if !to.After(from) {
		return m
	}
	m.marks = make([]bool, int(to.Sub(from)/arrivalBucket)+1)
	for _, r := range recs {
		for i := range r.Arrivals {
			if at := r.at(i); inWindow(at, from, to) {
				m.marks[int(at.Sub(from)/arrivalBucket)] = true
			}
		}
	}
	return m
}

// gotTokens reports whether a token arrived in (a, b], to the nearest
// bucket.
func (m arrivalMap) gotTokens(a, b time.Time) bool {
	lo, hi := m.index(a), m.index(b)
	if lo < 0 {
		lo = 0
	}
	if hi >= len(m.marks) {
		hi = len(m.marks) - 1
	}
	return lo <= hi && slices.Contains(m.marks[lo:hi+1], true)
}

func (m arrivalMap) index(t time.Time) int {
	if t.Before(m.from) {
		return -1
	}
	return int(t.Sub(m.from) / arrivalBucket)
}

// activeStreams is the time-average number of the cell's streams that were
// active in [from, to], counted per worker: decoding, starting the next
// request (our own turnaround), or waiting for the first token of a
// restarted request for at most twice the cell's median TTFT (a restart
// still waiting when the window closes, up to then). Without it the short
// gap at every restart would count as idle and
// flag cells with short outputs as underfilled; a longer wait still counts
// as idle, since that is the server not holding the stream.
func activeStreams(recs []*requestRecord, from, to time.Time, medianTTFTMs float64) float64 {
	window := to.Sub(from).Seconds()
	if window <= 0 {
		return 0
	}
	grace := time.Duration(2 * medianTTFTMs * float64(time.Millisecond))
	byWorker := map[int][]*requestRecord{}
	for _, r := range recs {
		byWorker[r.Worker] = append(byWorker[r.Worker], r)
	}
	var activeS float64
	for _, rs := range byWorker {
		slices.SortFunc(rs, func(a, b *requestRecord) int { return a.Sent.Compare(b.Sent) })
		for i, r := range rs {
			activeS += overlapS(r.FirstToken, r.End, from, to)
			// A restart still waiting for its first token when the window
			// closed waits until then (one that failed first does not).
			first := r.FirstToken
			if first.IsZero() && r.Err == nil && (r.End.IsZero() || r.End.After(to)) {
				first = to
			}
			if i == 0 || first.IsZero() {
				continue
			}
			prevEnd := rs[i-1].End
			if prevEnd.IsZero() || rs[i-1].Err != nil {
				continue
			}
			// Our own turnaround to the next request is not the server's.
			activeS += overlapS(prevEnd, r.Sent, from, to)
			if first.Sub(r.Sent) <= grace {
				activeS += overlapS(r.Sent, first, from, to)
			}
		}
	}
	return activeS / window
}
