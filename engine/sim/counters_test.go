package sim

import "testing"

// step runs one scheduler step of c from nowS (waiting for the front end
// when nothing runs) and returns the step's end; ok is false when c has
// nothing left to do.
func step(c *core, nowS float64) (float64, bool) {
	if !c.busy() {
		ready, ok := c.nextReadyS()
		if !ok {
			return nowS, false
		}
		nowS = max(nowS, ready)
	}
	nowS += c.plan(nowS)
	c.apply(nowS)
	return nowS, true
}

// latencyCounts counts what the server's histograms would observe.
type latencyCounts struct{ ttft, itl int }

func countLatencies(c *core) *latencyCounts {
	n := &latencyCounts{}
	c.onFirst = func(*seq, float64) { n.ttft++ }
	c.onITL = func(_ float64, k int) { n.itl += k }
	return n
}

// TestCountersAdvancePerStep runs requests through a small cache (so some
// are preempted) and checks vLLM's counters after every step: generation
// tokens step by step (or only as requests end, under GenTokensAtFinish),
// a first-token latency per request, an inter-token latency per later token.
func TestCountersAdvancePerStep(t *testing.T) {
	for _, tc := range []struct {
		name     string
		atFinish bool
	}{{"every step", false}, {"at finish", true}} {
		t.Run(tc.name, func(t *testing.T) {
			p := smallProfile(64) // 1,024 tokens: 6 × 300 must preempt
			c := newCore(p)
			c.genAtFinish = tc.atFinish
			lat := countLatencies(c)
			var qs []*seq
			for i := range 6 {
				q := harnessSeq(p, harnessPrompt(100, 13, uint64(i)), 200)
				qs = append(qs, q)
				c.submit(q, 0)
			}
			now, sawPartial := 0.0, false
			for ok := true; ok; now, ok = step(c, now) {
				want := int64(0)
				for _, q := range qs {
					if !tc.atFinish || q.state == stDone {
						want += int64(q.generated)
					}
					sawPartial = sawPartial || q.state != stDone && q.generated > 0
				}
				if c.stats.generationTokens != want {
					t.Fatalf("at %.3f s: generation tokens %d, want %d", now, c.stats.generationTokens, want)
				}
			}
			if !sawPartial || c.stats.preemptions == 0 {
				t.Fatalf("partial outputs seen %v, preemptions %d: the test needs both", sawPartial, c.stats.preemptions)
			}
			if c.stats.generationTokens != 1200 || lat.ttft != 6 || lat.itl != 1200-6 {
				t.Errorf("generation %d, TTFT %d, ITL %d: want 1200, 6, 1194", c.stats.generationTokens, lat.ttft, lat.itl)
			}
		})
	}
}

// TestAbortCountsOutput checks that an aborted request's output counts
// once under either counting mode.
func TestAbortCountsOutput(t *testing.T) {
	for _, atFinish := range []bool{false, true} {
		p := smallProfile(4096)
		c := newCore(p)
		c.genAtFinish = atFinish
		q := harnessSeq(p, harnessPrompt(100, 17, 0), 500)
		c.submit(q, 0)
		now := 0.0
		for q.generated < 10 {
			now, _ = step(c, now)
		}
		c.abort(q)
		c.abort(q)
		if c.stats.generationTokens != 10 || c.stats.finished["abort"] != 1 || c.kv.used != 0 {
			t.Errorf("at finish %v: generation %d, aborts %d, blocks used %d: want 10, 1, 0",
				atFinish, c.stats.generationTokens, c.stats.finished["abort"], c.kv.used)
		}
	}
}
