package measure

import (
	"context"
	"math"
	"os"
	"speedmatrix/engine"
	"testing"
	"time"
)

// realtime reports whether the tests that time real streams hold them to
// the fake server's truth (SPEEDMATRIX_REALTIME=1; scripts/test.sh's
// exactness step, with the package alone): elsewhere, on a busy machine,
// another process delays the client's goroutines and the fake server's,
// and they check only what timing cannot move.
func realtime() bool { return os.Getenv("SPEEDMATRIX_REALTIME") == "1" }

func testOptions() runOptions {
	return runOptions{
		warmupTimeout:     10 * time.Second,
		firstTokenTimeout: 2 * time.Second,
		stallTimeout:      2 * time.Second,
		requestTimeout:    10 * time.Second, // hang bounds: a busy machine took over 2 s to answer /tokenize
		sampleEvery:       100 * time.Millisecond,
		metricsEvery:      25 * time.Millisecond,
		retryPause:        20 * time.Millisecond,
		idleWait:          time.Second,
		drainWait:         5 * time.Second,
		probeTimeout:      10 * time.Second,
	}
}

// runAll runs a plan to the end and returns the final report, its error and
// every event.
func runAll(t *testing.T, ctx context.Context, plan engine.Plan, target Subject, opts runOptions) (engine.Report, []engine.Event, error) {
	t.Helper()
	var events []engine.Event
	for ev := range runWith(ctx, plan, target, opts) {
		events = append(events, ev)
	}
	last := events[len(events)-1]
	if last.Kind != engine.EventDone || last.Report == nil {
		t.Fatalf("last event is %v, want EventDone with a report", last.Kind)
	}
	return *last.Report, events, last.Err
}

func decodePlan(contextTokens, concurrency int, d time.Duration, maxOut int, api engine.API) engine.Plan {
	return engine.Plan{
		DecodeContexts: []int{contextTokens}, Concurrency: []int{concurrency},
		Duration: d, MaxOutputTokens: maxOut, API: api, LoopDetection: true,
	}
}

func findResult(t *testing.T, rep engine.Report, phase engine.Phase) engine.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.Phase == phase {
			return r
		}
	}
	t.Fatalf("no %s result in %+v", phase, rep.Results)
	return engine.Result{}
}

// truth computes, from the server's own log, the output tokens it sent in
// the window and the median time it took to send each request's first token.
func truth(f *fakeServer, from time.Time, d time.Duration) (tokPerSec, ttftMs float64) {
	to := from.Add(d)
	var n int
	var ttfts []float64
	for _, r := range f.requestsLog() {
		if len(r.Sent) < 2 { // sizing and warm-up requests
			continue
		}
		ttfts = append(ttfts, ms(r.Sent[0].Sub(r.Received)))
		for _, s := range r.Sent {
			if s.After(from) && !s.After(to) {
				n++
			}
		}
	}
	return float64(n) / d.Seconds(), percentiles(ttfts).P50
}

func within(t *testing.T, what string, got, want, tolerance float64) {
	t.Helper()
	if want == 0 || math.Abs(got-want)/want > tolerance {
		t.Errorf("%s = %.2f, want %.2f ± %.0f %%", what, got, want, 100*tolerance)
	} else {
		t.Logf("%s = %.2f, truth %.2f (%+.2f %%)", what, got, want, 100*(got-want)/want)
	}
}

// TestDecodeExactness checks the figures against servers whose timing is
// known: a token every 20 ms after a 60 ms TTFT, four streams. It holds
// with the other core busy: the fake's schedule and its truth count from
// when the client sent (not from when the handler got to run), and the
// window ends between tokens, so what a busy machine delays is the same
// for the engine and the truth.
func TestDecodeExactness(t *testing.T) {
	cases := []struct {
		name   string
		o      fakeOpts
		maxOut int
		api    engine.API
	}{
		{"continuous usage", fakeOpts{Usage: usageContinuous}, 10000, engine.APICompletions},
		{"usage only at the end", fakeOpts{Usage: usageFinal}, 10000, engine.APIChat},
		{"no usage", fakeOpts{Usage: usageNone}, 10000, engine.APICompletions},
		{"4 tokens per chunk, usage at the end", fakeOpts{Usage: usageFinal, TokensPerChunk: 4}, 40, engine.APICompletions},
		{"4 tokens per chunk, continuous usage", fakeOpts{Usage: usageContinuous, TokensPerChunk: 4}, 10000, engine.APIChat},
		{"reasoning then content", fakeOpts{Usage: usageFinal, Reasoning: 30}, 10000, engine.APIChat},
	}
	for _, c := range cases {
		// One at a time when the timing is checked (realtime): parallel
		// streams of other subtests would be the scheduling noise it must
		// not measure. Otherwise side by side: what is checked then are
		// windows and counts, which no load moves.
		t.Run(c.name, func(t *testing.T) {
			if !realtime() {
				t.Parallel()
			}
			c.o.TTFT, c.o.Interval = 60*time.Millisecond, exactInterval
			f := newFakeServer(t, c.o)
			// The window opens on a token's arrival and the four streams
			// run in step, so a window of whole intervals would end on
			// every stream's token: the engine counts it by arrival, the
			// truth by send, and a few ms of delay on a busy machine move
			// it out of one count only. 100.5 intervals end between tokens.
			d := 2*time.Second + exactInterval/2
			opts := testOptions()
			opts.wrapTransport = stampClientSent // the schedule starts when the client sent
			rep, _, err := runAll(t, t.Context(), decodePlan(2*engine.K, 4, d, c.maxOut, c.api), Subject{Target: Target{BaseURL: f.URL}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			r := findResult(t, rep, engine.PhaseDecode)
			if r.Status != engine.StatusValid {
				t.Fatalf("status %s (%s), want Valid", r.Status, r.Error)
			}
			if r.MeasuredS != d.Seconds() {
				t.Errorf("measured %.2f s, want the window's %.1f s", r.MeasuredS, d.Seconds())
			}
			// 2.01 s holds 2 whole one-second buckets: too few for a precision.
			if p := r.Precision; p == nil || p.TotalTokPerSec.Buckets != 2 || p.TotalTokPerSec.Known() || p.ITLMs.Buckets != 2 {
				t.Errorf("precision %+v: want 2 buckets each, too few to estimate", p)
			}
			if realtime() {
				checkTiming(t, f, r, d, c.maxOut)
			}
			if got := int(math.Round(r.TotalTokPerSec * d.Seconds())); got != r.OutputTokens {
				t.Errorf("output tokens %d, want total × window = %d", r.OutputTokens, got)
			}
		})
	}
}

// exactInterval is the fake servers' time between tokens in
// TestDecodeExactness.
const exactInterval = 20 * time.Millisecond

// checkTiming holds a decode cell's figures to the fake server's truth at
// the specified tolerances (widened by the race detector's slowdown):
// total and per-request tok/s within 2 %, TTFT within 5 ms, ITL within
// 5 %, and the active requests.
func checkTiming(t *testing.T, f *fakeServer, r engine.Result, d time.Duration, maxOut int) {
	t.Helper()
	total, ttft := truth(f, r.WindowStart, d)
	within(t, "total tok/s", r.TotalTokPerSec, total, 0.02*raceSlowdown)
	within(t, "per request tok/s", r.PerRequestTokPerSec, float64(time.Second/exactInterval), 0.02*raceSlowdown)
	if math.Abs(r.TTFTMs-ttft) > 5*raceSlowdown {
		t.Errorf("TTFT = %.1f ms, server's truth %.1f ms: off by more than %d ms", r.TTFTMs, ttft, 5*raceSlowdown)
	} else {
		t.Logf("TTFT = %.2f ms, truth %.2f ms (%+.2f ms)", r.TTFTMs, ttft, r.TTFTMs-ttft)
	}
	within(t, "ITL ms", r.ITLMs, ms(exactInterval), 0.05*raceSlowdown)
	// Active means decoding: a request waiting for its first token
	// isn't. Streams of 40 tokens spend 60 of every 840 ms waiting.
	wantActive := 4.0
	if maxOut == 40 {
		wantActive = 4 * 780.0 / 840
	}
	if math.Abs(r.AvgActive-wantActive) > 0.15*raceSlowdown {
		t.Errorf("avg active %.2f; want %.2f", r.AvgActive, wantActive)
	}
}

// TestPercentiles: percentiles interpolate between ranks, weighted ones
// count each value by its weight, and both say how many values they read.
func TestPercentiles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name          string
		got           engine.Percentiles
		p50, p90, p99 float64
		n             int
	}{
		{"ranks", percentiles([]float64{5, 1, 4, 2, 3}), 3, 4.6, 4.96, 5},
		{"weighted: 3 of 4 gaps are 2 ms", weightedPercentiles([]weighted{{Value: 10, Weight: 1}, {Value: 2, Weight: 3}}), 2, 10, 10, 2},
		{"no values", percentiles(nil), 0, 0, 0, 0},
		{"no weighted values", weightedPercentiles(nil), 0, 0, 0, 0},
	} {
		g := c.got
		if math.Abs(g.P50-c.p50) > 1e-9 || math.Abs(g.P90-c.p90) > 1e-9 || math.Abs(g.P99-c.p99) > 1e-9 || g.N != c.n {
			t.Errorf("%s: %+v, want p50 %v, p90 %v, p99 %v, n %d", c.name, g, c.p50, c.p90, c.p99, c.n)
		}
	}
}

// TestSpeedPercentilesLowTail: a speed's slow requests are its low end, so
// its p10 and p1 are kept, below its median; a latency's are not.
func TestSpeedPercentilesLowTail(t *testing.T) {
	t.Parallel()
	rates := make([]float64, 101) // 0, 1, … 100 tok/s
	for i := range rates {
		rates[100-i] = float64(i)
	}
	p := speedPercentiles(rates)
	if p.P10 != 10 || p.P1 != 1 || p.P50 != 50 || p.P99 != 99 || p.N != 101 {
		t.Errorf("speed percentiles %+v: want p1 1, p10 10, p50 50, p99 99 of 101", p)
	}
	if lat := percentiles(rates); lat.P10 != 0 || lat.P1 != 0 {
		t.Errorf("a latency's percentiles keep a low tail: %+v", lat)
	}
	if z := speedPercentiles(nil); z != (engine.Percentiles{}) {
		t.Errorf("no values: %+v", z)
	}
	from := time.Now()
	slow, fast := &requestRecord{Sent: from, FirstToken: from, FinalTokens: -1}, &requestRecord{Sent: from, FirstToken: from, FinalTokens: -1}
	for j := 1; j <= 10; j++ {
		slow.add(chunkTokens{At: from.Add(time.Duration(j) * 200 * time.Millisecond), Tokens: 1}) // 5 tok/s
		fast.add(chunkTokens{At: from.Add(time.Duration(j) * 50 * time.Millisecond), Tokens: 1})  // 20 tok/s
	}
	f := computeDecode([]*requestRecord{fast, slow}, from, from.Add(3*time.Second))
	if f.PerRequest.P1 >= f.PerRequest.P50 || math.Abs(f.PerRequest.P1-5.15) > 0.01 {
		t.Errorf("per-request tok/s %+v: want the slow request (5 tok/s) near p1, below the median", f.PerRequest)
	}
}

// TestDecodeSampleCounts: a decode cell's percentiles say what they were
// computed from: TTFT over every request with a first token, per-request
// tok/s over every request with a rate inside the window, and time between
// tokens over every gap between chunks inside it, pooled across requests
// (not per-request medians); a chunk of 3 tokens is one gap of the count.
func TestDecodeSampleCounts(t *testing.T) {
	t.Parallel()
	from := time.Now()
	to := from.Add(10 * time.Second)
	stream := func(tokensPerChunk float64, chunks int) *requestRecord {
		r := &requestRecord{Sent: from.Add(-time.Second), FirstToken: from.Add(-50 * time.Millisecond), FinalTokens: -1}
		for j := range chunks {
			r.add(chunkTokens{At: r.FirstToken.Add(time.Duration(j) * 100 * time.Millisecond), Tokens: tokensPerChunk})
		}
		return r
	}
	// 1 chunk before the window and 50 inside each: 50 gaps inside.
	recs := []*requestRecord{stream(1, 51), stream(3, 51), {Sent: from, FinalTokens: -1}}
	f := computeDecode(recs, from, to)
	if f.TTFTMs.N != 2 || f.PerRequest.N != 2 || f.ITLMs.N != 100 {
		t.Errorf("samples: TTFT %d, per-request %d, time between tokens %d; want 2, 2 and 100", f.TTFTMs.N, f.PerRequest.N, f.ITLMs.N)
	}
	if !f.TTFTMs.FewForP99() || f.ITLMs.FewForP99() {
		t.Errorf("few for p99: TTFT %v (2 samples), time between tokens %v (100)", f.TTFTMs.FewForP99(), f.ITLMs.FewForP99())
	}
}

// BenchmarkComputeDecode computes a reference-sized cell: 128 streams of 75
// tok/s, one token per chunk, over a 30 s window.
func BenchmarkComputeDecode(b *testing.B) {
	from := time.Now()
	to := from.Add(30 * time.Second)
	recs := make([]*requestRecord, 128)
	for i := range recs {
		r := &requestRecord{Sent: from.Add(-time.Second), FirstToken: from.Add(-500 * time.Millisecond), FinalTokens: -1}
		for j := range 30 * 75 {
			r.add(chunkTokens{At: r.FirstToken.Add(time.Duration(j) * time.Second / 75), Tokens: 1, Estimated: true})
		}
		recs[i] = r
	}
	b.ResetTimer()
	for b.Loop() {
		f := computeDecode(recs, from, to)
		if f.TokensInWindow == 0 {
			b.Fatal("no tokens")
		}
	}
	b.ReportMetric(float64(128*30*75), "tokens/op")
}
