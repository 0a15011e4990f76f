package matrix

import (
	"fmt"
	"strconv"

	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/engine"
)

// newRepeatsItem makes the Prefill repeats field. A preset's rule of one
// request at long contexts (Plan.PrefillSingleFrom) stays with the form
// until the field is edited: then, as with the CLI's --prefill-repeats,
// the count typed applies to every context.
func (m *Tab) newRepeatsItem() *widget.FormItem {
	m.Repeats = widget.NewEntry()
	m.Repeats.OnChanged = func(string) {
		if !m.Applying {
			m.singleFrom = 0
			m.showRepeatsHint()
		}
		m.onEdit()
	}
	m.RepeatsItem = widget.NewFormItem(app.PrefillRepeatsName, m.Repeats)
	return m.RepeatsItem
}

// showRepeats fills the field with p's repeats, and keeps its rule for
// long contexts.
func (m *Tab) showRepeats(p engine.Plan) {
	m.Repeats.SetText(strconv.Itoa(max(1, p.PrefillRepeats)))
	m.singleFrom = p.PrefillSingleFrom
	m.showRepeatsHint()
}

// showRepeatsHint says under the field what its count means: "median of
// cold requests; 1 from 64K" (short: the form is as wide as its widest
// hint, and the Matrix screen must fit 1,024 px).
func (m *Tab) showRepeatsHint() {
	hint := "median of cold requests"
	if m.singleFrom > 0 {
		hint += fmt.Sprintf("; 1 from %s", engine.ContextLabel(m.singleFrom))
	}
	if m.RepeatsItem.HintText != hint {
		m.RepeatsItem.HintText = hint
		if m.Form != nil {
			m.Form.Refresh()
		}
	}
}

// readRepeats sets p's prefill repeats from the field; the error says what
// to write.
func (m *Tab) readRepeats(p *engine.Plan) error {
	n, err := app.ReadWhole(m.Repeats.Text, engine.MaxPrefillRepeats, "requests", "3")
	if err != nil {
		return fmt.Errorf("prefill repeats: %w", err)
	}
	if problem := engine.PrefillRepeatsProblem(n); problem != "" {
		return fmt.Errorf("prefill repeats: %s", problem)
	}
	p.PrefillRepeats, p.PrefillSingleFrom = n, m.singleFrom
	return nil
}
