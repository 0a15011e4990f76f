package sweep

import (
	"fmt"
	"strings"

	"speedmatrix/engine"
)

// qualityActive reports whether s's answer weighs quality: it has a
// quality phase and the baseline's reference was recorded, so that some
// drift could be measured.
func (s Sweep) qualityActive() bool {
	return s.Quality != nil && s.Quality.ReferenceSHA256 != "" && len(s.Configs) > 0 &&
		s.Configs[0].Quality != nil && s.Configs[0].Quality.State == QualityMeasured
}

// withinBudget reports whether configuration c stays within the sweep's
// budget at a cell of ctx tokens: the baseline always (it is the
// reference), another only where its drift there was measured and is
// within it (DriftAt); a configuration whose quality was not measured is
// not known to be within.
func withinBudget(c Config, ctx int) bool {
	if c.Baseline {
		return true
	}
	d, ok := c.Quality.DriftAt(ctx)
	return ok && !d.Over()
}

// weighQuality fills ca's quality: every entry's drift at the cell's
// context, the fastest configuration within the budget and, when it is not
// Best, Best's drift there. valid are the cell's Valid entries, fastest
// first.
func weighQuality(s Sweep, ca *CellAnswer, valid []Entry) {
	byName := map[string]Config{}
	for _, c := range s.Configs {
		byName[c.Name] = c
	}
	for i, e := range ca.Entries {
		if d, ok := byName[e.Config].Quality.DriftAt(ca.ContextTokens); ok {
			ca.Entries[i].Drift = &d
		}
	}
	for _, e := range valid {
		if withinBudget(byName[e.Config], ca.ContextTokens) {
			ca.WithinBudget = e.Config
			break
		}
	}
	if ca.WithinBudget == ca.Best {
		return
	}
	ca.BudgetMissed = true
	if d, ok := byName[ca.Best].Quality.DriftAt(ca.ContextTokens); ok {
		ca.BestDrift = &d
	}
	if ca.WithinBudget != "" && ca.WithinBudget != ca.Entries[0].Config {
		for _, e := range valid {
			if e.Config == ca.WithinBudget {
				ca.WithinOverBaseline = margin(e, ca.Entries[0])
			}
		}
	}
}

// DriftText words a drift as the answer names it: the figures over the
// budget when any ("top-1 93.1 % at 8K"), else both ("top-1 99.2 %, KLD
// 0.0012 at 8K").
func DriftText(d Drift) string {
	var parts []string
	if d.Top1Over || !d.Over() {
		parts = append(parts, fmt.Sprintf("top-1 %.1f %%", d.Top1Pct))
	}
	if d.KLDOver || !d.Over() {
		parts = append(parts, fmt.Sprintf("KLD %.2g", d.KLDMean))
	}
	return strings.Join(parts, ", ") + " at " + engine.ContextLabel(d.ContextTokens)
}

// QualityText is a configuration's quality in a few words, for tables:
// "the reference", "within budget: top-1 99.2 %, KLD 0.0012 at 8K", "over
// budget: top-1 93.1 % at 8K", "not measured: REASON"; "" where the sweep
// measures no quality.
func QualityText(c Config) string {
	q := c.Quality
	switch {
	case q == nil:
		return ""
	case q.Reference:
		if q.State == QualityNotMeasured {
			return "not measured: " + q.Reason
		}
		return "the reference"
	case q.State == QualityNotMeasured:
		return "not measured: " + q.Reason
	}
	d, ok := q.Worst()
	switch {
	case !ok:
		return "not measured yet"
	case d.Over():
		return "over budget: " + DriftText(d)
	}
	return "within budget: " + DriftText(d)
}

// LoopedText is a configuration's Looped cells beside its drift: "Looped
// in 5 of 12 cells; drift top-1 91.0 % at 8K"; "" when none looped.
func LoopedText(h Headline, c Config) string {
	if h.LoopedCells == 0 {
		return ""
	}
	line := fmt.Sprintf("Looped in %d of %d cells", h.LoopedCells, h.DecodeCells)
	if d, ok := c.Quality.Worst(); ok && !c.Baseline {
		line += "; drift " + DriftText(d)
	} else if c.Quality != nil && c.Quality.State == QualityNotMeasured && !c.Baseline {
		line += "; drift not measured"
	}
	return line
}

// budgetLine is a cell's answer when its fastest configuration is not
// within the quality budget: "8K × 4: fp8 is fastest here (+12.0 % over
// baseline), but drifts: top-1 93.1 % at 8K, over the budget; best within
// budget: baseline".
func budgetLine(ca CellAnswer) string {
	line := fmt.Sprintf("%s: %s is fastest here", ca.Label, ca.Best)
	if ca.OverBaseline != nil && ca.OverBaseline.Status == "" {
		line += " (" + MarginText(ca.OverBaseline) + " over baseline)"
	}
	if ca.BestDrift != nil {
		line += ", but drifts: " + DriftText(*ca.BestDrift) + ", over the budget"
	} else {
		line += ", but its drift was not measured"
	}
	switch {
	case ca.WithinBudget == "":
		return line + "; no configuration is within budget here"
	case ca.WithinOverBaseline != nil:
		return line + "; best within budget: " + ca.WithinBudget + ", " + MarginText(ca.WithinOverBaseline) + " over baseline"
	}
	return line + "; best within budget: " + ca.WithinBudget
}
