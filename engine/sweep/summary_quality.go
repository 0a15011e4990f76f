package sweep

import (
	"fmt"
	"strings"

	"speedmatrix/engine/report"
)

// UnmeasuredChange reports whether c changes the model's output (its †)
// with no drift measured to say by how much: where one was, its figure
// stands in the † mark's place.
func UnmeasuredChange(c Config) bool {
	if len(c.ChangesOutput) == 0 {
		return false
	}
	_, measured := c.Quality.Worst()
	return !measured
}

// writeBudget writes sweep.md's quality section: how the budget was
// applied, then every cell whose fastest configuration is over it.
func writeBudget(b *strings.Builder, s Sweep, a Answer) {
	if s.Quality == nil {
		return
	}
	b.WriteString("## Quality budget\n\n")
	if a.Budget == "" {
		fmt.Fprintf(b, "The quality budget %s was not applied: the baseline's reference was not recorded (%s), so no drift was measured.\n\n",
			s.Quality.Budget, report.MDText(QualityText(s.Configs[0])))
		return
	}
	fmt.Fprintf(b, "Every configuration was compared with the baseline's output, recorded as the reference (%s): KL divergence and top-1 agreement, teacher-forced. "+
		"Budget: %s (a KLD mean at most, and a top-1 agreement at least, these, beyond the noise floor). "+
		"A cell's drift is the one measured at the nearest context at or above the cell's (the longest measured, past it); "+
		"a configuration whose drift was not measured is not counted within the budget.\n\n", ReferenceFile, a.Budget)
	var missed []string
	for _, ca := range a.Cells {
		if ca.BudgetMissed {
			missed = append(missed, "- "+report.MDText(CellLine(ca)))
		}
	}
	if len(missed) == 0 {
		b.WriteString("In every cell the fastest configuration is within the budget.\n\n")
		return
	}
	b.WriteString(strings.Join(missed, "\n") + "\n\n")
}
