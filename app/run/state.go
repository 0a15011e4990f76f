package run

import (
	"fmt"
	"sync"
	"time"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
)

// RunUpdate is what happened since the last UI update, coalesced.
type RunUpdate struct {
	Progress *engine.Progress
	Server   *engine.ServerSample
	// ServerAt is when the server sample was scraped; cellFrom when the
	// cell being measured began (both by the engine's clock).
	ServerAt, CellFrom time.Time
	Results            []engine.Result
	loads              []engine.LoadResult // rates of a load test that finished
	Logs               []string
	Output             []measure.OutputChunk // the followed stream's, coalesced (addOutput)
	done               bool
	Report             *engine.Report
	err                error
}

// Accumulator gathers a run's events between UI updates, so that a run
// with 128 streams costs the UI at most one update per uiUpdateEvery.
type Accumulator struct {
	mu  sync.Mutex
	cur RunUpdate
	any bool
	// cell is the index of the cell being measured, which began at cellFrom.
	cell     int
	cellFrom time.Time
}

// Add records one event.
func (a *Accumulator) Add(ev engine.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.any = true
	switch ev.Kind {
	case engine.EventProgress:
		a.cur.Progress = ev.Progress
		if ev.Progress != nil && ev.Progress.CellIndex != a.cell {
			a.cell, a.cellFrom = ev.Progress.CellIndex, ev.Time
		}
		a.cur.CellFrom = a.cellFrom
	case engine.EventServer:
		a.cur.Server, a.cur.ServerAt, a.cur.CellFrom = ev.Server, ev.Time, a.cellFrom
	case engine.EventLog:
		a.cur.Logs = append(a.cur.Logs, ev.Log)
	case engine.EventResult:
		if ev.Result != nil {
			a.cur.Results = append(a.cur.Results, *ev.Result)
			a.cur.Logs = append(a.cur.Logs, report.CellLine(*ev.Result))
		}
		if ev.Report != nil {
			a.cur.Report = ev.Report
		}
	case engine.EventLoad:
		if ev.Load != nil {
			a.cur.loads = append(a.cur.loads, *ev.Load)
			a.cur.Logs = append(a.cur.Logs, appwidget.LoadLine(*ev.Load))
		}
		if ev.Report != nil {
			a.cur.Report = ev.Report
		}
	case engine.EventDone:
		a.cur.done, a.cur.err = true, ev.Err
		if ev.Report != nil {
			a.cur.Report = ev.Report
		}
	}
}

// AddOutput records a chunk of the stream the output panel follows; any
// goroutine (the tap calls it from the stream's).
func (a *Accumulator) AddOutput(c measure.OutputChunk) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.any = true
	a.cur.Output = CoalesceOutput(a.cur.Output, c)
}

// CoalesceOutput appends c to the chunks of one update, keeping them few
// however fast the stream: text joins the text before it of the same
// request and kind, up to the last outputMaxBytes; a new request (start or
// join) drops what came before it, which the panel would clear anyway.
func CoalesceOutput(pending []measure.OutputChunk, c measure.OutputChunk) []measure.OutputChunk {
	if c.Kind == measure.OutputStart || c.Kind == measure.OutputJoin {
		return append(pending[:0], c)
	}
	c.Text = appwidget.KeepTail(c.Text, appwidget.OutputMaxBytes)
	if n := len(pending); n > 0 && c.Kind == measure.OutputText {
		last := &pending[n-1]
		if last.Kind == measure.OutputText && last.Request == c.Request && last.Reasoning == c.Reasoning {
			last.Text = appwidget.KeepTail(last.Text+c.Text, appwidget.OutputMaxBytes)
			return pending
		}
	}
	return append(pending, c)
}

// Take returns what was gathered and starts afresh; ok is false when nothing was.
func (a *Accumulator) Take() (u RunUpdate, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	u, ok = a.cur, a.any
	a.cur, a.any = RunUpdate{}, false
	return u, ok
}

// ConsumeInto is consume gathering into acc, which the run's output tap
// also feeds (acc.addOutput).
func ConsumeInto(acc *Accumulator, ch <-chan engine.Event, do func(func()), apply func(RunUpdate), finished chan<- struct{}) {
	defer close(finished)
	tick := time.NewTicker(appwidget.UiUpdateEvery)
	defer tick.Stop()
	flush := func() {
		if u, ok := acc.Take(); ok {
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
			acc.Add(ev)
			if ev.Kind == engine.EventDone {
				flush()
			}
		case <-tick.C:
			flush()
		}
	}
}

// ServerLine is the server's state from a /metrics sample scraped at, and
// when that was from the start of the cell being measured (cellFrom): the
// engine scrapes between cells too (the drain barrier) and sends at most a
// sample a second, so the latest may predate the cell, or catch its
// requests still starting.
func ServerLine(s engine.ServerSample, at, cellFrom time.Time) string {
	when := ""
	switch {
	case at.IsZero() || cellFrom.IsZero():
	case at.Before(cellFrom):
		when = fmt.Sprintf(", %.1f s before this cell began", cellFrom.Sub(at).Seconds())
	default:
		when = fmt.Sprintf(", %.1f s into this cell", at.Sub(cellFrom).Seconds())
	}
	return fmt.Sprintf("Server (/metrics%s): %d running · %d waiting · KV cache %.0f %% used", when, s.Running, s.Waiting, s.KVUsagePct)
}
