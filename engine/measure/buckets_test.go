package measure

import (
	"math"
	"slices"
	"testing"
	"time"

	"speedmatrix/engine"
)

// steadyRecord is a stream that received one token every gap from start to
// end (offsets from base), except in the stalls (start, end) given.
func steadyRecord(base time.Time, start, end, gap time.Duration, stalls ...[2]time.Duration) *requestRecord {
	r := &requestRecord{FinalTokens: -1, Sent: base.Add(start - gap), FirstToken: base.Add(start)}
	for at := start; at <= end; at += gap {
		if slices.ContainsFunc(stalls, func(s [2]time.Duration) bool { return at > s[0] && at < s[1] }) {
			continue
		}
		r.add(chunkTokens{At: base.Add(at), Tokens: 1})
	}
	return r
}

// TestBucketSeries builds the per-second series from streams whose figures
// are known: a partial last bucket left out, a stall as a zero in total
// tok/s, a slow second in per-request tok/s, and no ITL bucket without a gap.
func TestBucketSeries(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	cases := []struct {
		name       string
		recs       []*requestRecord
		window     time.Duration
		total      []float64
		perRequest []float64
		itl        []float64
	}{
		{"steady, 4.5 s", []*requestRecord{steadyRecord(from, -500*ms, 5000*ms, 100*ms)}, 4500 * ms,
			[]float64{10, 10, 10, 10}, []float64{10, 10, 10, 10}, []float64{100, 100, 100, 100}},
		// The late stream's first token (at 2.05 s) starts its rate: 19
		// tokens in 0.95 s beside the other's 10 in 1 s.
		{"two streams, one starts late", []*requestRecord{
			steadyRecord(from, -500*ms, 5000*ms, 100*ms), steadyRecord(from, 2050*ms, 5000*ms, 50*ms)}, 4 * time.Second,
			[]float64{10, 10, 30, 30}, []float64{10, 10, (10 + 19) / 1.95, 15}, []float64{100, 100, 50, 50}},
		// The token at 3.1 s ends a gap of 1.1 s: 1/1.1 of it decoded in
		// the third second, the rest in the fourth beside 9 more tokens.
		{"a stall through the third second", []*requestRecord{steadyRecord(from, -500*ms, 5000*ms, 100*ms, [2]time.Duration{2050 * ms, 3050 * ms})}, 4 * time.Second,
			[]float64{10, 10, 0, 10}, []float64{10, 10, 1 / 1.1, 9 + 0.1/1.1}, []float64{100, 100, 100}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := bucketSeriesOf(c.recs, from, int(c.window/precisionBucket))
			near := func(a, b []float64) bool {
				return slices.EqualFunc(a, b, func(x, y float64) bool { return x-y < 1e-6 && y-x < 1e-6 })
			}
			if !near(s.total, c.total) || !near(s.perRequest, c.perRequest) || !near(s.itl, c.itl) {
				t.Errorf("series\n total %v, want %v\n per request %v, want %v\n itl %v, want %v",
					s.total, c.total, s.perRequest, c.perRequest, s.itl, c.itl)
			}
		})
	}
}

// TestCellPrecision estimates a cell's three figures end to end: a flat
// stream's rate and ITL are known exactly, its total tok/s only to the
// rounding of its buckets to whole tokens (10 a second here: a token is
// 10 % of a bucket); a stream with stalls has a margin on its tok/s but
// none on its median ITL (a stall is one long gap among many), and a
// window under minPrecisionBuckets seconds says it can't tell.
func TestCellPrecision(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	steady := steadyRecord(from, -500*ms, 9000*ms, 100*ms)
	stalled := steadyRecord(from, -500*ms, 9000*ms, 100*ms, [2]time.Duration{2050 * ms, 2550 * ms}, [2]time.Duration{6050 * ms, 6850 * ms})
	cases := []struct {
		name   string
		rec    *requestRecord
		window time.Duration
		flat   [3]bool // total, per request, ITL exactly known (RelCI95 0)
		known  bool
	}{
		{"steady, 8.5 s", steady, 8500 * ms, [3]bool{false, true, true}, true},
		{"two stalls, 8 s", stalled, 8 * time.Second, [3]bool{false, false, true}, true},
		{"steady, 3.9 s", steady, 3900 * ms, [3]bool{true, true, true}, false}, // unknown: 0
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := cellPrecision([]*requestRecord{c.rec}, from, from.Add(c.window), 1, true)
			// 8 buckets of 10 tokens, overlapping batches of 2 (4.5 degrees
			// of freedom, rounded down): t₄ · √(1/12 / 8) / 10.
			if rounding := 2.776 * math.Sqrt(1.0/12/8) / 10; c.rec == steady && c.known && math.Abs(p.TotalTokPerSec.RelCI95-rounding) > 1e-4 {
				t.Errorf("steady total tok/s ± %g, want the rounding to whole tokens, %g", p.TotalTokPerSec.RelCI95, rounding)
			}
			for i, f := range []engine.Precision{p.TotalTokPerSec, p.PerRequestTokPerSec, p.ITLMs} {
				if f.Known() != c.known || (f.RelCI95 == 0) != c.flat[i] || f.Buckets != int(c.window/time.Second) {
					t.Errorf("figure %d: %+v, want known %v, flat %v, %d buckets", i, f, c.known, c.flat[i], int(c.window/time.Second))
				}
			}
		})
	}
}

// TestPerRequestSectionsOnePass: the one pass over the arrivals that
// sections per-request tok/s gives what measuring each request over each
// batch with requestWindow gives.
func TestPerRequestSectionsOnePass(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	recs := []*requestRecord{
		steadyRecord(from, -500*ms, 9000*ms, 100*ms),
		steadyRecord(from, -300*ms, 4000*ms, 70*ms, [2]time.Duration{2050 * ms, 2550 * ms}),
		steadyRecord(from, 4200*ms, 9500*ms, 90*ms, [2]time.Duration{6050 * ms, 6850 * ms}),
	}
	const n = 9
	s := bucketSeriesOf(recs, from, n)
	got := perRequestPrecision(recs, from, n, s.perRequest)
	b, rho := engine.BatchPlan(s.perRequest)
	medianIn := func(lo, hi int) float64 {
		var rates []float64
		for _, r := range recs {
			if _, rate, ok := requestWindow(r, bucketStart(from, lo), bucketStart(from, hi)); ok {
				rates = append(rates, rate)
			}
		}
		return percentiles(rates).P50
	}
	var sections []float64
	for _, sec := range engine.Sections(n, b) {
		if f := medianIn(sec[0], sec[1]); f > 0 {
			sections = append(sections, f)
		}
	}
	want := engine.EstimateSectioned(medianIn(0, n), sections, b, rho, n)
	if got != want || !got.Known() {
		t.Errorf("one pass %+v, batch by batch %+v", got, want)
	}
}

// TestRestartsOf finds each stream's waits between requests, bucket by
// bucket: a wait across a bucket's edge split between the two, a failed
// request another followed not counted twice, a next request still waiting
// counted to the window's end, a first request's start not counted, and
// the mean of the waits with both ends.
func TestRestartsOf(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	at := func(worker int, r *requestRecord) *requestRecord { r.Worker = worker; return r }
	recs := []*requestRecord{
		// stream 0: a request until 0.9 s, the next from 1.1 s (a wait
		// across the first bucket's end), to 3.9 s, then one still waiting.
		at(0, steadyRecord(from, -2000*ms, 900*ms, 100*ms)),
		at(1, steadyRecord(from, 200*ms, 2000*ms, 100*ms)), // stream 1's first request in the window
		at(0, steadyRecord(from, 1100*ms, 3900*ms, 100*ms)),
		at(1, &requestRecord{FinalTokens: -1}), // failed, followed by another
		at(1, steadyRecord(from, 2300*ms, 4000*ms, 100*ms)),
		at(0, &requestRecord{FinalTokens: -1}), // sent, no token yet
	}
	r := restartsOf(recs, from, 4, 2)
	want := []float64{0.1, 0.1, 0.3, 0.1}
	for i := range want {
		if math.Abs(r.Waiting[i]-want[i]) > 1e-9 {
			t.Errorf("waiting %v, want %v", r.Waiting, want)
			break
		}
	}
	if math.Abs(r.MeanWait-0.25) > 1e-9 || math.Abs(r.WaitVar-0.005) > 1e-9 || r.Waits != 3 || r.Streams != 2 {
		t.Errorf("mean wait %v s (variance %v s²) of %d waits over %d streams, want 0.25 s (0.2 and 0.3; 0.005 s²) of 3 over 2",
			r.MeanWait, r.WaitVar, r.Waits, r.Streams)
	}
}
