package measure

import (
	"context"
	"speedmatrix/engine"
	"time"
)

// monitor runs beside the cells: every opts.sampleEvery it asks
// RunOptions.Alive and sends progress with the live output rate.
func (r *runner) monitor(ctx context.Context) {
	r.monitorEvery(ctx, r.opts.sampleEvery, func() engine.Progress {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.progressLocked()
	})
}

// monitorEvery is monitor at any period, with where the run stands from
// progress: a matrix's cells or a load test's rates.
func (r *runner) monitorEvery(ctx context.Context, every time.Duration, progress func() engine.Progress) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	lastTokens, lastAt := r.liveTokens.Load(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if r.target.Alive != nil {
				if err := r.target.Alive(); err != nil {
					r.live.declare(err)
				}
			}
			tokens := r.liveTokens.Load()
			rate := float64(tokens-lastTokens) / 1000 / now.Sub(lastAt).Seconds()
			lastTokens, lastAt = tokens, now
			p := progress()
			p.LiveTokPerSec = rate
			r.send(ctx, engine.Event{Kind: engine.EventProgress, Time: now, Progress: &p})
		}
	}
}

// send delivers an informational event, or drops it once ctx is done so the
// monitor can always stop.
func (r *runner) send(ctx context.Context, ev engine.Event) {
	select {
	case r.events <- ev:
	case <-ctx.Done():
	}
}

// progressLocked says where the run stands; r.mu is held.
func (r *runner) progressLocked() engine.Progress {
	p := engine.Progress{CellCount: len(r.cells), Elapsed: time.Since(r.started)}
	if len(r.cells) == 0 {
		return p
	}
	i := min(r.current, len(r.cells)-1)
	p.CellIndex, p.Cell = i+1, r.cells[i]
	inCell := time.Duration(0)
	if r.current < len(r.cells) {
		inCell = time.Since(r.cellFrom)
	}
	p.ETA = r.eta.remaining(r.cells[r.current:], inCell)
	return p
}
