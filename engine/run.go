package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"speedmatrix/engine/openai"
)

// runOptions are the run's timeouts; tests shorten them.
type runOptions struct {
	warmupTimeout time.Duration // longest wait for every worker's first token
	idleTimeout   time.Duration // a stream with no byte for this long has stalled
	sampleEvery   time.Duration // /metrics scrape, Alive check and progress
	retryPause    time.Duration // pause after a failed request
}

func defaultOptions() runOptions {
	return runOptions{
		warmupTimeout: 10 * time.Minute,
		idleTimeout:   2 * time.Minute,
		sampleEvery:   time.Second,
		retryPause:    200 * time.Millisecond,
	}
}

// runner is one run of a plan against a target.
type runner struct {
	plan    Plan
	target  Target
	opts    runOptions
	client  *openai.Client
	events  chan<- Event
	setup   setup
	prompts *prompter

	requests   atomic.Int64 // numbers every request's prompt tail
	liveTokens atomic.Int64 // output tokens × 1000 seen so far, for progress

	dead     chan struct{} // closed when Target.Alive fails
	deadOnce sync.Once
	deadMu   sync.Mutex
	deathErr error

	mu       sync.Mutex // guards the fields below, read by the monitor
	report   Report
	cells    []Cell
	current  int // index into cells of the cell being measured
	cellFrom time.Time
	started  time.Time
	eta      etaModel
}

// Run measures plan against target and streams what happens. The channel is
// closed after the EventDone event, whose Report holds every finished cell
// and whose Err says why the run stopped early (nil when it completed). The
// caller must read until the channel is closed. Cancelling ctx stops every
// stream; the cell it interrupts is reported as Cancelled.
func Run(ctx context.Context, plan Plan, target Target) <-chan Event {
	return runWith(ctx, plan, target, defaultOptions())
}

func runWith(ctx context.Context, plan Plan, target Target, opts runOptions) <-chan Event {
	ch := make(chan Event, 64)
	r := &runner{plan: plan, target: target, opts: opts, events: ch, dead: make(chan struct{})}
	r.client = openai.New(target.BaseURL, target.APIKey)
	r.client.IdleTimeout = opts.idleTimeout
	if target.IdleTimeout > 0 {
		r.client.IdleTimeout = target.IdleTimeout
	}
	go func() {
		defer close(ch)
		err := r.run(ctx)
		r.mu.Lock()
		rep := r.snapshot()
		r.mu.Unlock()
		r.events <- Event{Kind: EventDone, Time: time.Now(), Report: &rep, Err: err}
	}()
	return ch
}

func (r *runner) run(ctx context.Context) error {
	r.started = time.Now()
	r.report = r.header()
	if err := validatePlan(r.plan); err != nil {
		return err
	}
	if err := r.alive(); err != nil {
		return err
	}
	s, err := resolve(ctx, r.client, r.plan, r.target)
	if err != nil {
		return err
	}
	r.setup = s
	r.fillEngine(ctx)
	r.prompts = newPrompter(r.client, s.Model, r.plan.API, newRunID())
	maxCtx := slices.Max(slices.Concat([]int{1}, s.Prefill, s.Decode))
	if err := r.prompts.setup(ctx, maxCtx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("run cancelled: %w", ctx.Err())
		}
		return fmt.Errorf("prepare prompts: %w", err)
	}
	r.mu.Lock()
	r.cells = s.cells(r.plan)
	r.eta = newETAModel(r.plan, s)
	r.mu.Unlock()

	monCtx, stopMon := context.WithCancel(ctx)
	var mon sync.WaitGroup
	mon.Go(func() { r.monitor(monCtx) })
	defer func() { stopMon(); mon.Wait() }()
	return r.measureAll(ctx)
}

// measureAll runs every cell in order, keeping those a previous run finished.
func (r *runner) measureAll(ctx context.Context) error {
	previous := map[string]Result{}
	for _, p := range r.target.Previous {
		if p.Status != StatusCancelled && p.Status != StatusPending {
			previous[p.Key()] = p
		}
	}
	warmed := map[int]bool{}
	for i, cell := range r.cells {
		if p, ok := previous[cell.Key()]; ok {
			r.startCell(i) // consumers number the kept cell like the others
			r.finishCell(i, p, false)
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("run cancelled: %w", err)
		}
		if err := r.alive(); err != nil {
			return err
		}
		r.startCell(i)
		res := r.measure(ctx, cell, warmed)
		r.finishCell(i, res, true)
		switch {
		case res.Status == StatusCancelled:
			return fmt.Errorf("run cancelled: %w", context.Canceled)
		case r.isDead():
			return r.deadErr()
		}
	}
	return nil
}

// measure runs one cell and attaches its telemetry.
func (r *runner) measure(ctx context.Context, cell Cell, warmed map[int]bool) Result {
	fail := func(err error) Result {
		st := StatusFailed
		if ctx.Err() != nil {
			st = StatusCancelled
		}
		return Result{Cell: cell, ContextLabel: ContextLabel(cell.ContextTokens), Status: st, Error: err.Error(),
			StartedAt: time.Now(), FinishedAt: time.Now()}
	}
	if cell.Phase == PhaseDecode && r.setup.overCapacity(cell.ContextTokens, cell.Concurrency, r.plan.MaxOutputTokens) {
		now := time.Now()
		return Result{Cell: cell, ContextLabel: ContextLabel(cell.ContextTokens), Status: StatusOverCapacity,
			StartedAt: now, FinishedAt: now}
	}
	cp, err := r.prompts.forContext(ctx, cell.ContextTokens)
	if err != nil {
		return fail(fmt.Errorf("build the %s prompt: %w", ContextLabel(cell.ContextTokens), err))
	}
	var res Result
	var from, to time.Time
	if cell.Phase == PhasePrefill {
		res, from, to = r.runPrefill(ctx, cell, cp)
		warmed[cell.ContextTokens] = true
	} else {
		if !warmed[cell.ContextTokens] {
			r.warm(ctx, cp)
			warmed[cell.ContextTokens] = true
		}
		res, from, to = r.runDecode(ctx, cell, cp)
	}
	r.attachTelemetry(&res, from, to)
	return res
}

func (r *runner) attachTelemetry(res *Result, from, to time.Time) {
	if r.target.Telemetry == nil || from.IsZero() || !to.After(from) {
		return
	}
	res.Telemetry = r.target.Telemetry.Summary(from, to)
	if res.Telemetry != nil && res.Status == StatusValid && res.TotalTokPerSec > 0 && res.Telemetry.TotalPowerW.Avg > 0 {
		res.JoulesPerToken = res.Telemetry.TotalPowerW.Avg / res.TotalTokPerSec
	}
}

func (r *runner) startCell(i int) {
	r.mu.Lock()
	r.current, r.cellFrom = i, time.Now()
	p := r.progressLocked()
	r.mu.Unlock()
	r.emit(Event{Kind: EventProgress, Time: time.Now(), Progress: &p})
}

// finishCell records a result and sends it with a snapshot of the report,
// so that the consumer can save after every cell.
func (r *runner) finishCell(i int, res Result, measured bool) {
	r.mu.Lock()
	r.report.Results = append(r.report.Results, res)
	if measured {
		r.eta.observe(res)
	}
	r.current = i + 1
	rep := r.snapshot()
	r.mu.Unlock()
	r.events <- Event{Kind: EventResult, Time: time.Now(), Result: &res, Report: &rep}
}

// snapshot copies the report with results in the seeds' order. r.mu is held.
func (r *runner) snapshot() Report {
	rep := r.report
	rep.Results = slices.Clone(r.report.Results)
	sortResults(rep.Results)
	rep.Run.FinishedAt = time.Now()
	rep.Run.Complete = len(r.cells) > 0 && len(rep.Results) == len(r.cells) && !slices.ContainsFunc(rep.Results, func(x Result) bool {
		return x.Status == StatusCancelled || x.Status == StatusPending
	})
	return rep
}

// emit sends an informational event unless the run is being torn down.
func (r *runner) emit(ev Event) { r.events <- ev }

func (r *runner) logf(format string, args ...any) {
	r.emit(Event{Kind: EventLog, Time: time.Now(), Log: fmt.Sprintf(format, args...)})
}

func (r *runner) alive() error {
	if r.isDead() {
		return r.deadErr()
	}
	if r.target.Alive == nil {
		return nil
	}
	if err := r.target.Alive(); err != nil {
		r.markDead(err)
		return r.deadErr()
	}
	return nil
}

func (r *runner) markDead(err error) {
	r.deadMu.Lock()
	if r.deathErr == nil {
		r.deathErr = fmt.Errorf("the server stopped: %w", err)
	}
	r.deadMu.Unlock()
	r.deadOnce.Do(func() { close(r.dead) })
}

func (r *runner) isDead() bool {
	select {
	case <-r.dead:
		return true
	default:
		return false
	}
}

func (r *runner) deadErr() error {
	r.deadMu.Lock()
	defer r.deadMu.Unlock()
	return r.deathErr
}

func newRunID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
