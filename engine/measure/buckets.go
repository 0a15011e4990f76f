package measure

import (
	"time"

	"speedmatrix/engine"
)

// precisionBucket is the width of the buckets a cell's precision is
// estimated over: long next to a decode step, short next to a window.
const precisionBucket = time.Second

// cellPrecision estimates how well a decode cell's headline figures over
// the window [from, to] are known, from when its requests' tokens arrived,
// and how total tok/s moved across it (engine.EstimateDrift). Only whole
// buckets count: a partial last one (a window that is not a whole number of
// seconds) is left out rather than weighed as a full one. withMedians
// false leaves the ± of per-request tok/s and ITL out, for an adaptive
// window's check, which doesn't wait for them (engine.CellPrecision.Reached)
// and runs every second.
//
// Total tok/s is the mean of its buckets (overlapping batch means), with
// the streams' restarts taken apart (restartsOf, engine.Restarts). It
// moves by whole decode steps: streams tokens at a time, each stream's
// chunk holding the tokens its arrivals hold on average (one, for vLLM's
// default stream interval); that is its resolution. Per-request tok/s and ITL are
// medians, of the requests' rates and of the gaps between tokens, and are
// sectioned (engine.EstimateSectioned): the same median over each batch,
// about the window's own, batched by the plan of their per-second series.
func cellPrecision(recs []*requestRecord, from, to time.Time, streams int, withMedians bool) *engine.CellPrecision {
	n := int(to.Sub(from) / precisionBucket)
	s := bucketSeriesOf(recs, from, n)
	step := float64(streams)
	if s.arrivals > 0 {
		step *= s.tokens / float64(s.arrivals)
	}
	c := &engine.CellPrecision{}
	c.TotalTokPerSec, c.Drift = engine.EstimateRate(s.total, step, restartsOf(recs, from, n, streams))
	if withMedians {
		c.PerRequestTokPerSec, c.ITLMs = perRequestPrecision(recs, from, n, s.perRequest), itlPrecision(s, n)
	}
	return c
}

// perRequestPrecision sections the median of the requests' rates: over
// each batch, the median of the rates the requests decoded at inside it
// (as requestWindow measures a request), about the median over the n
// whole buckets. One pass over the arrivals, however many batches.
func perRequestPrecision(recs []*requestRecord, from time.Time, n int, perSecond []float64) engine.Precision {
	b, rho := engine.BatchPlan(perSecond)
	secs := engine.Sections(n, b)
	to := bucketStart(from, n)
	byBatch := make([][]float64, len(secs))
	var whole []float64
	for _, r := range recs {
		var all, cur rateRun
		batch := -1
		for i := range r.Arrivals {
			at := r.at(i)
			if !inWindow(at, from, to) {
				continue
			}
			all.add(at, r.tokens(i))
			j := batchOf(bucketOf(at, from), n, b)
			if j != batch {
				cur.into(byBatch, batch)
				cur, batch = rateRun{}, j
			}
			cur.add(at, r.tokens(i))
		}
		cur.into(byBatch, batch)
		if rate, ok := all.rate(); ok {
			whole = append(whole, rate)
		}
	}
	var sections []float64
	for _, rates := range byBatch {
		if len(rates) > 0 {
			sections = append(sections, percentiles(rates).P50)
		}
	}
	return engine.EstimateSectioned(percentiles(whole).P50, sections, b, rho, n)
}

// batchOf is the batch of engine.Sections(n, b) that bucket i falls in,
// -1 for the oldest remainder that no batch holds.
func batchOf(i, n, b int) int {
	if b <= 0 || i < n-n/b*b {
		return -1
	}
	return (i - (n - n/b*b)) / b
}

// rateRun measures one request's rate over a stretch of its arrivals as
// requestWindow does: the tokens after its first arrival there over the
// time from that arrival to its last.
type rateRun struct {
	first, last   time.Time
	tokens, after float64
}

func (w *rateRun) add(at time.Time, tokens float64) {
	w.tokens += tokens
	if w.first.IsZero() {
		w.first = at
		return
	}
	w.after += tokens
	w.last = at
}

// rate is the stretch's rate; false with fewer than two arrivals apart.
func (w rateRun) rate() (float64, bool) {
	if w.last.IsZero() || !w.last.After(w.first) {
		return 0, false
	}
	return w.after / w.last.Sub(w.first).Seconds(), true
}

// into adds the stretch's rate to batch j of byBatch, if it has one.
func (w rateRun) into(byBatch [][]float64, j int) {
	if rate, ok := w.rate(); ok && j >= 0 {
		byBatch[j] = append(byBatch[j], rate)
	}
}

// itlPrecision sections the median gap: over each batch, the weighted
// median of the gaps whose chunks arrived inside it, about the median of
// all the window's.
func itlPrecision(s bucketSeries, n int) engine.Precision {
	b, rho := engine.BatchPlan(s.itl)
	medianIn := func(lo, hi int) float64 {
		var gaps []weighted
		for _, g := range s.gaps[lo:hi] {
			gaps = append(gaps, g...)
		}
		return weightedPercentiles(gaps).P50
	}
	var sections []float64
	for _, sec := range engine.Sections(n, b) {
		if f := medianIn(sec[0], sec[1]); f > 0 {
			sections = append(sections, f)
		}
	}
	return engine.EstimateSectioned(medianIn(0, n), sections, b, rho, n)
}

// bucketStart is when bucket i opens: from + i s.
func bucketStart(from time.Time, i int) time.Time {
	return from.Add(time.Duration(i) * precisionBucket)
}

// bucketSeries are a cell's headline figures second by second.
type bucketSeries struct {
	// total is the output tokens that arrived in each bucket (tok/s),
	// zeros included: a second without a token is a stall, not a gap.
	total []float64
	// perRequest is the streams' rate in each bucket: the tokens they
	// decoded there ÷ the stream-seconds they spent decoding there,
	// measured between arrivals as requestWindow measures one request.
	// A bucket with no stream decoding has none and is left out.
	perRequest []float64
	// itl is the median inter-token gap of the chunks that arrived in each
	// bucket (ms), weighted as the cell's ITL is; a bucket without a
	// gap is left out.
	itl []float64
	// gaps are each bucket's gaps between tokens (weighted), for the
	// median over a batch.
	gaps [][]weighted
	// tokens and arrivals count what arrived in the buckets, for the
	// tokens an arrival holds on average.
	tokens   float64
	arrivals int
}

// bucketSeriesOf builds the series over the n whole buckets after from.
func bucketSeriesOf(recs []*requestRecord, from time.Time, n int) bucketSeries {
	if n <= 0 {
		return bucketSeries{}
	}
	to := from.Add(time.Duration(n) * precisionBucket)
	total := make([]float64, n)
	decodedTokens, decodingS := make([]float64, n), make([]float64, n)
	gaps := make([][]weighted, n)
	var arrived int
	for _, r := range recs {
		var prev time.Time
		for i := range r.Arrivals {
			at := r.at(i)
			if !inWindow(at, from, to) {
				continue
			}
			total[bucketOf(at, from)] += r.tokens(i)
			arrived++
			if !prev.IsZero() {
				spread(decodedTokens, decodingS, from, prev, at, r.tokens(i))
			}
			prev = at
		}
		eachGap(r, from, to, func(at time.Time, g weighted) {
			b := bucketOf(at, from)
			gaps[b] = append(gaps[b], g)
		})
	}
	s := bucketSeries{total: total, arrivals: arrived, gaps: gaps}
	for _, v := range total {
		s.tokens += v
	}
	for b := range n {
		if decodingS[b] > 0 {
			s.perRequest = append(s.perRequest, decodedTokens[b]/decodingS[b])
		}
		if len(gaps[b]) > 0 {
			s.itl = append(s.itl, weightedPercentiles(gaps[b]).P50)
		}
	}
	return s
}

// bucketOf is the index of the bucket (from+i s, from+(i+1) s] that holds
// t, for t after from.
func bucketOf(t, from time.Time) int { return int((t.Sub(from) - 1) / precisionBucket) }

// spread shares tokens that arrived at b, decoded since a, among the
// buckets that (a, b] overlaps, in proportion to the time in each, and
// adds that time to seconds. Both ends are inside the buckets.
func spread(tokens, seconds []float64, from, a, b time.Time, n float64) {
	whole := b.Sub(a).Seconds()
	if whole <= 0 {
		tokens[bucketOf(b, from)] += n
		return
	}
	for i := bucketOf(a.Add(1), from); i <= bucketOf(b, from); i++ {
		lo := from.Add(time.Duration(i) * precisionBucket)
		hi := lo.Add(precisionBucket)
		s := overlapS(a, b, lo, hi)
		tokens[i] += n * s / whole
		seconds[i] += s
	}
}

// restartsOf is when the cell's streams waited between requests in each of
// the n whole buckets after from: from a request's last token to the next
// request's first (or to the buckets' end, for a next request still
// waiting), per stream, in the order each stream sent them. The mean wait
// and the variance of the waits' lengths are of the waits with both ends,
// or of those cut by the end when none has.
func restartsOf(recs []*requestRecord, from time.Time, n, streams int) engine.Restarts {
	r := engine.Restarts{Waiting: make([]float64, n), Streams: streams}
	if n <= 0 {
		return r
	}
	to := bucketStart(from, n)
	latest := map[int]*requestRecord{} // each stream's latest request
	for _, rec := range recs {
		latest[rec.Worker] = rec
	}
	last := map[int]time.Time{} // each stream's last token so far
	var whole, cut []float64
	for _, rec := range recs {
		prev, seen := last[rec.Worker]
		if len(rec.Arrivals) > 0 {
			last[rec.Worker] = rec.at(len(rec.Arrivals) - 1)
		}
		waiting := len(rec.Arrivals) == 0
		if !seen || (waiting && latest[rec.Worker] != rec) {
			continue // a first request, or a failed one another followed
		}
		next := to
		if !waiting {
			next = rec.at(0)
		}
		if !next.After(from) || !prev.Before(to) || !next.After(prev) {
			continue
		}
		waitIn(r.Waiting, from, prev, minTime(next, to))
		if waiting {
			cut = append(cut, next.Sub(prev).Seconds())
		} else {
			whole = append(whole, next.Sub(prev).Seconds())
		}
	}
	r.Waits = len(whole) + len(cut)
	if len(whole) == 0 {
		whole = cut
	}
	r.SetWaits(whole)
	return r
}

// waitIn adds the seconds of (a, b] inside each bucket after from to
// seconds; a may be before from.
func waitIn(seconds []float64, from, a, b time.Time) {
	for i := max(0, bucketOf(maxTime(a, from).Add(1), from)); i < len(seconds) && i <= bucketOf(b, from); i++ {
		lo := bucketStart(from, i)
		seconds[i] += overlapS(a, b, lo, lo.Add(precisionBucket))
	}
}
