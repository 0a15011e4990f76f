package measure

import (
	"context"
	"speedmatrix/engine"
	"sync/atomic"
	"time"
)

// rateProgress is where a rate stands, updated by its requests and read by
// the monitor.
type rateProgress struct {
	rate                  float64
	requests              int
	sent, done, inFlight  atomic.Int64
	completed, failed     atomic.Int64
	behindNs, maxInFlight atomic.Int64
}

// raise sets v to x when x is larger.
func raise(v *atomic.Int64, x int64) {
	for {
		old := v.Load()
		if x <= old || v.CompareAndSwap(old, x) {
			return
		}
	}
}

// progressEvery is how often a load test reports where it stands.
const progressEvery = 250 * time.Millisecond

// monitor runs beside the rates: it asks RunOptions.Alive and sends
// progress a few times a second with the live output rate.
func (l *loadRunner) monitor(ctx context.Context) {
	l.monitorEvery(ctx, min(progressEvery, l.opts.sampleEvery), l.progressNow)
}

// progressNow says where the load test stands.
func (l *loadRunner) progressNow() engine.Progress {
	r := l.runner
	r.mu.Lock()
	defer r.mu.Unlock()
	p := engine.Progress{CellIndex: l.rateAt + 1, CellCount: len(l.rates), Elapsed: time.Since(r.started)}
	if l.rateAt < 0 { // a sweep's limit, before its rates
		p.CellIndex = 0
	}
	if pg := l.progress; pg != nil {
		p.Load = &engine.LoadProgress{RateRPS: pg.rate, Requests: pg.requests, Sent: int(pg.sent.Load()), Done: int(pg.done.Load()),
			InFlight: int(pg.inFlight.Load()), BehindMs: ms(time.Duration(pg.behindNs.Load())),
			Completed: int(pg.completed.Load()), Failed: int(pg.failed.Load())}
	}
	left := l.load
	left.Sweep, left.RatesRPS, left.Burst = false, l.rates[min(l.rateAt+1, len(l.rates)):], 0
	if len(left.RatesRPS) > 0 {
		p.ETA = EstimateLoad(left)
	}
	if pg := l.progress; pg != nil && l.load.Conversations != nil {
		p.ETA = conversationTime(l.load, pg.requests-int(pg.done.Load()))
	}
	if pg := l.progress; pg != nil && pg.rate > 0 {
		unsent := float64(pg.requests - int(pg.sent.Load()))
		p.ETA = seconds(p.ETA.Seconds() + unsent/pg.rate + requestTime(l.load))
	}
	return p
}
