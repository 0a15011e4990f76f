package sim

import (
	"slices"
	"testing"
)

// openLoopStats is what virtualOpenLoop measured.
type openLoopStats struct {
	ThroughputRPS float64   // completed ÷ (first arrival to last finish)
	TTFTS         []float64 // per request, from its arrival, sorted
}

func (s openLoopStats) ttftAt(q float64) float64 {
	return s.TTFTS[int(q*float64(len(s.TTFTS)-1))]
}

// virtualOpenLoop sends n requests of in prompt tokens and out output
// tokens, arriving evenly at rateRPS (an open loop: arrivals do not wait for
// the server), in virtual time.
func virtualOpenLoop(p Profile, rateRPS float64, n, in, out int) openLoopStats {
	c := newCore(p)
	var st openLoopStats
	c.onFirst = func(_ *seq, ttftS float64) { st.TTFTS = append(st.TTFTS, ttftS) }
	seqs := make([]*seq, n)
	now, next := 0.0, 0
	for {
		for next < n && float64(next)/rateRPS <= now {
			seqs[next] = submitAt(c, p, harnessPrompt(in, 99, uint64(next)), out, float64(next)/rateRPS)
			next++
		}
		if !c.busy() {
			ready, ok := c.nextReadyS()
			switch {
			case next < n && (!ok || float64(next)/rateRPS < ready):
				now = float64(next) / rateRPS
				continue
			case !ok:
				slices.Sort(st.TTFTS)
				st.ThroughputRPS = float64(n) / now
				return st
			}
			now = max(now, ready)
		}
		d := c.plan(now)
		now += d
		c.apply(now)
	}
}

// TestOpenLoopBendsAtCapacity: a load test's latency against request rate
// bends where the profile's capacity says it should. The capacity of tiny
// for 512-token prompts and 256-token outputs is max_num_seqs sequences
// decoding at once, each request costing its share of 256 decode steps; its
// prefill costs between nothing (hidden in decode steps) and its own time in
// full: the capacity lies between those two bounds. Below it, requests are
// served as they arrive; above it, the queue grows and TTFT with it, while
// throughput stays at the capacity. Virtual time: nothing here depends on
// the machine.
func TestOpenLoopBendsAtCapacity(t *testing.T) {
	p, in, out := tinyProfile(), 512, 256
	b := p.MaxNumSeqs
	decodeS := float64(out) * p.Perf.decodeStepS(b, b*(in+out/2)) / float64(b)
	upperRPS, lowerRPS := 1/decodeS, 1/(decodeS+p.Perf.prefillChunkS(0, in))
	unloaded := virtualPrefill(p, in)

	below := virtualOpenLoop(p, 0.6*lowerRPS, 600, in, out)
	above := virtualOpenLoop(p, 1.5*upperRPS, 600, in, out)
	t.Logf("capacity %.1f–%.1f req/s; at 0.6× the lower: %.1f req/s, TTFT p50 %.0f ms p99 %.0f ms; at 1.5× the upper: %.1f req/s, TTFT p50 %.0f ms p99 %.0f ms (unloaded %.0f ms)",
		lowerRPS, upperRPS, below.ThroughputRPS, 1000*below.ttftAt(0.5), 1000*below.ttftAt(0.99),
		above.ThroughputRPS, 1000*above.ttftAt(0.5), 1000*above.ttftAt(0.99), 1000*unloaded)

	if r := below.ThroughputRPS / (0.6 * lowerRPS); r < 0.95 || r > 1.02 {
		t.Errorf("below capacity: %.2f req/s served of %.2f offered; want every request served as it arrives", below.ThroughputRPS, 0.6*lowerRPS)
	}
	if below.ttftAt(0.5) > 3*unloaded+0.02 {
		t.Errorf("below capacity: TTFT p50 %.0f ms, want near the unloaded %.0f ms", 1000*below.ttftAt(0.5), 1000*unloaded)
	}
	if above.ThroughputRPS < 0.95*lowerRPS || above.ThroughputRPS > 1.02*upperRPS {
		t.Errorf("above capacity: %.2f req/s served, want the capacity, %.2f–%.2f", above.ThroughputRPS, lowerRPS, upperRPS)
	}
	if above.ttftAt(0.99) < 20*below.ttftAt(0.99) {
		t.Errorf("above capacity: TTFT p99 %.0f ms, want the queue's growth (over 20× the %.0f ms below capacity)", 1000*above.ttftAt(0.99), 1000*below.ttftAt(0.99))
	}
}
