package measure

import (
	"fmt"
	"math"
	"slices"
	"speedmatrix/engine"
	"time"
)

// loadRecord is one request of a load test's rate: when it was due, how
// it waited, and what it did (requestRecord, in client time).
type loadRecord struct {
	requestRecord
	Scheduled time.Time     // when it was due: its latencies count from here
	Waited    time.Duration // for a slot under the max-concurrency cap
	// Behind is how late the client sent it: the dispatcher's lateness
	// once free to take it, and the request's own to its send; the cap's
	// waits are the plan's, not the client's.
	Behind     time.Duration
	acquired   time.Time // when it had its slot (when taken, uncapped)
	Dispatched bool      // sent; false when the rate ended before
	Input      int       // prompt tokens drawn (0: a dataset prompt)
	Output     int       // output tokens asked for
	Turn       int       // its turn in its conversation, from 1; 0 outside a replay
}

// outputTokens is what the request generated: the server's final count,
// else the chunks counted.
func (r *loadRecord) outputTokens() int {
	if r.FinalTokens >= 0 {
		return r.FinalTokens
	}
	total, _ := r.counted()
	return int(math.Round(total))
}

// completed reports whether the server ended the request normally.
func (r *loadRecord) completed() bool { return r.Dispatched && r.Finished && r.Err == nil }

// Thresholds of a client that falls behind its schedule: a send a p99 of
// 10 ms late is a tenth of the gap at 10 requests per second, one 100 ms
// late turns a Poisson stream into bursts that no server sees from users.
const (
	behindP99 = 10 * time.Millisecond
	behindMax = 100 * time.Millisecond
)

// computeLoad is a rate's figures from its requests. Every latency counts
// from the request's scheduled arrival, never from when it was sent, so a
// server that holds the client up shows in them (no coordinated omission).
// Figures are over the completed requests, as vllm bench serve's: TTFT and
// E2E from the schedule, TPOT per request as (E2E − TTFT) ÷ (output − 1),
// ITL every gap between tokens (a chunk of k tokens is k gaps of a k-th).
// Goodput counts the completed requests per second of the rate's duration
// that meet the SLO: each one's TTFT within the TTFT bound, and its own
// gaps between tokens at the SLO's percentile within the ITL bound (with
// p99, a request whose stream stalls now and then misses it). vllm bench
// judges a request's mean (TPOT) instead, which a stall hides; the SLO
// is about a smooth stream.
func computeLoad(recs []*loadRecord, slo engine.SLO) engine.LoadResult {
	var res engine.LoadResult
	res.Requests = len(recs)
	var ttft, tpot, e2e []float64
	var gaps []weighted
	var first, last time.Time
	var reasoning reasoningTally
	good := 0
	for _, r := range recs {
		if !r.Dispatched {
			continue
		}
		if first.IsZero() || r.Scheduled.Before(first) {
			first = r.Scheduled
		}
		if r.End.After(last) {
			last = r.End
		}
		res.InputTokens += r.PromptTokens
		res.BehindMs = max(res.BehindMs, ms(r.Behind))
		if r.Err != nil {
			res.Failed++
		}
		if !r.completed() {
			continue
		}
		res.Completed++
		// Its first answer token, as its other latencies, counts from its schedule.
		reasoning.add(&r.requestRecord, time.Time{}, time.Time{}, r.Scheduled)
		out := r.outputTokens()
		res.OutputTokens += out
		e2e = append(e2e, ms(r.End.Sub(r.Scheduled)))
		var t float64
		if !r.FirstToken.IsZero() {
			t = ms(r.FirstToken.Sub(r.Scheduled))
			ttft = append(ttft, t)
			if out > 1 {
				tpot = append(tpot, ms(r.End.Sub(r.FirstToken))/float64(out-1))
			}
		}
		own := appendGaps(nil, &r.requestRecord, r.Sent, r.End)
		gaps = append(gaps, own...)
		if meets(slo, t, own) {
			good++
		}
	}
	if !first.IsZero() && last.After(first) {
		res.DurationS = last.Sub(first).Seconds()
		res.RequestThroughputRPS = float64(res.Completed) / res.DurationS
		res.OutputTokPerSec = float64(res.OutputTokens) / res.DurationS
		res.GoodputRPS = float64(good) / res.DurationS
	}
	res.TTFTMs, res.TPOTMs, res.E2EMs = counted(ttft), counted(tpot), counted(e2e)
	res.ITLMs = countedGaps(gaps)
	res.Reasoning = reasoning.result()
	return res
}

// countedGaps is weightedPercentiles with the mean gap per token.
func countedGaps(gaps []weighted) engine.Percentiles {
	p := weightedPercentiles(gaps)
	var gapMs, tokens float64
	for _, g := range gaps {
		gapMs += g.Value * g.Weight
		tokens += g.Weight
	}
	if tokens > 0 {
		p.Mean = gapMs / tokens
	}
	return p
}

// counted is percentiles with their mean, which a server's histograms
// (sum ÷ count) can be compared with.
func counted(v []float64) engine.Percentiles {
	p := percentiles(v)
	var sum float64
	for _, x := range v {
		sum += x
	}
	if len(v) > 0 {
		p.Mean = sum / float64(len(v))
	}
	return p
}

// meets reports whether one request, of this TTFT (ms) and these gaps
// between its tokens, is within the SLO's bounds; every request meets an
// SLO that is off.
func meets(slo engine.SLO, ttftMs float64, gaps []weighted) bool {
	if slo.TTFT > 0 && ttftMs > ms(slo.TTFT) {
		return false
	}
	return slo.ITL <= 0 || len(gaps) == 0 || weightedPercentiles(gaps).At(slo.At()) <= ms(slo.ITL)
}

// behindFlag flags a rate whose client sent late: a p99 lateness over
// behindP99 or any over behindMax. ok is false when it kept up.
func behindFlag(recs []*loadRecord) (engine.Flag, bool) {
	var late []float64
	for _, r := range recs {
		if r.Dispatched {
			late = append(late, ms(r.Behind))
		}
	}
	if len(late) == 0 {
		return engine.Flag{}, false
	}
	worst := slices.Max(late)
	if percentiles(late).P99 <= ms(behindP99) && worst <= ms(behindMax) {
		return engine.Flag{}, false
	}
	return engine.Flag{Kind: engine.FlagClientBehind, Message: fmt.Sprintf("the client sent requests up to %.0f ms behind schedule: its machine is short of CPU; latencies still count from the schedule", worst)}, true
}

// failedFlag flags a rate some of whose requests failed, with the first
// failure's reason.
func failedFlag(recs []*loadRecord) (engine.Flag, bool) {
	n, sent := 0, 0
	var why error
	for _, r := range recs {
		if !r.Dispatched {
			continue
		}
		sent++
		if r.Err != nil {
			if why == nil {
				why = r.Err
			}
			n++
		}
	}
	if n == 0 {
		return engine.Flag{}, false
	}
	return engine.Flag{Kind: engine.FlagFailedRequests, Message: fmt.Sprintf("%d of %d %s failed (%v)", n, sent, engine.Plural(sent, "request", "requests"), why)}, true
}

// promptSizeFlag flags a rate whose prompts the server counted otherwise
// than drawn (sized by estimate, without /tokenize): how many, and the
// largest difference.
func promptSizeFlag(recs []*loadRecord, why string) (engine.Flag, bool) {
	off, worst := 0, 0
	for _, r := range recs {
		if r.Input > 0 && r.PromptTokens > 0 && r.PromptTokens != r.Input {
			off++
			worst = max(worst, abs(r.PromptTokens-r.Input))
		}
	}
	if off == 0 {
		return engine.Flag{}, false
	}
	return engine.Flag{Kind: engine.FlagPromptSize, Message: fmt.Sprintf("%d prompts were not their drawn size (by up to %d tokens): %s", off, worst, why)}, true
}
