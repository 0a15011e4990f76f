package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// restartingStreams makes one window of n one-second buckets from streams
// of 512-token requests, 5 ms ± 1.5 ms between tokens (the ±30 % of issue
// 39's reviewer's server) and a 54-ms wait between requests: the tokens
// in each bucket and the stream-seconds spent waiting in it. together
// starts every stream at a request's first token as the window opens, as a
// decode cell's window does (the last stream's first token opens it);
// otherwise each stream is at a random point of a request. late waits
// 54 ms on average, but exponentially: a server whose first tokens come
// late now and then. It returns Restarts as the run counts them.
func restartingStreams(r *rand.Rand, n, streams int, together, late bool) (tokens []float64, rs Restarts) {
	const requestTokens = 512
	tokens = make([]float64, n)
	waiting := make([]float64, n)
	var waits []float64
	end := float64(n) * 1000 // ms
	for range streams {
		t, k := 0.0, 0
		if !together {
			t, k = -3000*r.Float64(), r.IntN(requestTokens)
		}
		for t < end {
			if k == requestTokens {
				wait := 54.0
				if late {
					wait = 54 * r.ExpFloat64()
				}
				for i := range waiting {
					lo, hi := float64(i)*1000, float64(i+1)*1000
					waiting[i] += max(0, min(t+wait, hi)-max(t, lo)) / 1000
				}
				if t+wait > 0 && t < end {
					waits = append(waits, wait/1000)
				}
				k, t = 0, t+wait
			}
			t += max(0.1, 5+1.5*r.NormFloat64())
			k++
			if t > 0 && t < end {
				tokens[int(t/1000)]++
			}
		}
	}
	rs = Restarts{Waiting: waiting, Streams: streams, Waits: len(waits), MeanWait: 0.054}
	if len(waits) > 1 {
		rs.SetWaits(waits)
	}
	return tokens, rs
}

// TestRestartsApart: with the restarts taken apart, the interval of total
// tok/s still holds the mean of 500 windows as a 95 % interval should
// (at least 94 %), and is at most 1.6 times as wide as one from the true
// spread of the windows' means; read as noise, the restarts of streams
// that started together made it 2–6 times as wide. Logged for METHODOLOGY.
func TestRestartsApart(t *testing.T) {
	if raceEnabled {
		t.Skip("arithmetic of one goroutine: run without -race (scripts/test.sh does)")
	}
	const windows = 500
	for _, c := range []struct {
		streams        int
		together, late bool
	}{{1, true, false}, {4, true, false}, {16, true, false}, {4, false, false}, {4, true, true}} {
		for _, n := range []int{6, 12, 20} {
			r := rand.New(rand.NewPCG(11, uint64(100*n+c.streams)))
			var means, apart, raw []float64
			for range windows {
				y, rs := restartingStreams(r, n, c.streams, c.together, c.late)
				means = append(means, meanOf(y))
				apart = append(apart, ratePrecision(y, rs).RelCI95)
				raw = append(raw, EstimatePrecision(y, 1).RelCI95)
			}
			m, sd, hit := meanCover(means, apart)
			slices.Sort(apart)
			slices.Sort(raw)
			ideal := 1.96 * sd / m
			t.Logf("%2d streams (together %v, late %v), %2d s: a known variance ±%.2f %%; restarts apart ±%.2f %% (%.2f×, %d of %d cover), as noise ±%.2f %% (%.2f×)",
				c.streams, c.together, c.late, n, 100*ideal, 100*apart[windows/2], apart[windows/2]/ideal, hit, windows, 100*raw[windows/2], raw[windows/2]/ideal)
			if float64(hit) < 0.94*windows || apart[windows/2] > 1.6*ideal {
				t.Errorf("%d streams, %d s: %d of %d cover, median ± %.2f %% against %.2f %%: want at least 94 %%, and at most 1.6 times",
					c.streams, n, hit, windows, 100*apart[windows/2], 100*ideal)
			}
		}
	}
}

// TestRestartsApartEdges: without waits, or with the same wait in every
// bucket, the estimate is EstimatePrecision's; a wait that explains the
// dips names its method.
func TestRestartsApartEdges(t *testing.T) {
	y := []float64{200, 190, 200, 200, 190, 200, 200, 190}
	plain := EstimatePrecision(y, 1)
	for name, r := range map[string]Restarts{
		"none":        {},
		"flat":        {Waiting: []float64{0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05}, MeanWait: 0.05, Streams: 1},
		"wrong count": {Waiting: []float64{0, 0.05}, MeanWait: 0.05, Streams: 1},
	} {
		if got := ratePrecision(y, r); got != plain {
			t.Errorf("%s: %+v, want EstimatePrecision's %+v", name, got, plain)
		}
	}
	dips := Restarts{Waiting: []float64{0, 0.05, 0, 0, 0.05, 0, 0, 0.05}, MeanWait: 0.05, Streams: 1}
	got := ratePrecision(y, dips)
	if got.Method != methodRestarts || !got.Known() || got.RelCI95 >= plain.RelCI95 {
		t.Errorf("dips every third second: %+v, want %q and narrower than %+v", got, methodRestarts, plain)
	}
}

// ratePrecision is EstimateRate's precision of buckets of one-token steps.
func ratePrecision(values []float64, r Restarts) Precision {
	p, _ := EstimateRate(values, 1, r)
	return p
}
