package widget

import (
	"cmp"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
)

// SweepBestLine is a sweep's answer in a few words, as History lists it
// and Results heads its summary: its fastest cell and the configuration
// that won it, with its margin over the baseline: "best at 8K × 64:
// max_num_seqs=256 (+18.0%)".
func SweepBestLine(s sweep.Sweep) string {
	if s.Answer == nil {
		return "nothing measured yet"
	}
	var best sweep.CellAnswer
	top := 0.0
	for _, ca := range s.Answer.Cells {
		for _, e := range ca.Entries {
			if ca.Best != "" && e.Config == ca.Best && e.TokS > top {
				top, best = e.TokS, ca
			}
		}
	}
	m := best.OverBaseline
	switch {
	case best.Best == "":
		return "no configuration measured a Valid cell yet"
	case best.Best == sweep.BaselineName && best.OverRunnerUp == nil:
		return fmt.Sprintf("best at %s: the baseline, the only one Valid there", best.Label)
	case best.Best == sweep.BaselineName && best.OverRunnerUp.NoDifference:
		return fmt.Sprintf("best at %s: the baseline, no difference from %s", best.Label, best.OverRunnerUp.Of)
	case best.Best == sweep.BaselineName:
		return fmt.Sprintf("best at %s: the baseline, %s over %s", best.Label, sweep.MarginText(best.OverRunnerUp), best.OverRunnerUp.Of)
	case m == nil:
		return fmt.Sprintf("best at %s: %s", best.Label, best.Best)
	case m.Status != "":
		return fmt.Sprintf("best at %s: %s (the baseline: %s)", best.Label, best.Best, m.Status)
	case m.NoDifference:
		return fmt.Sprintf("best at %s: %s (no difference from the baseline)", best.Label, best.Best)
	}
	return fmt.Sprintf("best at %s: %s (%s)", best.Label, best.Best, report.Percent(m.Gain))
}

// SweepCount is "Sweep · 5 configurations".
func SweepCount(s sweep.Sweep) string {
	return "Sweep · " + engine.Count(len(s.Configs), "configuration", "configurations")
}

// RowsHeight gives its object the height of a table of rows (at most
// most) under its header; the table scrolls the rest.
type RowsHeight struct {
	Rows func() int
	Most int
}

// Layout gives every object the whole size.
func (l *RowsHeight) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Resize(size)
	}
}

// MinSize is a table's rows and header tall.
func (l *RowsHeight) MinSize([]fyne.CanvasObject) fyne.Size {
	row := widget.NewLabel("").MinSize().Height + theme.Padding()
	return fyne.NewSize(0, float32(min(max(l.Rows(), 1), l.Most)+1)*row)
}

// SweepCellsText is how much of the plan a configuration's run measured:
// "8 of 8 cells".
func SweepCellsText(rep engine.Report) string {
	n := 0
	for _, res := range rep.Results {
		if res.Status.Final() {
			n++
		}
	}
	return fmt.Sprintf("%d of %d cells", n, cmp.Or(len(rep.Results), n))
}
