package measure

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"speedmatrix/engine/openai"
)

// metricSample is one scrape of the server's /metrics, reduced to what the
// trust checks read.
type metricSample struct {
	// At is halfway through the scrape: the server wrote the page some
	// time between the request and the answer. Took is how long that was.
	At               time.Time
	Took             time.Duration
	Running, Waiting float64
	KVUsagePct       float64
	GenTokens        float64
	HasGen           bool
	ITLCount         float64 // inter-token latency observations
	TTFTCount        float64 // first-token observations
	HasITL           bool
	Preemptions      float64
	SpecDrafts       float64
	SpecDraftTokens  float64
	SpecAccepted     float64
	HasSpec          bool
	GenThroughput    float64 // a gauge of generated tokens per second (SGLang)
	HasThroughput    bool
	PrefixQueries    float64 // prompt tokens looked up in the prefix cache
	PrefixHits       float64 // of those, found there
	HasPrefix        bool
	CacheHitRate     float64 // a gauge of the prefix cache's recent hit rate (SGLang)
	HasCacheHitRate  bool
}

// sampledFigures are the figures a metricSample reads: a scrape with a
// bad value (openai.BadValue) in any of them is skipped.
var sampledFigures = []openai.Figure{openai.Running, openai.Waiting, openai.KVCacheUsage, openai.KVCacheUsageOld,
	openai.GenerationTokens, openai.ITLCount, openai.ITLCountOld, openai.TTFTCount, openai.Preemptions,
	openai.SpecDrafts, openai.SpecDraftTokens, openai.SpecAcceptedTokens, openai.GenThroughput,
	openai.PrefixCacheHits, openai.PrefixCacheHitsOld, openai.PrefixCacheQueries, openai.PrefixCacheQueriesOld, openai.CacheHitRate}

func sampleOf(at time.Time, m openai.Metrics) metricSample {
	return metricSample{
		At: at, Running: m.Running, Waiting: m.Waiting, KVUsagePct: 100 * m.KVCacheUsage,
		GenTokens: m.GenerationTokens, HasGen: m.HasGenerationTokens,
		ITLCount: m.ITLCount, TTFTCount: m.TTFTCount, HasITL: m.HasITL,
		Preemptions: m.Preemptions,
		SpecDrafts:  m.SpecDrafts, SpecDraftTokens: m.SpecDraftTokens, SpecAccepted: m.SpecAcceptedTokens,
		HasSpec:       m.HasSpecDecode,
		GenThroughput: m.GenThroughput, HasThroughput: m.HasGenThroughput,
		PrefixQueries: m.PrefixCacheQueries, PrefixHits: m.PrefixCacheHits, HasPrefix: m.HasPrefixCache,
		CacheHitRate: m.CacheHitRate, HasCacheHitRate: m.HasCacheHitRate,
	}
}

// load is how many requests the server holds.
func (s metricSample) load() int { return int(s.Running + s.Waiting + 0.5) }

// serverWatch scrapes the server's /metrics several times a second for the
// whole run. Each cell reads the samples taken while it ran (the server's
// own count of running requests, generated tokens and preemptions), and
// the idle check and the drain barrier wait on them.
type serverWatch struct {
	scrape  func(ctx context.Context) (openai.Metrics, error)
	every   time.Duration
	onError func(error) // a scrape that failed without an answer
	onEvent func(metricSample)
	onBad   func(badSampleError) // a scrape skipped for a bad value

	mu      sync.Mutex
	samples []metricSample // since the current cell began, after base
	base    metricSample   // the last sample before the current cell
	hasBase bool
	bad     badScrapes    // since the current cell began
	changed chan struct{} // closed and replaced at every scrape that answered
	lost    error         // why scraping stopped, if it did
	now     chan struct{} // asks for a scrape now (capacity 1)
}

// badScrapes counts the scrapes skipped for a bad value.
type badScrapes struct {
	n, inARow int // since the current cell began; since the last good one
	first     badSampleError
	last      badSampleError
	lastAt    time.Time // when the last was scraped
}

// badSampleError is a scrape skipped because a figure it reads had a
// value no server could mean.
type badSampleError struct{ openai.BadValue }

// Error says it as the log does: "the server's /metrics gave
// vllm:num_requests_running = +Inf: a bad sample, skipped".
func (e badSampleError) Error() string {
	return "the server's /metrics gave " + e.String() + ": a bad sample, skipped"
}

// badInARow is how many scrapes in a row may be bad before a wait on the
// server's state gives up (a second, at the default 4 scrapes a second).
const badInARow = 4

func newServerWatch(scrape func(ctx context.Context) (openai.Metrics, error), every time.Duration) *serverWatch {
	return &serverWatch{scrape: scrape, every: every, changed: make(chan struct{}), now: make(chan struct{}, 1)}
}

// run scrapes every w.every until ctx is done, or until the server answers
// that it has no /metrics.
func (w *serverWatch) run(ctx context.Context) {
	tick := time.NewTicker(w.every)
	defer tick.Stop()
	for {
		sent := time.Now()
		m, err := w.scrape(ctx)
		took := time.Since(sent)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && m.HasRequests:
			if b, bad := m.BadOf(sampledFigures...); bad {
				w.skip(badSampleError{b}, sent.Add(took/2))
				break
			}
			s := sampleOf(sent.Add(took/2), m)
			s.Took = took
			w.add(s)
		case err == nil || errors.Is(err, openai.ErrNotSupported):
			w.stop(errors.New("the server stopped serving its metrics"))
			return
		default:
			if w.onError != nil {
				w.onError(err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-w.now:
		}
	}
}

// poke asks for a scrape now rather than at the next tick, so that the
// drain barrier sees the server's state as soon as the streams close.
func (w *serverWatch) poke() {
	select {
	case w.now <- struct{}{}:
	default:
	}
}

func (w *serverWatch) add(s metricSample) {
	w.mu.Lock()
	w.samples = append(w.samples, s)
	w.bad.inARow = 0
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
	if w.onEvent != nil {
		w.onEvent(s)
	}
}

// skip notes a scrape left out for a bad value, taken at.
func (w *serverWatch) skip(b badSampleError, at time.Time) {
	w.mu.Lock()
	if w.bad.n == 0 {
		w.bad.first = b
	}
	w.bad.n++
	w.bad.inARow++
	w.bad.last, w.bad.lastAt = b, at
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
	if w.onBad != nil {
		w.onBad(b)
	}
}

// cellBad returns the scrapes skipped for a bad value since the current
// cell began.
func (w *serverWatch) cellBad() badScrapes {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bad
}

func (w *serverWatch) stop(why error) {
	w.mu.Lock()
	w.lost = why
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
}

// startCell forgets the samples of earlier cells, keeping the newest as
// the base the cell's counters are measured from.
func (w *serverWatch) startCell() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.samples); n > 0 {
		w.base, w.hasBase = w.samples[n-1], true
	}
	w.samples = w.samples[:0:0]
	w.bad = badScrapes{inARow: w.bad.inARow, last: w.bad.last, lastAt: w.bad.lastAt}
}

// cellSamples returns the base and every sample since the cell began.
func (w *serverWatch) cellSamples() []metricSample {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]metricSample, 0, len(w.samples)+1)
	if w.hasBase {
		out = append(out, w.base)
	}
	return append(out, w.samples...)
}

// watchState is the watch at one moment.
type watchState struct {
	last metricSample // the newest sample
	ok   bool         // there is one
	// next is closed at the next scrape that answers, or when scraping stops.
	next <-chan struct{}
	lost error // why scraping stopped, if it did
	bad  badScrapes
}

// latest returns the watch's state.
func (w *serverWatch) latest() watchState {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := watchState{last: w.base, ok: w.hasBase, next: w.changed, lost: w.lost, bad: w.bad}
	if n := len(w.samples); n > 0 {
		st.last, st.ok = w.samples[n-1], true
	}
	return st
}

// errNoSample: scraping stopped, or gave only bad samples, before the
// barrier could decide.
var errNoSample = errors.New("no /metrics sample")

// waitIdle waits until a sample taken after since shows no request running
// or waiting, for at most limit, and then a little longer for a first
// sample after since. It returns when that sample was taken (the time it
// took, from since) and the last sample seen when it gave up. It gives up
// at once when stop is closed (the server stopped answering), and with
// errNoSample when scraping stopped or the scrapes are bad (badInARow of
// them, or the newest once limit has passed).
func (w *serverWatch) waitIdle(ctx context.Context, since time.Time, limit time.Duration, stop <-chan struct{}) (time.Duration, metricSample, error) {
	w.poke()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	var grace <-chan time.Time
	expired := false
	for {
		st := w.latest()
		s := st.last
		fresh := st.ok && s.At.After(since)
		switch {
		case fresh && s.load() == 0:
			return s.At.Sub(since), s, nil
		case fresh && expired:
			return limit, s, context.DeadlineExceeded
		case st.lost != nil:
			return 0, s, fmt.Errorf("%w: %w", errNoSample, st.lost)
		case st.bad.lastAt.After(since) && (st.bad.inARow >= badInARow || expired && st.bad.inARow > 0):
			return 0, s, fmt.Errorf("%w: %w", errNoSample, st.bad.last)
		}
		select {
		case <-st.next:
		case <-deadline.C:
			expired = true
			grace = time.After(max(time.Second, 4*w.every))
		case <-grace:
			return limit, s, context.DeadlineExceeded
		case <-stop:
			return 0, s, errNoSample
		case <-ctx.Done():
			return 0, s, ctx.Err()
		}
	}
}
