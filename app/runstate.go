package app

import (
	"sync"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// runUpdate is what happened since the last UI update, coalesced.
type runUpdate struct {
	progress *engine.Progress
	server   *engine.ServerSample
	results  []engine.Result
	logs     []string
	done     bool
	report   *engine.Report
	err      error
}

// accumulator gathers a run's events between UI updates, so that a run
// with 128 streams costs the UI at most one update per uiUpdateEvery.
type accumulator struct {
	mu  sync.Mutex
	cur runUpdate
	any bool
}

// add records one event.
func (a *accumulator) add(ev engine.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.any = true
	switch ev.Kind {
	case engine.EventProgress:
		a.cur.progress = ev.Progress
	case engine.EventServer:
		a.cur.server = ev.Server
	case engine.EventLog:
		a.cur.logs = append(a.cur.logs, ev.Log)
	case engine.EventResult:
		if ev.Result != nil {
			a.cur.results = append(a.cur.results, *ev.Result)
			a.cur.logs = append(a.cur.logs, report.CellLine(*ev.Result))
		}
		if ev.Report != nil {
			a.cur.report = ev.Report
		}
	case engine.EventDone:
		a.cur.done, a.cur.err = true, ev.Err
		if ev.Report != nil {
			a.cur.report = ev.Report
		}
	}
}

// take returns what was gathered and starts afresh; ok is false when nothing was.
func (a *accumulator) take() (u runUpdate, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	u, ok = a.cur, a.any
	a.cur, a.any = runUpdate{}, false
	return u, ok
}

// consume reads the run's events until the channel closes, applying them
// on the UI goroutine (through do) at most every uiUpdateEvery. It closes
// finished once the engine is done, independently of the UI.
func consume(ch <-chan engine.Event, do func(func()), apply func(runUpdate), finished chan<- struct{}) {
	defer close(finished)
	var acc accumulator
	tick := time.NewTicker(uiUpdateEvery)
	defer tick.Stop()
	flush := func() {
		if u, ok := acc.take(); ok {
			do(func() { apply(u) })
		}
	}
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				flush()
				return
			}
			acc.add(ev)
			if ev.Kind == engine.EventDone {
				flush()
			}
		case <-tick.C:
			flush()
		}
	}
}
