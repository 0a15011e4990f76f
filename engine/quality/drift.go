package quality

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// The errors Compare wraps, for a caller to branch on; the wrapping error
// says which side ("reference: …", "candidate: …") and which token.
var (
	// ErrK is a k outside 1–MaxK.
	ErrK = fmt.Errorf("k is outside 1–%d", MaxK)
	// ErrShortTopK is a position that lists fewer tokens than k: the two
	// sides were asked for different K.
	ErrShortTopK = errors.New("a position lists fewer tokens than k")
	// ErrLogprob is a logprob that is NaN, +Inf or above 0.
	ErrLogprob = errors.New("a logprob is not a probability's")
	// ErrDuplicate is a token listed twice at one position.
	ErrDuplicate = errors.New("a token is listed twice")
	// ErrMass is a position whose probabilities sum past 1 + MassSlack.
	ErrMass = errors.New("probabilities sum to more than 1")
	// ErrPositions is a candidate with another number of positions than
	// its reference probe.
	ErrPositions = errors.New("the candidate has another number of positions than the reference")
)

// MassSlack is how far past 1 a position's listed probabilities may sum,
// by rounding, before Compare refuses it; within it they are scaled to 1.
const MassSlack = 1e-3

// MinProb is the least probability Compare divides by: a candidate that
// gives 0 (or less than this) where the reference gives p counts as
// giving MinProb, so that one position's KLD is at most ln(1/MinProb) ≈
// 23.03 nats instead of infinite.
const MinProb = 1e-10

// PositionDrift is one position compared, the candidate teacher-forced on
// the reference's tokens.
type PositionDrift struct {
	// Top1 is whether both name the same most probable token.
	Top1 bool
	// KLD is KL(reference ‖ candidate) in nats over the top-K with a
	// tail bucket, as Compare states.
	KLD float64
	// DP is the candidate's probability of the reference's most probable
	// token minus the reference's: negative when the candidate is less sure.
	DP float64
	// SameTokens is whether both top-K list the same tokens: then KLD
	// assumed nothing and is a lower bound of the true KL divergence.
	SameTokens bool
}

// Compare compares one position: the reference's and the candidate's top-K
// logprobs (natural logs, −Inf for 0), each cut to its k most probable
// entries (ties: lower token id first). It refuses k outside 1–MaxK, a
// side with fewer than k entries (ErrShortTopK), NaN, +Inf or positive
// logprobs (ErrLogprob), a token listed twice (ErrDuplicate), and
// probabilities summing past 1 + MassSlack (ErrMass; within it, they are
// scaled to sum to 1).
//
// KLD is KL(P‖Q) = Σ P ln(P/Q) over the partition of the vocabulary into
// each token either side lists (the union U) and one tail bucket T, every
// other token. Each side's tail mass is 1 − Σ of its listed
// probabilities. A token listed by one side only is, on the side that
// does not list it, given the most it can have there: that side's k-th
// probability (it ranks below it), but together with the side's other
// unlisted tokens of U no more than its tail (min(p_k, tail/m) each, m
// the side's unlisted tokens of U); the side's tail bucket keeps what is
// left (≥ 0). A candidate mass under MinProb counts as MinProb.
//
// The bound: when both sides list the same tokens (SameTokens), nothing is
// assumed, and KLD is exactly the divergence of the two distributions
// coarsened to k + 1 outcomes, so by the chain rule
// KL_true = KLD + P(T)·KL(P(·|T) ‖ Q(·|T)) ≥ KLD: it can miss only the
// divergence inside the tail, weighted by the reference's tail mass
// P(T) = 1 − Σp. When the lists differ, the assumed masses make KLD an
// estimate, not a bound: they give each such token the most probability
// it can have, which errs toward less divergence for that token, and the
// tail bucket takes the rest.
func Compare(ref, cand TopK, k int) (PositionDrift, error) {
	if k < 1 || k > MaxK {
		return PositionDrift{}, fmt.Errorf("k = %d: %w", k, ErrK)
	}
	p, err := newSide(ref, k)
	if err != nil {
		return PositionDrift{}, fmt.Errorf("reference: %w", err)
	}
	q, err := newSide(cand, k)
	if err != nil {
		return PositionDrift{}, fmt.Errorf("candidate: %w", err)
	}
	p.fillFor(q)
	q.fillFor(p)
	kld := 0.0
	for _, e := range p.probs {
		kld += term(e.p, q.prob(e.token))
	}
	for _, e := range q.probs {
		if _, listed := p.find(e.token); !listed {
			kld += term(p.fill, e.p)
		}
	}
	kld += term(p.rest, q.rest)
	top := p.probs[0]
	return PositionDrift{
		Top1:       top.token == q.probs[0].token,
		KLD:        max(0, kld),
		DP:         q.prob(top.token) - top.p,
		SameTokens: p.missing == 0,
	}, nil
}

// term is one outcome's share of KL(P‖Q): 0 where P has no mass.
func term(p, q float64) float64 {
	if p <= 0 {
		return 0
	}
	return p * math.Log(p/max(q, MinProb))
}

// prob is one listed token's probability.
type prob struct {
	token int
	p     float64
}

// side is one distribution as Compare sees it: its k most probable tokens,
// what it is assumed to give the tokens only the other side lists (fill,
// for missing of them), and its tail bucket (rest).
type side struct {
	probs      []prob
	tail, kthP float64 // 1 − Σ listed; the k-th listed probability
	fill, rest float64
	missing    int
}

// newSide checks a TopK and keeps its k most probable entries.
func newSide(t TopK, k int) (side, error) {
	if len(t) < k {
		return side{}, fmt.Errorf("%d tokens for k = %d: %w", len(t), k, ErrShortTopK)
	}
	sorted := slices.Clone(t)
	slices.SortFunc(sorted, func(a, b Logprob) int { return a.Token - b.Token })
	for i, e := range sorted {
		if math.IsNaN(e.Logprob) || math.IsInf(e.Logprob, 1) || e.Logprob > LogprobSlack {
			return side{}, fmt.Errorf("token %d: logprob %v: %w", e.Token, e.Logprob, ErrLogprob)
		}
		if i > 0 && sorted[i-1].Token == e.Token {
			return side{}, fmt.Errorf("token %d: %w", e.Token, ErrDuplicate)
		}
	}
	sorted.sort()
	s := side{probs: make([]prob, k)}
	sum := 0.0
	for i, e := range sorted[:k] {
		s.probs[i] = prob{e.Token, min(1, math.Exp(e.Logprob))}
		sum += s.probs[i].p
	}
	if sum > 1+MassSlack {
		return side{}, fmt.Errorf("%.6g: %w", sum, ErrMass)
	}
	if sum > 1 {
		for i := range s.probs {
			s.probs[i].p /= sum
		}
		sum = 1
	}
	s.tail, s.kthP = 1-sum, s.probs[k-1].p
	return s, nil
}

// fillFor sets what s gives the tokens only other lists, and its tail
// bucket after them.
func (s *side) fillFor(other side) {
	for _, e := range other.probs {
		if _, ok := s.find(e.token); !ok {
			s.missing++
		}
	}
	if s.missing > 0 {
		s.fill = min(s.kthP, s.tail/float64(s.missing))
	}
	s.rest = max(0, s.tail-float64(s.missing)*s.fill)
}

// find is token's probability when s lists it.
func (s side) find(token int) (float64, bool) {
	for _, e := range s.probs {
		if e.token == token {
			return e.p, true
		}
	}
	return 0, false
}

// prob is token's probability on s: listed, or assumed (fill).
func (s side) prob(token int) float64 {
	if p, ok := s.find(token); ok {
		return p
	}
	return s.fill
}

// CompareProbe compares a probe's positions, the candidate's top-K with
// the reference's, one Compare each; the two must have as many positions
// (ErrPositions). An error names the position, from 1.
func CompareProbe(ref, cand []TopK, k int) ([]PositionDrift, error) {
	if len(ref) != len(cand) {
		return nil, fmt.Errorf("%d positions for %d: %w", len(cand), len(ref), ErrPositions)
	}
	out := make([]PositionDrift, len(ref))
	for i := range ref {
		d, err := Compare(ref[i], cand[i], k)
		if err != nil {
			return nil, fmt.Errorf("position %d: %w", i+1, err)
		}
		out[i] = d
	}
	return out, nil
}
