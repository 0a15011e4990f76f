package measure

import (
	"context"
	"errors"
	"speedmatrix/engine"
	"time"
)

// runLoadWith is a placeholder until the load runner lands.
func runLoadWith(ctx context.Context, plan engine.LoadPlan, target Subject, opts runOptions) <-chan engine.Event {
	ch := make(chan engine.Event, 1)
	rep := engine.Report{Load: &engine.LoadSection{Plan: plan}}
	ch <- engine.Event{Kind: engine.EventDone, Time: time.Now(), Report: &rep, Err: errors.New("load test: not built yet")}
	close(ch)
	return ch
}

// EstimateLoad is how long a load test is expected to take: each rate's
// requests at their rate, plus the last requests' own time. A placeholder
// until the load runner lands.
func EstimateLoad(plan engine.LoadPlan) time.Duration {
	var total time.Duration
	for _, rate := range plan.RatesRPS {
		if rate > 0 {
			total += time.Duration(float64(plan.Requests) / rate * float64(time.Second))
		}
	}
	return total
}
