package shell

import (
	"context"
	"image"
	"sync"
	"time"

	"speedmatrix/app/matrix"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/secret"
)

// fakeLoad is a load runner that emits canned events: after each EventLoad
// it adds the rate to the report and sends the report so far with it, as
// the runner does; with hold it then waits for ctx to end and reports the
// load test stopped.
type fakeLoad struct {
	events []engine.Event
	hold   bool

	mu        sync.Mutex
	plans     []engine.LoadPlan
	cancelled chan struct{} // closed when a held run saw ctx end
}

func (f *fakeLoad) RunLoad(ctx context.Context, plan engine.LoadPlan, target measure.Subject) <-chan engine.Event {
	ro := target.RunOptions
	f.mu.Lock()
	f.plans = append(f.plans, plan)
	f.cancelled = make(chan struct{})
	cancelled := f.cancelled
	f.mu.Unlock()
	ch := make(chan engine.Event)
	go func() {
		defer close(ch)
		rep := &engine.Report{SchemaVersion: engine.SchemaVersion, Server: ro.Header.Server, Hardware: ro.Header.Hardware,
			Run: engine.RunInfo{ServedModel: "tiny", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Complete: true,
				Endpoint: secret.URL(target.BaseURL)},
			Load: &engine.LoadSection{Plan: plan}}
		for _, ev := range f.events {
			if ev.Load != nil {
				rep.Load.Results = append(rep.Load.Results, *ev.Load)
				snap := *rep
				section := *rep.Load
				section.Results = append([]engine.LoadResult(nil), rep.Load.Results...)
				snap.Load = &section
				ev.Report = &snap
			}
			ch <- ev
		}
		var err error
		if f.hold {
			<-ctx.Done()
			close(cancelled)
			err = context.Canceled
			rep.Run.Complete = false
		}
		ch <- engine.Event{Kind: engine.EventDone, Report: rep, Err: err}
	}()
	return ch
}

func (f *fakeLoad) lastPlan() engine.LoadPlan {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.plans[len(f.plans)-1]
}

// loadRate is a finished rate of a load test with figures derived from
// the rate, so that two rates tell apart.
func loadRate(rateRPS float64) engine.LoadResult {
	return engine.LoadResult{RateRPS: rateRPS, Arrivals: engine.ArrivalsPoisson, Status: engine.StatusValid,
		Requests: 200, Completed: 198, Failed: 2, DurationS: 200 / rateRPS,
		RequestThroughputRPS: 0.98 * rateRPS, OutputTokPerSec: 250 * rateRPS,
		TTFTMs: engine.Percentiles{P50: 40 * rateRPS, P90: 60 * rateRPS, P99: 100 * rateRPS, N: 198},
		TPOTMs: engine.Percentiles{P50: 5, P90: 6, P99: 8, N: 198}, ITLMs: engine.Percentiles{P50: 5, P90: 6, P99: 9, N: 50000},
		E2EMs: engine.Percentiles{P50: 1000 * rateRPS, P90: 1200 * rateRPS, P99: 1500 * rateRPS, N: 198}, GoodputRPS: 0.9 * rateRPS}
}

// cannedLoadEvents are a load test of two rates, 1 and 2 req/s, with
// progress inside each.
func cannedLoadEvents() []engine.Event {
	progress := func(i int, rate float64, done int) engine.Event {
		return engine.Event{Kind: engine.EventProgress, Progress: &engine.Progress{CellIndex: i, CellCount: 2,
			Load: &engine.LoadProgress{RateRPS: rate, Sent: done + 4, Done: done, Requests: 200, InFlight: 4, Completed: done}}}
	}
	r1, r2 := loadRate(1), loadRate(2)
	return []engine.Event{
		progress(1, 1, 100),
		{Kind: engine.EventLoad, Load: &r1},
		progress(2, 2, 50),
		{Kind: engine.EventLoad, Load: &r2},
	}
}

// cannedLoadReport is a finished simulated load test of the rates given.
func cannedLoadReport(served string, rates ...float64) engine.Report {
	rep := engine.Report{SchemaVersion: engine.SchemaVersion,
		Server: engine.ServerInfo{Name: "vllm", Simulated: true, SimProfile: "tiny"},
		Run:    engine.RunInfo{ServedModel: served, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Complete: true},
		Load:   &engine.LoadSection{Plan: matrix.DefaultLoadPlan()}}
	rep.Load.Plan.RatesRPS = rates
	for _, r := range rates {
		rep.Load.Results = append(rep.Load.Results, loadRate(r))
	}
	return rep
}

// panickyCharts draws as fakeCharts does, but panics on a load test's
// pictures: a drawing bug must not take the app down.
type panickyCharts struct{ fakeCharts }

func (p panickyCharts) Picture(kind charts.Kind, r engine.Report, pane charts.Pane, dark bool) (image.Image, error) {
	if r.Load != nil {
		panic("no load model")
	}
	return p.fakeCharts.Picture(kind, r, pane, dark)
}
