package shell

import (
	"speedmatrix/app"
	"speedmatrix/app/run"
	"speedmatrix/engine"
)

// What only the tests use: helpers that read a value back, and entry
// points the product reaches another way.

// consume reads the run's events until the channel closes, applying them
// on the UI goroutine (through do) at most every uiUpdateEvery. It closes
// finished once the engine is done, independently of the UI.
func consume(ch <-chan engine.Event, do func(func()), apply func(run.RunUpdate), finished chan<- struct{}) {
	run.ConsumeInto(&run.Accumulator{}, ch, do, apply, finished)
}

// explain is err's message followed by the advice, if any.
func explain(err error) string {
	if a := app.Advice(err); a != "" {
		return err.Error() + ". " + app.Upper(a) + "."
	}
	return err.Error()
}
