package sim

import "fmt"

// A virtual-time driver of the scheduler core that follows the engine's
// methodology without HTTP: prefill = one cold request, prompt tok/s =
// prompt tokens ÷ TTFT; sustained decode = C clients each keeping one
// request in flight (ignore_eos, max_tokens = max output), the window
// opening when every client has its first token. Runs in milliseconds, so
// the profiles can be checked against every reference cell.

// tailTokens is how many tokens at the end of a decode prompt differ per
// request (the engine's tail and the chat template's closing turn).
const harnessTail = 20

const harnessMinPrompt = 40

// harnessPrompt returns request r's prompt of n tokens for context salt:
// a shared part and a tail unique to r.
// Prompts have at least harnessMinPrompt tokens: the engine's prompt of
// context 0 is its run prefix, tail and the chat template.
func harnessPrompt(n int, salt, r uint64) []int32 {
	vocab := sharedTokenizer().vocabSize()
	ids := make([]int32, max(n, harnessMinPrompt))
	n = len(ids)
	for i := range ids {
		h := mix64(salt*0x100000001b3 + uint64(i))
		if i >= n-harnessTail {
			h = mix64(h ^ (r+1)*0x9e3779b97f4a7c15)
		}
		ids[i] = int32(h % uint64(vocab))
	}
	return ids
}

func harnessSeq(p Profile, ids []int32, maxTokens int) *seq {
	return &seq{promptLen: len(ids), hashes: blockHashes(ids, p.BlockSize), stopAt: maxTokens, reason: "length"}
}

// runUntilDone steps c from nowS until q is done; it returns the end time.
func runUntilDone(c *core, q *seq, nowS float64) float64 {
	for q.state != stDone {
		if !c.busy() {
			ready, ok := c.nextReadyS()
			if !ok {
				break
			}
			nowS = max(nowS, ready)
		}
		d := c.plan(nowS)
		nowS += d
		c.apply(nowS)
	}
	return nowS
}

// virtualPrefill is the TTFT in model seconds of one cold request of n tokens.
func virtualPrefill(p Profile, n int) float64 {
	c := newCore(p)
	q := harnessSeq(p, harnessPrompt(n, 1, 0), 1)
	var ttft float64
	c.onFirst = func(_ *seq, t float64) { ttft = t }
	c.submit(q, 0)
	runUntilDone(c, q, 0)
	return ttft
}

// decodeStats is what virtualDecode measured.
type decodeStats struct {
	TokPerSec   float64
	MeanBatch   float64 // time-average decode batch in the window
	MeanCtx     float64 // time-average mean context per sequence
	MeanStepS   float64 // model step time predicted for (C, MeanCtx)
	Completed   int
	Preemptions int64
	Loops       int // requests that started looping
	// BucketTokens are the tokens generated in each second of the window.
	BucketTokens []float64
}

// virtualCell is a sustained-decode cell in progress in virtual time.
type virtualCell struct {
	c           *core
	p           Profile
	n, maxOut   int
	salt, next  uint64
	now         float64
	clients     []*seq
	hasFirst    []bool
	warmed      int
	looped      map[*seq]bool
	windowAt    float64 // -1 until every client has its first token
	windowS     float64
	counted     float64
	sumDur      float64
	sumB, sumCx float64
	// buckets are the tokens of each second of the window, by the end
	// time of the step that produced them.
	buckets []float64
	st      decodeStats
}

// virtualDecode runs a sustained-decode cell of conc clients at context n
// for windowS model seconds after warm-up; the context's prefix is warmed
// first as the engine's prefill cell does. The profile's noise is drawn
// from seed 0, as a server's with Options.Seed 0.
func virtualDecode(p Profile, n, conc, maxOut int, windowS float64) decodeStats {
	return virtualDecodeSeed(p, n, conc, maxOut, windowS, 0)
}

// virtualDecodeSeed is virtualDecode with the profile's noise drawn from seed.
func virtualDecodeSeed(p Profile, n, conc, maxOut int, windowS float64, seed uint64) decodeStats {
	c := newCore(p)
	c.noise = newNoiseState(p.Noise, seed)
	v := &virtualCell{c: c, p: p, n: n, maxOut: maxOut, salt: uint64(n)*31 + 7,
		clients: make([]*seq, conc), hasFirst: make([]bool, conc), looped: map[*seq]bool{},
		windowAt: -1, windowS: windowS}
	v.now = runUntilDone(v.c, submitAt(v.c, p, harnessPrompt(n, v.salt, 1<<40), 1, 0), 0)
	for i := range v.clients {
		v.start(i)
	}
	for v.windowAt < 0 || v.now < v.windowAt+windowS {
		v.step()
		v.track()
	}
	st := v.st
	st.TokPerSec = v.counted / windowS
	st.MeanBatch, st.MeanCtx = v.sumB/v.sumDur, v.sumCx/v.sumDur
	st.MeanStepS = p.Perf.decodeStepS(conc, int(st.MeanCtx*float64(conc)))
	st.Preemptions = v.c.stats.preemptions
	st.BucketTokens = v.buckets
	return st
}

func (v *virtualCell) start(i int) {
	v.next++
	v.clients[i] = submitAt(v.c, v.p, harnessPrompt(v.n, v.salt, v.next), v.maxOut, v.now)
}

func (v *virtualCell) inWindow() bool { return v.windowAt >= 0 && v.now <= v.windowAt+v.windowS }

// step runs one scheduler step and accounts for it.
func (v *virtualCell) step() {
	c := v.c
	if !c.busy() {
		ready, _ := c.nextReadyS()
		v.now = max(v.now, ready)
	}
	d := c.plan(v.now)
	if d <= 0 {
		panic(fmt.Sprintf("virtualDecode %d×%d: step of %g s at %g s", v.n, len(v.clients), d, v.now))
	}
	b, ctx := len(c.dec), 0
	for _, q := range c.dec {
		ctx += q.promptLen + q.generated
	}
	before := c.stats.generationTokens
	v.now += d
	c.apply(v.now)
	if v.inWindow() {
		got := float64(c.stats.generationTokens - before)
		v.counted += got
		if i := int(v.now - v.windowAt); i < int(v.windowS) {
			for len(v.buckets) <= i {
				v.buckets = append(v.buckets, 0)
			}
			v.buckets[i] += got
		}
		v.sumDur += d
		v.sumB += float64(b) * d
		if b > 0 {
			v.sumCx += float64(ctx) / float64(b) * d
		}
	}
}

// track opens the window when every client has its first token, counts
// loops and completions, and restarts finished clients.
func (v *virtualCell) track() {
	for i, q := range v.clients {
		if q.generated > 0 && !v.hasFirst[i] {
			v.hasFirst[i] = true
			if v.warmed++; v.warmed == len(v.clients) {
				v.windowAt = v.now
			}
		}
		if q.loopFrom >= 0 && !v.looped[q] {
			v.looped[q] = true
			v.st.Loops++
		}
		if q.state == stDone {
			if v.inWindow() {
				v.st.Completed++
			}
			v.start(i)
		}
	}
}

func submitAt(c *core, p Profile, ids []int32, maxTokens int, nowS float64) *seq {
	q := harnessSeq(p, ids, maxTokens)
	c.submit(q, nowS)
	return q
}
