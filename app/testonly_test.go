package app

import (
	"speedmatrix/engine"
	"strings"
)

// What only the tests use: helpers that read a value back, and entry
// points the product reaches another way.

// text is what the pane shows, its lines joined (tests read it).
func (p *textPane) text() string { return strings.Join(p.lines, "\n") }

// consume reads the run's events until the channel closes, applying them
// on the UI goroutine (through do) at most every uiUpdateEvery. It closes
// finished once the engine is done, independently of the UI.
func consume(ch <-chan engine.Event, do func(func()), apply func(runUpdate), finished chan<- struct{}) {
	consumeInto(&accumulator{}, ch, do, apply, finished)
}

// text is the whole log as shown.
func (v *logView) text() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return strings.Join(v.lines, "\n")
}

// label is the text a cell shows, both lines joined (tests read it).
func (hc *heatCell) label() string {
	if hc.detail.Text == "" {
		return hc.main.Text
	}
	return hc.main.Text + " " + hc.detail.Text
}

// ticks are the labels shown, in order (tests read them).
func (l *colorLegend) ticks() []string {
	var out []string
	for _, t := range l.scale.Ticks {
		out = append(out, t.Label)
	}
	return out
}

// visible reports whether the banner shows a problem.
func (b *banner) visible() bool { return b.box.Visible() }

// explain is err's message followed by the advice, if any.
func explain(err error) string {
	if a := advice(err); a != "" {
		return err.Error() + ". " + upper(a) + "."
	}
	return err.Error()
}
