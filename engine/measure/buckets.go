package measure

import (
	"time"

	"speedmatrix/engine"
)

// precisionBucket is the width of the buckets a cell's precision is
// estimated over: long next to a decode step, short next to a window.
const precisionBucket = time.Second

// cellPrecision estimates how well a decode cell's headline figures over
// the window [from, to] are known, from when its requests' tokens arrived.
// Only whole buckets count: a partial last one (a window that is not a
// whole number of seconds) is left out rather than weighed as a full one.
//
// Total tok/s moves by whole decode steps: streams tokens at a time, each
// stream's chunk holding the tokens its arrivals hold on average (one, for
// vLLM's default stream interval); that is its resolution. The other two
// figures are rates and gaps, continuous.
func cellPrecision(recs []*requestRecord, from, to time.Time, streams int) *engine.CellPrecision {
	s := bucketSeriesOf(recs, from, int(to.Sub(from)/precisionBucket))
	step := float64(streams)
	if s.arrivals > 0 {
		step *= s.tokens / float64(s.arrivals)
	}
	return &engine.CellPrecision{
		TotalTokPerSec:      engine.EstimatePrecision(s.total, step),
		PerRequestTokPerSec: engine.EstimatePrecision(s.perRequest, 0),
		ITLMs:               engine.EstimatePrecision(s.itl, 0),
	}
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
	s := bucketSeries{total: total, arrivals: arrived}
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
