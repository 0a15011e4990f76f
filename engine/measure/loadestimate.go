package measure

import (
	"time"

	"speedmatrix/engine"
)

// A load test's estimate, before anything is measured. A rate takes its
// arrivals, (Requests − 1) ÷ rate (the schedule's span), then its last
// request's own time: on the tiny simulator, 1, 2, 4 and 8 req/s × 10
// requests of 256 output tokens took 10.4, 6.0, 3.7 and 3.7 s, each its
// span plus 1.4–2.6 s, and the drain between rates under 0.01 s: 23.7 s in
// all, which a flat 10 s per rate estimated at 59 s. A request's own time
// is taken as a first token in 0.3 s and then 120 tokens a second, a
// single stream's decode on a mid-range GPU (the simulator's ran at
// 120–180). A burst's requests share the server: N at once take about
// 1 + N/64 times one alone (the simulator: 20 at once 2.5 s, 100 at once
// 8.0 s, for one alone's 1.4 s).
const (
	priorLoadTTFT       = 300 * time.Millisecond
	priorLoadTokPerS    = 120
	priorBurstShareReqs = 64
	// sweepGuessRPS is the limit a sweep is taken to find before it does.
	sweepGuessRPS = 10
)

// requestTime is how long one of plan's requests is expected to take, end
// to end, alone: its first token, then its longest output.
func requestTime(plan engine.LoadPlan) float64 {
	return priorLoadTTFT.Seconds() + float64(max(1, plan.OutputTokens.Max))/priorLoadTokPerS
}

// RequestTime is requestTime as a duration: what a trace's replay takes
// after its last arrival.
func RequestTime(plan engine.LoadPlan) time.Duration { return seconds(requestTime(plan)) }

// rateTime is how long a rate of n requests is expected to take: their
// schedule's span, then the last one's own time.
func rateTime(plan engine.LoadPlan, n int, rateRPS float64) float64 {
	span := 0.0
	if rateRPS > 0 && n > 1 {
		span = float64(n-1) / rateRPS
	}
	return span + requestTime(plan)
}

// EstimateLoad is how long a load test is expected to take: each rate's
// rateTime; a sweep first measures its limit (its requests, as fast as
// the fastest rate it guesses, sweepGuessRPS) and then SweepRates rates
// spread up to that guess; a burst the time of its requests sharing the
// server. 0 for a trace, whose span is known once it is read.
func EstimateLoad(plan engine.LoadPlan) time.Duration {
	if plan.Trace != nil {
		return 0 // its span is known once the trace is read
	}
	if plan.Burst > 0 {
		return seconds(requestTime(plan) * (1 + float64(plan.Burst)/priorBurstShareReqs))
	}
	rates := plan.Rates()
	var total float64
	if plan.Sweep {
		rates = plan.SweepRatesFor(sweepGuessRPS)
		total += rateTime(plan, plan.Requests, sweepGuessRPS)
	}
	for _, rate := range rates {
		total += rateTime(plan, plan.Requests, rate)
	}
	return seconds(total)
}

// conversationTime is how long a conversation replay's turns left take:
// as many rounds as the conversations at once divide them into, each a
// request alone and a think time.
func conversationTime(plan engine.LoadPlan, turns int) time.Duration {
	c := plan.Conversations
	rounds := (max(turns, 0) + max(c.Open, 1) - 1) / max(c.Open, 1)
	return seconds(float64(rounds) * (requestTime(plan) + c.ThinkTime.Seconds()))
}
