package quality

import (
	"fmt"

	"speedmatrix/engine"
)

// MaxNeedleTrials is the most needle trials a context may hold, in a
// reference or a report.
const MaxNeedleTrials = 1000

// NeedleContext is the needle task at one context: trial i was built from
// Seed+i, so another run with the same seed and text asks the same
// questions and the two pair.
type NeedleContext struct {
	ContextTokens int    `json:"context_tokens"`
	Seed          uint64 `json:"seed"`
	// Correct says, per trial, whether the key came back exactly.
	Correct []bool `json:"correct"`
	// AccuracyPct is the share right, with its Wilson interval (CI, in
	// percent).
	AccuracyPct float64  `json:"accuracy_pct"`
	CI          Interval `json:"ci"`
	// Reference is this run against the reference's run of the same
	// trials; nil when the reference ran none at this context.
	Reference *PairedRuns `json:"reference,omitempty"`
}

// PairedRuns is the exact McNemar test of two runs of the same items: how
// many each got right of how many, the discordant pairs, and p.
type PairedRuns struct {
	Items      int     `json:"items"`
	Before     int     `json:"before"`
	After      int     `json:"after"`
	BeforeOnly int     `json:"before_only"`
	AfterOnly  int     `json:"after_only"`
	P          float64 `json:"p"`
}

// String is the pair as a report line says it: "19/20 → 12/20, p = 0.016".
func (p PairedRuns) String() string {
	return fmt.Sprintf("%d/%d → %d/%d, p = %.3g", p.Before, p.Items, p.After, p.Items, p.P)
}

// NewNeedleContext is a context's trials summarized: accuracy and its
// Wilson interval, in percent.
func NewNeedleContext(contextTokens int, seed uint64, correct []bool) NeedleContext {
	n := NeedleContext{ContextTokens: contextTokens, Seed: seed, Correct: correct}
	_, n.AccuracyPct, n.CI = Accuracy(correct)
	return n
}

// Accuracy is how many of a run's items were right, that share in percent
// and its Wilson interval in percent; 0, 0 and 0–100 for no items.
func Accuracy(correct []bool) (right int, pct float64, ci Interval) {
	for _, c := range correct {
		if c {
			right++
		}
	}
	w := Wilson(right, len(correct))
	ci = Interval{Lo: 100 * w.Lo, Hi: 100 * w.Hi}
	if len(correct) > 0 {
		pct = 100 * float64(right) / float64(len(correct))
	}
	return right, pct, ci
}

// Pair is runs before and after of the same items under the exact
// McNemar test (McNemar; ErrUnpaired when their lengths differ).
func Pair(before, after []bool) (PairedRuns, error) {
	p, err := McNemar(before, after)
	if err != nil {
		return PairedRuns{}, err
	}
	return PairedRuns{Items: p.Items(), Before: p.Before(), After: p.After(), BeforeOnly: p.BeforeOnly, AfterOnly: p.AfterOnly, P: p.P}, nil
}

// needleProblem is what is wrong with a reference's needle runs; "" when
// nothing.
func needleProblem(runs []NeedleContext) string {
	if len(runs) > engine.MaxLevels {
		return fmt.Sprintf("it has needle runs at %d contexts; at most %d", len(runs), engine.MaxLevels)
	}
	for _, r := range runs {
		if len(r.Correct) == 0 || len(r.Correct) > MaxNeedleTrials {
			return fmt.Sprintf("its needle run at %d tokens has %d trials; 1 to %d", r.ContextTokens, len(r.Correct), MaxNeedleTrials)
		}
	}
	return ""
}
