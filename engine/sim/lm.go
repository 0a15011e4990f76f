package sim

import "math"

// The pseudo-model: what the simulator's model would predict next, given
// every token so far. It is not a language model; it is a deterministic,
// cheap stand-in with a language model's shape, so that logprobs, greedy
// text and their drift under lossy settings behave as a real server's do.
//
// At each position the prefix's hash draws a shape: the margin between the
// first and second candidate (Gamma-distributed with shape 2, so that near
// ties are rare, as the flips and the KL divergence of real quantizations
// relate; mean 2·lmMarginScale nats) and a
// slope α (lmMinSlope to lmMaxSlope). Candidate r ≥ 2 has the logit
// −margin − α·ln(r−1), candidate 1 has 0: a peaked head and a power-law
// tail, as natural text has. lmCandidates candidates are explicit tokens;
// the power law's next lmTailTokens ranks are one tail bucket, whose mass is
// the law's integral. Candidates are words of the generated vocabulary
// (capitalised after a full stop) and, unless the last token was one, a
// comma and a full stop, so that whatever the argmax is, the greedy text
// tokenises back to the same ids.
//
// Greedy generation takes the argmax, and prompt_logprobs evaluate the same
// function on the prompt's prefixes, so the two agree token by token. The
// drift sources (drift.go) add bounded noise to every candidate's logit;
// noise of scale σ moves a logit by at most 3σ, so when the margin exceeds
// 6·Σσ the first candidate wins without computing the others: the argmax of
// a request that asks for no logprobs costs a few hashes per token.
const (
	lmCandidates  = 48    // explicit candidates at each position
	lmTailTokens  = 32768 // ranks of the tail bucket
	lmMarginScale = 0.95  // the margin is Gamma(2, lmMarginScale): mean 1.9 nats
	lmMinSlope    = 1.05  // range of the power law's slope α
	lmMaxSlope    = 2.4
	lmNoiseBound  = 3.0 // |ε| < lmNoiseBound for every noise draw (noise)
	lmTailDamping = 0.25
	// lmForceMargin is how far a forced token (a needle's answer, a loop's
	// phrase) stands above every other candidate.
	lmForceMargin = 2.0
)

// lmState is the pseudo-model's view of a prefix.
type lmState struct {
	h    uint64 // hash of the model's key and every token of the prefix
	last int32  // the prefix's last token; -1 if none
	n    int    // tokens in the prefix: the context of the next position
}

// start is the state of the empty prefix of the model whose key is key.
func lmStart(key uint64) lmState { return lmState{h: key, last: -1} }

// then is the state after id follows s.
func (s lmState) then(id int32) lmState {
	return lmState{h: mix64(s.h ^ (uint64(uint32(id))+1)*0x9e3779b97f4a7c15), last: id, n: s.n + 1}
}

// lmShape is the base distribution's shape at one position.
type lmShape struct {
	draw   uint64 // the position's random bits (candidate order)
	margin float64
	slope  float64
	punct  bool // the comma and full stop are candidates
	comma  int  // their ranks (1-based), when punct
	stop   int
	caps   bool // the words are capitalised (after a full stop)
	wordA  uint64
	wordB  uint64 // odd: (wordA + k·wordB) mod numWords visits every word once
}

// lnTable[r] is ln(r), for the candidates' logits.
var lnTable = func() [lmCandidates + 1]float64 {
	var t [lmCandidates + 1]float64
	for r := 1; r <= lmCandidates; r++ {
		t[r] = math.Log(float64(r))
	}
	return t
}()

// unit maps 53 bits of x to [0, 1).
func unit(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// shape draws the base distribution's shape after prefix s; the margin
// and slope only when logits (not just the first candidate) are needed.
func (m *pseudoModel) shape(s lmState, logits bool) lmShape {
	r := mix64(s.h ^ 0x5eed1e55)
	sh := lmShape{draw: r, wordA: (r >> 20) % numWords, wordB: (r>>40)%numWords | 1}
	if logits {
		r2 := mix64(r ^ 0x51095)
		sh.margin = -lmMarginScale * (math.Log(1-unit(r2)) + math.Log(1-unit(mix64(r2^0x3a))))
		sh.slope = lmMinSlope + (lmMaxSlope-lmMinSlope)*unit(mix64(r2))
	}
	comma, stop := byteBase+int32(','), byteBase+int32('.')
	sh.caps = s.last == stop
	if s.last == comma || s.last == stop {
		return sh
	}
	// As the text generator always had it: one position in 16 ends with a
	// comma, one in 16 with a full stop; otherwise both sit in ranks 2–9.
	sh.punct = true
	x, y := int(r>>4&7), int(r>>7&7)
	switch r >> 60 {
	case 0:
		sh.comma, sh.stop = 1, 2+x
	case 1:
		sh.stop, sh.comma = 1, 2+x
	default:
		sh.comma, sh.stop = 2+x, 2+y
		if sh.stop == sh.comma {
			sh.stop++
		}
	}
	return sh
}

// baseLogit is candidate rank's logit (1-based) before drift.
func (sh *lmShape) baseLogit(rank int) float64 {
	if rank == 1 {
		return 0
	}
	return -sh.margin - sh.slope*lnTable[rank-1]
}

// candidate is the token at rank (1-based) of the base distribution.
func (m *pseudoModel) candidate(sh *lmShape, rank int) int32 {
	if sh.punct {
		switch rank {
		case sh.comma:
			return byteBase + int32(',')
		case sh.stop:
			return byteBase + int32('.')
		}
	}
	k := uint64(rank - 1)
	if sh.punct {
		if sh.comma < rank {
			k--
		}
		if sh.stop < rank {
			k--
		}
	}
	w := (sh.wordA + k*sh.wordB) % numWords
	if sh.caps {
		return m.tok.caps[w]
	}
	return m.tok.words[w]
}

// tailLogit is the base log-mass of the tail bucket: the power law summed
// over ranks lmCandidates+1 … lmCandidates+lmTailTokens, as an integral.
func (sh *lmShape) tailLogit() float64 {
	a, b := float64(lmCandidates)-0.5, float64(lmCandidates+lmTailTokens)-0.5
	var integral float64
	if e := 1 - sh.slope; math.Abs(e) < 1e-9 {
		integral = math.Log(b / a)
	} else {
		integral = (math.Pow(b, e) - math.Pow(a, e)) / e
	}
	return -sh.margin + math.Log(integral)
}

// noise is a bounded draw of variance 1 (the sum of three uniforms on
// (−1, 1)), fixed by seed, the prefix and a token.
func noise(seed, h uint64, id int32) float64 {
	x := mix64(seed ^ h ^ (uint64(uint32(id))+7)*0xd1b54a32d192ed03)
	const s = 1.0 / (1 << 21)
	u := float64(x&0x1fffff)*s + float64(x>>21&0x1fffff)*s + float64(x>>42&0x1fffff)*s
	return 2*u - 3
}

// tailID stands for the tail bucket in noise draws.
const tailID = -2

// lmDist is the distribution at one position: the explicit candidates in
// descending order of logprob, and the tail.
type lmDist struct {
	id     [lmCandidates]int32
	lp     [lmCandidates]float64
	tailLP float64 // log of the tail bucket's mass
	// tokenLP0 and slope give a tail token's logprob at tail rank j:
	// tokenLP0 − slope·ln(lmCandidates+j−1).
	tokenLP0 float64
	slope    float64
	h        uint64 // the prefix, for tail ranks
}

// dist computes the distribution after s under the drift sources srcs.
// forced ≥ 0 makes that token the argmax by lmForceMargin.
func (m *pseudoModel) dist(s lmState, srcs driftSet, forced int32) lmDist {
	sh := m.shape(s, true)
	var d lmDist
	var z [lmCandidates]float64
	for r := 1; r <= lmCandidates; r++ {
		id := m.candidate(&sh, r)
		d.id[r-1] = id
		z[r-1] = sh.baseLogit(r) + srcs.delta(s.h, id)
	}
	tail := sh.tailLogit() + lmTailDamping*srcs.delta(s.h, tailID)
	if forced >= 0 {
		forceTop(&d.id, &z, forced)
	}
	sortDesc(&d.id, &z)
	lse := logSumExp(z[:], tail)
	for i := range z {
		d.lp[i] = z[i] - lse
	}
	d.tailLP = tail - lse
	d.tokenLP0 = -sh.margin + lmTailDamping*srcs.delta(s.h, tailID) - lse
	d.slope = sh.slope
	d.h = s.h
	return d
}

// argmax is the greedy next token after s: dist's first. Logits fall
// with the rank and drift moves each by less than lmNoiseBound·Σσ, so only
// the head is computed: the first candidate alone without drift.
func (m *pseudoModel) argmax(s lmState, srcs driftSet, forced int32) int32 {
	if forced >= 0 {
		return forced
	}
	sh := m.shape(s, srcs.total > 0)
	best := m.candidate(&sh, 1)
	if srcs.total == 0 {
		return best
	}
	bound := lmNoiseBound * srcs.total
	top := srcs.delta(s.h, best)
	for r := 2; r <= lmCandidates && sh.baseLogit(r)+bound > top; r++ {
		id := m.candidate(&sh, r)
		if z := sh.baseLogit(r) + srcs.delta(s.h, id); z > top {
			best, top = id, z
		}
	}
	return best
}

// forceTop puts forced first, lmForceMargin above every other logit.
func forceTop(ids *[lmCandidates]int32, z *[lmCandidates]float64, forced int32) {
	at := 0
	for i, id := range ids {
		if id == forced {
			at = i
			break
		}
	}
	ids[0], ids[at] = ids[at], ids[0]
	z[0], z[at] = z[at], z[0]
	ids[0] = forced
	top := math.Inf(-1)
	for _, v := range z[1:] {
		top = max(top, v)
	}
	z[0] = top + lmForceMargin
}

// sortDesc sorts the candidates by logit, highest first; ties keep their
// base order. Drift reorders only neighbours, so insertion sort is linear
// in practice.
func sortDesc(ids *[lmCandidates]int32, z *[lmCandidates]float64) {
	for i := 1; i < lmCandidates; i++ {
		for j := i; j > 0 && z[j] > z[j-1]; j-- {
			z[j], z[j-1] = z[j-1], z[j]
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

func logSumExp(z []float64, extra float64) float64 {
	top := extra
	for _, v := range z {
		top = max(top, v)
	}
	sum := math.Exp(extra - top)
	for _, v := range z {
		sum += math.Exp(v - top)
	}
	return top + math.Log(sum)
}

// lookup is token id's logprob and 1-based rank in d. A token outside the
// candidates takes a tail rank drawn from its id and the prefix, and the
// power law's value there: the pseudo-model does not spread the tail over
// the whole vocabulary, so two tail tokens may share a rank.
func (d *lmDist) lookup(id int32) (lp float64, rank int) {
	for i, c := range d.id {
		if c == id {
			return d.lp[i], i + 1
		}
	}
	j := 1 + int(mix64(d.h^uint64(uint32(id))^0x7a11)%lmTailTokens)
	return d.tokenLP0 - d.slope*math.Log(float64(lmCandidates+j-1)), lmCandidates + j
}
