package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

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
)

func classify(err error) failureKind {
	var stall *openai.StallError
	var apiErr *openai.APIError
	switch {
	case errors.As(err, &stall) && stall.AfterFirstToken:
		return failStalled
	case errors.As(err, &stall):
		return failNoFirstToken
	case errors.As(err, &apiErr):
		return failAnswered
	case errors.Is(err, openai.ErrUnreachable):
		return failUnreachable
	}
	return failCutOff
}

// failureReason says, counting streams, why a cell failed inside its
// window: "3 of 16 streams stalled (nothing for 30 s)". A stream is one of
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
	for _, k := range []failureKind{failStalled, failNoFirstToken, failCutOff, failUnreachable, failAnswered} {
		if n := len(workers[k]); n > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d %s %s", n, concurrency, plural(concurrency, "stream", "streams"), failureWords(k, example[k])))
		}
	}
	if len(parts) == 0 {
		return "a request failed inside the window"
	}
	return strings.Join(parts, "; ")
}

func failureWords(k failureKind, err error) string {
	var stall *openai.StallError
	errors.As(err, &stall)
	switch k {
	case failStalled:
		return fmt.Sprintf("stalled (nothing for %s)", openai.Seconds(stall.After))
	case failNoFirstToken:
		return fmt.Sprintf("got no first token within %s", openai.Seconds(stall.After))
	case failUnreachable:
		return "could not connect to the server"
	case failAnswered:
		return "failed: " + err.Error()
	}
	return "were cut off before the answer ended"
}

// arrivalsIn returns the times tokens arrived inside (from, to], sorted.
func arrivalsIn(recs []*requestRecord, from, to time.Time) []time.Time {
	var out []time.Time
	for _, r := range recs {
		for _, a := range r.Arrivals {
			if inWindow(a.At, from, to) {
				out = append(out, a.At)
			}
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// gotTokens reports, from sorted arrival times, whether a token arrived in
// (a, b].
func gotTokens(arrivals []time.Time) func(a, b time.Time) bool {
	return func(a, b time.Time) bool {
		i, _ := slices.BinarySearchFunc(arrivals, a, func(x, t time.Time) int {
			if x.After(t) {
				return 1
			}
			return -1
		})
		return i < len(arrivals) && !arrivals[i].After(b)
	}
}

// activeStreams is the time-average number of the cell's streams that were
// active in [from, to], counted per worker: decoding, or waiting for the
// first token of a restarted request for at most twice the cell's median
// TTFT. Without it the short gap at every restart would count as idle and
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
			if i == 0 || r.FirstToken.IsZero() {
				continue
			}
			prevEnd := rs[i-1].End
			if !prevEnd.IsZero() && rs[i-1].Err == nil && r.FirstToken.Sub(prevEnd) <= grace {
				activeS += overlapS(prevEnd, r.FirstToken, from, to)
			}
		}
	}
	return activeS / window
}
