package measure

import (
	"math"
	"slices"
	"speedmatrix/engine"
	"speedmatrix/engine/openai"
	"time"
)

// chunkTokens is what one chunk of a stream counted for: its output tokens,
// at the moment its bytes were read. Estimated is set when the tokens are a
// guess (one per chunk of text) rather than a delta of continuous usage
// stats.
type chunkTokens struct {
	At        time.Time
	Tokens    float64
	Estimated bool
}

// arrival is a chunkTokens as a request keeps it: 8 bytes, where a
// time.Time, a float64 and a bool took 40. A decode cell keeps every
// arrival of its streams until it ends (a million and more at 128 streams),
// and in the desktop app they were half of the live heap.
type arrival struct {
	ticks  uint32 // arrivalTick units since the request's first arrival
	tokens float32
}

// arrivalTick is the resolution of arrival times: far finer than the
// milliseconds the figures report, and a uint32 of them spans 4.7 hours,
// longer than any request of a cell.
const arrivalTick = 4 * time.Microsecond

// add keeps one counted chunk. Once a stream is counted by text it stays
// so (tokenCounter), so one index says which arrivals are estimated.
func (r *requestRecord) add(c chunkTokens) {
	if len(r.Arrivals) == 0 {
		r.arrivalBase = c.At
	}
	d := max(c.At.Sub(r.arrivalBase), 0) / arrivalTick
	if c.Estimated && r.estimatedFrom == 0 {
		r.estimatedFrom = len(r.Arrivals) + 1
	}
	r.Arrivals = append(r.Arrivals, arrival{ticks: uint32(min(d, math.MaxUint32)), tokens: float32(c.Tokens)})
}

// at is when arrival i came, on the monotonic clock like time.Now's
// readings.
func (r *requestRecord) at(i int) time.Time {
	return r.arrivalBase.Add(time.Duration(r.Arrivals[i].ticks) * arrivalTick)
}

// tokens is what arrival i counted for.
func (r *requestRecord) tokens(i int) float64 { return float64(r.Arrivals[i].tokens) }

// estimated reports whether arrival i's count is a guess.
func (r *requestRecord) estimated(i int) bool {
	return r.estimatedFrom > 0 && i >= r.estimatedFrom-1
}

// scale multiplies arrival i's count by f.
func (r *requestRecord) scale(i int, f float64) {
	r.Arrivals[i].tokens = float32(float64(r.Arrivals[i].tokens) * f)
}

// requestRecord is everything one streaming request did, in client time.
type requestRecord struct {
	Worker      int // which of the cell's streams sent it
	Sent        time.Time
	FirstToken  time.Time // zero: no token arrived
	End         time.Time // zero: still running when the cell stopped it
	Arrivals    []arrival // through add, at, tokens, estimated and scale
	arrivalBase time.Time // the first arrival's time, which the others count from
	// estimatedFrom is 1 + the index of the first estimated arrival; 0
	// when none is.
	estimatedFrom int
	// FinalTokens is the completion token count of the last usage seen at
	// the end of a finished stream; -1 when unknown.
	FinalTokens  int
	PromptTokens int
	Finished     bool // the server ended the stream normally
	Err          error
	Looped       bool
	FinishReason string
	// RID is the request's id on the server when its cell stopped it while
	// it was still streaming, for the abort by id; "" otherwise.
	RID string
	// Reasoned is set once a chunk carried reasoning (thinking) text;
	// FirstAnswer is the arrival of the first chunk with answer text, and
	// answerFrom 1 + the index of its arrival (0: none yet). A reply thinks
	// first and then answers, so the arrivals before answerFrom are its
	// reasoning tokens (reasoningSplit).
	Reasoned    bool
	FirstAnswer time.Time
	answerFrom  int
}

// addChunk keeps one counted chunk and notes where the answer began: the
// first arrival whose chunk carried answer text, in a reply that reasoned.
func (r *requestRecord) addChunk(ch openai.Chunk, a chunkTokens) {
	r.add(a)
	r.Reasoned = r.Reasoned || ch.Reasoning != ""
	if r.answerFrom == 0 && ch.Content != "" {
		r.answerFrom, r.FirstAnswer = len(r.Arrivals), ch.Arrived
	}
}

// reasoningSplit splits the request's arrivals inside the window (from,
// to], all of them for a zero from, at the answer's first one, counted as
// the figures count them (reconciled with the final usage); ok is false
// for a reply with no reasoning.
func (r *requestRecord) reasoningSplit(from, to time.Time) (reasoning, answer float64, ok bool) {
	if !r.Reasoned {
		return 0, 0, false
	}
	for i := range r.Arrivals {
		if !from.IsZero() && !inWindow(r.at(i), from, to) {
			continue
		}
		if r.answerFrom > 0 && i >= r.answerFrom-1 {
			answer += r.tokens(i)
		} else {
			reasoning += r.tokens(i)
		}
	}
	return reasoning, answer, true
}

func (r *requestRecord) counted() (total, estimated float64) {
	for i := range r.Arrivals {
		total += r.tokens(i)
		if r.estimated(i) {
			estimated += r.tokens(i)
		}
	}
	return total, estimated
}

// reconcile spreads the difference between the tokens counted chunk by chunk
// and the final usage over the request's chunks, in proportion to what each
// chunk was counted for (estimated chunks first: usage deltas are exact). It
// returns the estimated count before and after, for scaling unfinished
// requests of the same cell.
func (r *requestRecord) reconcile() (before, after float64, ok bool) {
	if !r.Finished || r.FinalTokens < 0 {
		return 0, 0, false
	}
	total, est := r.counted()
	diff := float64(r.FinalTokens) - total
	if diff == 0 || total == 0 {
		return est, est, est > 0
	}
	base := est
	if base == 0 {
		base = total
	}
	scale := (base + diff) / base
	if scale < 0 {
		scale = 0
	}
	for i := range r.Arrivals {
		if est == 0 || r.estimated(i) {
			r.scale(i, scale)
		}
	}
	if est == 0 {
		return 0, 0, false
	}
	return est, est * scale, true
}

// reconcileAll reconciles every finished request, then scales the estimated
// chunks of unfinished ones (stopped at the window's end, or failed) by the
// ratio the finished ones showed: a server that sends several tokens per
// chunk and usage only at the end is still counted right.
func reconcileAll(recs []*requestRecord) {
	var before, after float64
	var pending []*requestRecord
	for _, r := range recs {
		b, a, ok := r.reconcile()
		if ok {
			before += b
			after += a
		} else if !r.Finished {
			pending = append(pending, r)
		}
	}
	if before == 0 || after == before {
		return
	}
	scale := after / before
	for _, r := range pending {
		for i := range r.Arrivals {
			if r.estimated(i) {
				r.scale(i, scale)
			}
		}
	}
}

// decodeFigures are a sustained-decode cell's columns, computed from its
// requests over the window [from, to].
type decodeFigures struct {
	TokensInWindow float64
	TotalTokPerSec float64
	PerRequest     engine.Percentiles
	TTFTMs         engine.Percentiles
	ITLMs          engine.Percentiles
	AvgActive      float64
	Completed      int
	Samples        []engine.RequestSample
}

// computeDecode computes the DESIGN's columns. It divides by the window as
// planned, never by a shorter one, and counts only tokens that arrived inside.
func computeDecode(recs []*requestRecord, from, to time.Time) decodeFigures {
	var f decodeFigures
	window := to.Sub(from).Seconds()
	if window <= 0 {
		return f
	}
	var rates, ttfts []float64
	var gaps []weighted
	var activeS float64
	for _, r := range recs {
		s := engine.RequestSample{PromptTokens: r.PromptTokens, Looped: r.Looped, FinishReason: r.FinishReason}
		if r.Err != nil {
			s.Error = r.Err.Error()
		}
		if !r.FirstToken.IsZero() {
			s.TTFTMs = ms(r.FirstToken.Sub(r.Sent))
			ttfts = append(ttfts, s.TTFTMs)
		}
		tokens, rate, hasRate := requestWindow(r, from, to)
		f.TokensInWindow += tokens
		s.OutputTokens = int(math.Round(tokens))
		if hasRate {
			s.TokensPerSec = rate
			rates = append(rates, rate)
		}
		gaps = appendGaps(gaps, r, from, to)
		activeS += overlapS(r.FirstToken, r.End, from, to)
		if r.Finished && inWindow(r.End, from, to) {
			s.Completed = true
			f.Completed++
		}
		f.Samples = append(f.Samples, s)
	}
	f.TotalTokPerSec = f.TokensInWindow / window
	f.AvgActive = activeS / window
	f.PerRequest = speedPercentiles(rates)
	f.TTFTMs = percentiles(ttfts)
	f.ITLMs = weightedPercentiles(gaps)
	return f
}

// requestWindow returns the tokens of r that arrived inside (from, to] and
// r's own rate there: the tokens after its first arrival in the window over
// the time from that arrival to its last one. Measuring between arrivals
// keeps a chunked stream's rate exact however the window cuts it, and leaves
// out the wait for the first token of a request that starts in the window.
func requestWindow(r *requestRecord, from, to time.Time) (tokens, rate float64, ok bool) {
	var w rateRun
	for i := range r.Arrivals {
		if at := r.at(i); inWindow(at, from, to) {
			w.add(at, r.tokens(i))
		}
	}
	rate, ok = w.rate()
	return w.tokens, rate, ok
}

// appendGaps adds r's inter-token gaps for chunks that arrived inside the
// window: a chunk of k tokens after a gap g counts as k gaps of g/k. Chunks
// that arrive together are one chunk, so a burst doesn't count as gaps of
// zero: those of one read, and those of reads less than burstGap apart. A
// real vLLM whose API server fell behind sent 10 events at once, which the
// HTTP client's chunked reader returned in several reads microseconds
// apart; counted apart, half a cell's gaps were 0.002 ms.
func appendGaps(gaps []weighted, r *requestRecord, from, to time.Time) []weighted {
	eachGap(r, from, to, func(_ time.Time, g weighted) { gaps = append(gaps, g) })
	return gaps
}

// eachGap calls yield with each of r's inter-token gaps whose chunk arrived
// inside the window, and when that chunk arrived (see appendGaps).
func eachGap(r *requestRecord, from, to time.Time, yield func(at time.Time, g weighted)) {
	prev := time.Time{}
	for i := 0; i < len(r.Arrivals); {
		last := r.Arrivals[i].ticks
		var k float64
		for ; i < len(r.Arrivals) && r.Arrivals[i].ticks-last <= burstTicks; i++ {
			last = r.Arrivals[i].ticks
			k += r.tokens(i)
		}
		at := r.arrivalBase.Add(time.Duration(last) * arrivalTick)
		if !prev.IsZero() && k > 0 && inWindow(at, from, to) {
			yield(at, weighted{Value: ms(at.Sub(prev)) / k, Weight: k})
		}
		prev = at
	}
}

// burstGap is how close reads must follow each other to be one burst: far
// under any real gap between tokens (a millisecond at 1,000 tokens per
// second of one stream), far over the time a client takes to read one
// buffer after another (tens of microseconds).
const (
	burstGap   = 200 * time.Microsecond
	burstTicks = uint32(burstGap / arrivalTick)
)

// overlapS is how long [start, end) overlaps [from, to], in seconds; a zero
// end means the interval was still open at to.
func overlapS(start, end, from, to time.Time) float64 {
	if start.IsZero() {
		return 0
	}
	if end.IsZero() || end.After(to) {
		end = to
	}
	if start.Before(from) {
		start = from
	}
	if !end.After(start) {
		return 0
	}
	return end.Sub(start).Seconds()
}

// inWindow reports whether t is in (from, to]: a token that arrives at the
// very moment the window opens was made before it.
func inWindow(t, from, to time.Time) bool { return t.After(from) && !t.After(to) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentiles returns p50, p90 and p99 of values, interpolating linearly
// between the closest ranks, and their count N; zero when there are none.
func percentiles(values []float64) engine.Percentiles {
	if len(values) == 0 {
		return engine.Percentiles{}
	}
	v := slices.Clone(values)
	slices.Sort(v)
	return engine.Percentiles{P50: engine.Quantile(v, 0.5), P90: engine.Quantile(v, 0.9), P99: engine.Quantile(v, 0.99), N: len(v)}
}

// speedPercentiles are percentiles of a speed with its low tail, p10 and
// p1: a speed's slow requests are its low end, the tail users plan on.
func speedPercentiles(values []float64) engine.Percentiles {
	p := percentiles(values)
	if len(values) > 0 {
		v := slices.Clone(values)
		slices.Sort(v)
		p.P10, p.P1 = engine.Quantile(v, 0.1), engine.Quantile(v, 0.01)
	}
	return p
}

// weighted is a value that counts Weight times.
type weighted struct{ Value, Weight float64 }

// weightedPercentiles returns the values at which the cumulative weight first
// reaches 50 %, 90 % and 99 % of the total. N is the number of values, not
// their weight: a chunk of k tokens is one measured gap (k gaps of g/k), so
// a p99 over a few chunks of many tokens is marked as the few samples it is.
func weightedPercentiles(values []weighted) engine.Percentiles {
	var total float64
	for _, w := range values {
		total += w.Weight
	}
	if total == 0 {
		return engine.Percentiles{}
	}
	slices.SortFunc(values, func(a, b weighted) int {
		switch {
		case a.Value < b.Value:
			return -1
		case a.Value > b.Value:
			return 1
		}
		return 0
	})
	qs := []float64{0.5, 0.9, 0.99}
	out := make([]float64, len(qs))
	var cum float64
	qi := 0
	for _, w := range values {
		cum += w.Weight
		for qi < len(qs) && cum >= qs[qi]*total {
			out[qi] = w.Value
			qi++
		}
	}
	for ; qi < len(qs); qi++ {
		out[qi] = values[len(values)-1].Value
	}
	return engine.Percentiles{P50: out[0], P90: out[1], P99: out[2], N: len(values)}
}
