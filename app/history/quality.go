package history

import (
	"fmt"
	"strconv"

	"speedmatrix/engine"
	"speedmatrix/engine/quality"
)

// QualityLines is the drift between runs a and b where both compared the
// server with the same reference (its model, tokenizer and recording
// time): per context both measured, each side's top-1 agreement and KLD
// mean; per needle context both ran with the same trials, the paired
// McNemar test of A against B. None when they share no reference.
func QualityLines(a, b engine.Report) []string {
	qa, qb := a.Quality, b.Quality
	if qa == nil || qb == nil || !sameReference(qa.Reference, qb.Reference) {
		return nil
	}
	lines := []string{fmt.Sprintf("Quality against the same reference, %s recorded %s (A → B):", qa.Reference.Model, qa.Reference.RecordedAt.Format("2006-01-02 15:04"))}
	for _, ca := range qa.Contexts {
		for _, cb := range qb.Contexts {
			if ca.ContextTokens == cb.ContextTokens && ca.Positions > 0 && cb.Positions > 0 {
				lines = append(lines, fmt.Sprintf("%s: top-1 %s → %s, KLD mean %s → %s", engine.ContextLabel(ca.ContextTokens),
					pct2(ca.Top1Pct), pct2(cb.Top1Pct), nats(ca.KLDMean), nats(cb.KLDMean)))
			}
		}
	}
	for _, na := range qa.Needle {
		for _, nb := range qb.Needle {
			if na.ContextTokens != nb.ContextTokens || na.Seed != nb.Seed || len(na.Correct) != len(nb.Correct) {
				continue
			}
			if p, err := quality.Pair(na.Correct, nb.Correct); err == nil {
				lines = append(lines, fmt.Sprintf("needle %s: %s", engine.ContextLabel(na.ContextTokens), p))
			}
		}
	}
	if len(lines) == 1 {
		return nil // the same reference, but no context both measured
	}
	return lines
}

// sameReference reports whether two quality sections were measured against
// the same recording.
func sameReference(a, b engine.QualityHeader) bool {
	return a.Model == b.Model && a.Tokenizer == b.Tokenizer && a.RecordedAt.Equal(b.RecordedAt)
}

// pct2 writes a percentage with two decimals: "99.20 %".
func pct2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " %" }

// nats writes a KL divergence to four significant digits: "0.01234".
func nats(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
