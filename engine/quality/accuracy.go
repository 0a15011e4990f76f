package quality

import (
	"errors"
	"fmt"
	"math"
)

// Wilson is the 95 % Wilson score interval of a proportion, successes of
// trials, as fractions of 1:
//
//	(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n),  z = 1.95996
//
// Unlike p̂ ± z·√(p̂(1−p̂)/n), it stays within [0, 1] and is not empty at
// 0 or n successes (20 of 20 gives 0.839–1). No trials give [0, 1];
// counts outside 0 ≤ successes ≤ trials are clamped into it.
func Wilson(successes, trials int) Interval {
	if trials <= 0 {
		return Interval{Lo: 0, Hi: 1}
	}
	n := float64(trials)
	p := float64(min(max(successes, 0), trials)) / n
	z2 := z95 * z95
	center := (p + z2/(2*n)) / (1 + z2/n)
	half := z95 * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / (1 + z2/n)
	return Interval{Lo: max(0, center-half), Hi: min(1, center+half)}
}

// ErrUnpaired is two runs of a paired test with different numbers of items.
var ErrUnpaired = errors.New("the two runs have different numbers of items")

// Paired is two runs of the same items, each right or wrong, counted by
// pair, and the exact McNemar test of whether their accuracies differ.
type Paired struct {
	Both, Neither int // right in both runs; wrong in both
	// BeforeOnly and AfterOnly are the discordant pairs: right only in
	// the first run, right only in the second.
	BeforeOnly, AfterOnly int
	// P is the two-sided p-value: 1 when the discordant pairs split
	// evenly, small when one run wins most of them.
	P float64
}

// Before is how many items the first run got right.
func (p Paired) Before() int { return p.Both + p.BeforeOnly }

// After is how many items the second run got right.
func (p Paired) After() int { return p.Both + p.AfterOnly }

// Items is how many items both runs answered.
func (p Paired) Items() int { return p.Both + p.Neither + p.BeforeOnly + p.AfterOnly }

// McNemar pairs two runs' results on the same items, item i of each, and
// tests them: the exact McNemar test, which looks only at the discordant
// pairs, b right only before and c right only after. If the runs were
// equally accurate, each discordant pair would go either way with
// probability ½, so P = min(1, 2·Σ_{i≤min(b,c)} C(b+c, i)/2^(b+c)), the
// two-sided binomial test; b + c = 0 gives 1. 19 of 20 right, then 12 of
// 20, with the 7 lost all among the 19, gives b = 7, c = 0 and
// P = 2/2⁷ = 0.016. Runs of different lengths are refused (ErrUnpaired).
func McNemar(before, after []bool) (Paired, error) {
	if len(before) != len(after) {
		return Paired{}, fmt.Errorf("%d items and %d: %w", len(before), len(after), ErrUnpaired)
	}
	var p Paired
	for i := range before {
		switch {
		case before[i] && after[i]:
			p.Both++
		case before[i]:
			p.BeforeOnly++
		case after[i]:
			p.AfterOnly++
		default:
			p.Neither++
		}
	}
	p.P = mcnemarP(p.BeforeOnly, p.AfterOnly)
	return p, nil
}

// mcnemarP is the exact two-sided McNemar p-value of b and c discordant
// pairs, each term C(n, i)/2ⁿ worked in logs: past 1,023 pairs 2ⁿ is
// beyond float64's range.
func mcnemarP(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	lgN, _ := math.Lgamma(float64(n + 1))
	sum := 0.0
	for i := 0; i <= min(b, c); i++ {
		lgI, _ := math.Lgamma(float64(i + 1))
		lgR, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lgN - lgI - lgR - float64(n)*math.Ln2)
	}
	return min(1, 2*sum)
}
