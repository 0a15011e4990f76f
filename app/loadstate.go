package app

import (
	"context"
	"fmt"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// loadRunner runs a load test against a target; measure.RunLoad is the
// real one. It sends an EventLoad (with the report so far) after each
// rate, progress with Progress.Load, and closes after EventDone.
type loadRunner interface {
	RunLoad(ctx context.Context, plan engine.LoadPlan, target measure.Subject) <-chan engine.Event
}

// LoadFunc adapts a function such as measure.RunLoad to loadRunner.
type LoadFunc func(ctx context.Context, plan engine.LoadPlan, target measure.Subject) <-chan engine.Event

// RunLoad calls f.
func (f LoadFunc) RunLoad(ctx context.Context, plan engine.LoadPlan, target measure.Subject) <-chan engine.Event {
	return f(ctx, plan, target)
}

// LoadInfo is the Matrix screen's load test: whether the screen is set to
// one (then Run starts it instead of the matrix), its plan, and why the
// form is not a plan (nil when it is).
type LoadInfo struct {
	On   bool
	Plan engine.LoadPlan
	Err  error
}

// SetLoad replaces the load test; watchers of the plan hear of it, as a
// load test is the other kind of plan.
func (s *State) SetLoad(l LoadInfo) {
	s.Load = l
	s.notify(ChangePlan)
}

// IsLoad reports whether rep is a load test's report.
func IsLoad(rep engine.Report) bool { return rep.Load != nil }

// MeasuredAnything reports whether rep holds a cell or a rate: what Results
// can show.
func MeasuredAnything(rep *engine.Report) bool {
	return rep != nil && (len(rep.Results) > 0 || rep.Load != nil && len(rep.Load.Results) > 0)
}

// LoadWhat says what a load test sends: "4 rates × 200 requests", "a
// burst of 64 requests at once".
func LoadWhat(p engine.LoadPlan) string {
	switch {
	case p.Burst > 0:
		return "a burst of " + engine.Count(p.Burst, "request", "requests") + " at once"
	case p.Sweep:
		return fmt.Sprintf("the limit first, then %d rates up to it × %s", p.SweepRates, engine.Count(p.Requests, "request", "requests"))
	}
	return engine.Count(len(p.RatesRPS), "rate", "rates") + " × " + engine.Count(p.Requests, "request", "requests")
}

// LoadAbout is how long a load test should take ("about 4 min"), or what
// it depends on when that is not known before it runs.
func LoadAbout(p engine.LoadPlan) string {
	if d := measure.EstimateLoad(p); d > 0 {
		return FormatAbout(d)
	}
	return "known once the run starts"
}

// LoadEstimate is the Matrix screen's estimate line of a load test:
// "Estimated total: about 4 min · 4 rates × 200 requests".
func LoadEstimate(p engine.LoadPlan) string {
	return "Estimated total: " + LoadAbout(p) + " · " + LoadWhat(p)
}

// DoneShare is the share of a run done, from 0 to 1: the cells (or a load
// test's rates) finished, and of a load test's current rate the requests
// done. 0 when the count of cells is not known.
func DoneShare(p engine.Progress) float64 {
	if p.CellCount <= 0 {
		return 0
	}
	done := float64(p.CellIndex - 1)
	if l := p.Load; l != nil && l.Requests > 0 {
		done += float64(min(l.Done, l.Requests)) / float64(l.Requests)
	}
	return done / float64(p.CellCount)
}
