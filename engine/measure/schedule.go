package measure

import (
	"math/rand/v2"
	"speedmatrix/engine"
	"time"
)

// loadRequest is one request of a rate, as planned before the rate starts:
// when it is due and how long its prompt and output are.
type loadRequest struct {
	At           time.Duration // after the rate's start
	InputTokens  int           // the prompt's size (0 with a dataset)
	OutputTokens int           // max_tokens, with ignore_eos
	Prompt       int           // the dataset prompt it sends; -1 without a dataset
	// Blocks are a trace's request's hash ids (nil: its blocks are its
	// own, from Unique), its prompt blocks of the trace's block size.
	Blocks []uint64
	Unique int // a trace request's place in the trace, from 1; 0 otherwise
}

// loadSchedule plans n requests of one rate: arrival times and lengths.
// Arrivals are drawn from the plan's seed and the rate's place in the test
// (rateIndex), so each rate has its own schedule and the same seed gives
// the same one again; lengths are drawn from the seed alone, so every rate
// sends the same lengths in the same order and rates differ only in time.
// The first request is due at 0: n requests span n−1 gaps, and the last is
// due at (n−1)/rate. Poisson gaps are drawn, then scaled together so that
// they add up to exactly that, as vllm bench serve scales its own: the
// shape of the arrivals stays random, but the rate offered is the rate
// asked, not one off by the draw (±1/√n: ±7 % for 200 requests). A rate of
// 0 (a burst, a sweep's limit) makes them all due at 0.
func loadSchedule(arr engine.Arrivals, rateRPS float64, n int, in, out engine.TokenRange, seed int64, rateIndex int, datasetSize int) []loadRequest {
	gaps := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15^uint64(rateIndex+1)))
	lengths := rand.New(rand.NewPCG(uint64(seed), 0x6a09e667f3bcc909))
	reqs := make([]loadRequest, n)
	var t float64 // seconds
	for i := range reqs {
		if i > 0 && rateRPS > 0 {
			switch arr {
			case engine.ArrivalsConstant:
				t = float64(i) / rateRPS
			default:
				t += gaps.ExpFloat64() / rateRPS
			}
		}
		r := loadRequest{At: seconds(t), Prompt: -1}
		if datasetSize > 0 {
			r.Prompt = i % datasetSize
		} else {
			r.InputTokens = draw(lengths, in)
		}
		r.OutputTokens = draw(lengths, out)
		reqs[i] = r
	}
	if arr != engine.ArrivalsConstant && rateRPS > 0 && n > 1 && t > 0 {
		scale := float64(n-1) / rateRPS / t
		for i := range reqs {
			reqs[i].At = seconds(reqs[i].At.Seconds() * scale)
		}
	}
	return reqs
}

// draw is a length drawn uniformly from t; a fixed length draws nothing,
// so fixed and drawn lengths keep the stream of draws the same.
func draw(rng *rand.Rand, t engine.TokenRange) int {
	if t.Max <= t.Min {
		return t.Min
	}
	return t.Min + rng.IntN(t.Max-t.Min+1)
}
