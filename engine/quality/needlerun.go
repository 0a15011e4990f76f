package quality

import (
	"fmt"

	"speedmatrix/engine"
)

// MaxNeedleTrials is the most needle trials a context may hold, in a
// reference or a report.
const MaxNeedleTrials = 1000

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
	right = engine.Right(correct)
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
