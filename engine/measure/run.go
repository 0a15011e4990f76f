package measure

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"speedmatrix/engine"
	"sync"
	"sync/atomic"
	"time"

	"speedmatrix/engine/openai"
	"speedmatrix/engine/servers"
)

// runOptions are the run's timeouts and sampling rates; tests shorten them.
type runOptions struct {
	warmupTimeout time.Duration // longest wait for every worker's first token
	sampleEvery   time.Duration // Alive check and progress
	metricsEvery  time.Duration // /metrics scrape for the trust checks
	retryPause    time.Duration // pause after a failed request, the first after a rejected one
	idleWait      time.Duration // how long the server may stay busy before the run
	// idlePowerWindow is the quiet window before the first cell over which
	// the GPUs' idle power is read (0: not read).
	idlePowerWindow time.Duration
	drainWait       time.Duration // how long the server may take to drain after a cell
	probeTimeout    time.Duration // how long a liveness probe waits for an answer
	// Client timeouts, used when the Target leaves them zero.
	firstTokenTimeout, stallTimeout, requestTimeout time.Duration
	// wrapTransport, when set, wraps the client's HTTP transport: the seam
	// through which a test's fake server learns when the client sent.
	wrapTransport func(http.RoundTripper) http.RoundTripper
	// pause, when set, is how a stream waits before its next request (see
	// sleep): the seam through which a test sees the backoff without
	// sleeping.
	pause func(ctx context.Context, d time.Duration)
	// maxOpen, when set, is the most requests a load test holds open at
	// once in place of what its memory budget allows (engine.MaxOpenFor).
	maxOpen int
}

func defaultOptions() runOptions {
	return runOptions{
		warmupTimeout:     10 * time.Minute,
		sampleEvery:       time.Second,
		metricsEvery:      250 * time.Millisecond,
		retryPause:        200 * time.Millisecond,
		idleWait:          30 * time.Second,
		idlePowerWindow:   5 * time.Second,
		drainWait:         60 * time.Second,
		probeTimeout:      10 * time.Second,
		firstTokenTimeout: openai.DefaultFirstTokenTimeout,
		stallTimeout:      openai.DefaultStallTimeout,
		requestTimeout:    openai.DefaultRequestTimeout,
	}
}

// runner is one run of a plan against a target.
type runner struct {
	plan    engine.Plan
	target  Subject
	opts    runOptions
	client  *openai.Client
	events  chan engine.Event
	setup   setup
	prompts *prompter
	live    *liveness
	watch   *serverWatch         // nil: the server has no usable /metrics
	kind    servers.Kind         // the engine behind the endpoint, from servers.Detect
	version openai.ServerVersion // its /version answer, read at detection
	// checksLine is the Checks line when the server's metrics are read
	// ("": CheckServerMetrics).
	checksLine string
	// stillBusy is the last sample of a drain barrier that gave up: the
	// next cell is Failed unless the server is idle by then.
	stillBusy *metricSample

	requests   atomic.Int64 // numbers every request's prompt tail
	liveTokens atomic.Int64 // output tokens × 1000 seen so far, for progress

	mu       sync.Mutex // guards the fields below, read by the monitor
	report   engine.Report
	cells    []engine.Cell
	current  int // index into cells of the cell being measured
	cellFrom time.Time
	started  time.Time
	eta      etaModel
}

// Run measures plan against target and streams what happens. The channel is
// closed after the EventDone event, whose Report holds every cell (those
// the run never reached as Not run) and whose Err says why the run stopped
// early (nil when it completed): ErrServerStopped and ErrInterrupted leave
// a resumable report. The caller must read until the channel is closed.
// Cancelling ctx stops every stream; the cell it interrupts is Cancelled.
func Run(ctx context.Context, plan engine.Plan, target Subject) <-chan engine.Event {
	return runWith(ctx, plan, target, defaultOptions())
}

func runWith(ctx context.Context, plan engine.Plan, target Subject, opts runOptions) <-chan engine.Event {
	r := newRunner(plan, target, opts)
	r.serve(ctx, r.run, func(err error) engine.Report {
		if err != nil {
			r.endIncomplete(err)
		}
		return r.snapshot()
	})
	return r.events
}

// newRunner is the machinery a matrix run and a load test share: the
// client to the target with its timeouts and /metrics names, the options,
// and the server's liveness.
func newRunner(plan engine.Plan, target Subject, opts runOptions) *runner {
	r := &runner{plan: plan, target: target, opts: opts, events: make(chan engine.Event, 64), kind: servers.Generic}
	r.client = openai.New(target.BaseURL, target.APIKey)
	r.client.MetricNames = servers.MetricNames
	r.client.FirstTokenTimeout = cmp.Or(target.FirstTokenTimeout, opts.firstTokenTimeout)
	r.client.StallTimeout = cmp.Or(target.StallTimeout, opts.stallTimeout)
	r.client.RequestTimeout = cmp.Or(target.RequestTimeout, opts.requestTimeout)
	if opts.wrapTransport != nil {
		r.client.HTTP = &http.Client{Transport: opts.wrapTransport(r.client.HTTP.Transport)}
	}
	r.opts.idleWait = cmp.Or(target.IdleWait, opts.idleWait)
	r.live = newLiveness(r.probe)
	return r
}

// serve runs measure in the background; once it returns, end (called
// under r.mu) gives the report that EventDone carries, and the events
// channel is closed after it.
func (r *runner) serve(ctx context.Context, measure func(context.Context) error, end func(error) engine.Report) {
	go func() {
		defer close(r.events)
		err := measure(ctx)
		r.live.settle()
		r.mu.Lock()
		rep := end(err)
		r.mu.Unlock()
		r.events <- engine.Event{Kind: engine.EventDone, Time: time.Now(), Report: &rep, Err: err}
	}()
}

func (r *runner) run(ctx context.Context) error {
	r.started = time.Now()
	r.report = r.header()
	if err := engine.ValidatePlan(r.plan, engine.Limits{}); err != nil {
		return err
	}
	return r.lifecycle(ctx, r.prepare, r.monitor, r.measureAll)
}

// lifecycle is what a matrix run and a load test do once their plan is
// valid: prepare (the server, the model, the prompts), then, while monitor
// reports progress and the /metrics watch samples the server, check that
// the server is idle and measure.
func (r *runner) lifecycle(ctx context.Context, prepare func(context.Context) error, monitor func(context.Context), measure func(context.Context) error) error {
	if err := prepare(ctx); err != nil {
		return err
	}
	monCtx, stopMon := context.WithCancel(ctx)
	var mon sync.WaitGroup
	defer func() { stopMon(); mon.Wait() }()
	mon.Go(func() { monitor(monCtx) })
	watching, err := r.startWatch(ctx)
	if err != nil {
		return err
	}
	if watching {
		mon.Go(func() { r.watch.run(monCtx) })
		if err := r.checkIdle(ctx); err != nil {
			return err
		}
	}
	r.measureIdlePower(ctx)
	return measure(ctx)
}

// measureAll runs every cell in order, keeping those a previous run finished.
func (r *runner) measureAll(ctx context.Context) error {
	kept := r.keptResults()
	warmed := map[int]bool{}
	for i, cell := range r.cells {
		if p, ok := kept[cell.Key()]; ok {
			r.startCell(i) // consumers number the kept cell like the others
			r.finishCell(i, p, false)
			continue
		}
		r.live.settle()
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: %w", ErrInterrupted, err)
		}
		if err := r.alive(); err != nil {
			return err
		}
		r.startCell(i)
		res := r.measure(ctx, cell, warmed)
		r.finishCell(i, res, true)
		if err := r.stopAfter(res.Status); err != nil {
			return err
		}
	}
	return nil
}

// measure runs one cell, then the checks after it: the drain barrier, the
// server cross-check and the telemetry.
func (r *runner) measure(ctx context.Context, cell engine.Cell, warmed map[int]bool) engine.Result {
	fail := func(err error) engine.Result {
		st := engine.StatusFailed
		if ctx.Err() != nil {
			st = engine.StatusCancelled
		}
		return engine.Result{Cell: cell, ContextLabel: engine.ContextLabel(cell.ContextTokens), Status: st, Error: err.Error(),
			StartedAt: time.Now(), FinishedAt: time.Now()}
	}
	if cell.Phase == engine.PhaseDecode && r.setup.overCapacity(cell.ContextTokens, cell.Concurrency, r.plan.MaxOutputTokens) {
		now := time.Now()
		return engine.Result{Cell: cell, ContextLabel: engine.ContextLabel(cell.ContextTokens), Status: engine.StatusOverCapacity,
			StartedAt: now, FinishedAt: now}
	}
	if r.watch != nil {
		r.watch.startCell()
	}
	if err := r.stillBusyErr(); err != nil {
		res := fail(err)
		r.drain(ctx, &res, time.Now())
		return res
	}
	cp, err := r.prompts.forContext(ctx, cell.ContextTokens)
	if err != nil {
		return fail(fmt.Errorf("build the %s prompt: %w", engine.ContextLabel(cell.ContextTokens), err))
	}
	var run decodeRun
	if cell.Phase == engine.PhasePrefill {
		run.res, run.from, run.to = r.runPrefill(ctx, cell, cp)
		warmed[cell.ContextTokens] = true
	} else {
		if !warmed[cell.ContextTokens] {
			r.warm(ctx, cp)
			warmed[cell.ContextTokens] = true
		}
		run = r.runDecode(ctx, cell, cp)
	}
	res := run.res
	r.drain(ctx, &res, res.FinishedAt)
	r.notePrefixCache(&res)
	if cell.Phase == engine.PhaseDecode {
		r.checkDecode(&res, run)
	}
	r.flagBadSamples(&res)
	r.attachTelemetry(ctx, &res, run.from, run.to)
	return res
}

// checkDecode cross-checks a decode cell with the server's /metrics and
// raises its flags.
func (r *runner) checkDecode(res *engine.Result, run decodeRun) {
	if r.watch != nil && res.Status != engine.StatusCancelled && !run.from.IsZero() {
		res.Server = crossCheckWith(r.kind.Checks(), r.watch.cellSamples(), run.from, run.to, run.arrivals.gotTokens)
	}
	if !res.Measured() {
		return
	}
	active := run.clientActive
	if res.Server != nil {
		active = res.Server.ActiveMedian
	}
	if c := float64(res.Concurrency); active < 0.95*c {
		res.Underfilled = true
		res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagUnderfilled, Message: fmt.Sprintf("underfilled: %.1f of %d requests were running on average; the server could not hold them all",
			active, res.Concurrency)})
	}
	res.Flags = append(res.Flags, checkFlags(res.Server, res.TotalTokPerSec)...)
	if r.target.AllowBusy {
		res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagBusy, Message: "measured while other clients were allowed to use the server: the idle check and the drain barrier were off"})
	}
}

func (r *runner) attachTelemetry(ctx context.Context, res *engine.Result, from, to time.Time) {
	if r.target.Telemetry == nil || from.IsZero() || !to.After(from) {
		return
	}
	if w, ok := r.target.Telemetry.(engine.TelemetryWaiter); ok {
		w.WaitPast(ctx, to)
	}
	res.Telemetry = r.target.Telemetry.Summary(from, to)
	if r.target.Header.Hardware.OnCPU() {
		res.Telemetry = res.Telemetry.CPUOnly()
	}
	if res.Telemetry == nil || !res.Measured() {
		return
	}
	if res.Energy = engine.CellEnergyOf(res.Telemetry, r.target.ServingGPUs, r.report.Run.IdlePower, res.Phase, res.TotalTokPerSec); res.Energy != nil {
		res.JoulesPerToken = res.Energy.JoulesPerToken
	}
	if th := res.Telemetry.Throttle; !th.OK() {
		res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagThrottled, Message: th.Message()})
	}
	if n, ok := r.target.Telemetry.(engine.TelemetryNoter); ok {
		if gap := n.TelemetryGap(from, to); gap != "" {
			res.JoulesPerToken, res.Energy = 0, nil // the power of the missing GPUs is not in it
			res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagTelemetryGap, Message: "telemetry incomplete: " + gap + "; J/token left out"})
		}
	}
}

func (r *runner) startCell(i int) {
	r.mu.Lock()
	r.current, r.cellFrom = i, time.Now()
	p := r.progressLocked()
	r.mu.Unlock()
	r.emit(engine.Event{Kind: engine.EventProgress, Time: time.Now(), Progress: &p})
}

// finishCell records a result and sends it with a snapshot of the report,
// so that the consumer can save after every cell.
func (r *runner) finishCell(i int, res engine.Result, measured bool) {
	r.mu.Lock()
	engine.AttachRoofline(&res, r.report.Roofline, r.plan.MaxOutputTokens)
	r.report.Results = append(r.report.Results, res)
	if measured {
		r.eta.observe(res)
	}
	r.current = i + 1
	rep := r.snapshot()
	r.mu.Unlock()
	r.events <- engine.Event{Kind: engine.EventResult, Time: time.Now(), Result: &res, Report: &rep}
}

// endIncomplete records why the run stopped and, once it has measured
// something, lists every cell it never reached as Not run; r.mu is held.
func (r *runner) endIncomplete(err error) {
	r.report.Run.Incomplete = err.Error()
	if len(r.report.Results) == 0 {
		return
	}
	done := map[string]bool{}
	for _, res := range r.report.Results {
		done[res.Key()] = true
	}
	for _, c := range r.cells {
		if !done[c.Key()] {
			r.report.Results = append(r.report.Results, engine.Result{Cell: c, ContextLabel: engine.ContextLabel(c.ContextTokens), Status: engine.StatusNotRun})
		}
	}
}

// snapshot copies the report with results in the reference reports' order. r.mu is held.
func (r *runner) snapshot() engine.Report {
	rep := r.report
	rep.Results = slices.Clone(r.report.Results)
	sortResults(rep.Results)
	rep.Run.FinishedAt = time.Now()
	if n, ok := r.target.Telemetry.(engine.TelemetryNoter); ok {
		rep.Run.Notes = append(slices.Clip(rep.Run.Notes), n.TelemetryNotes()...)
	}
	if note := abortNote(r.kind, rep.Results, r.watch != nil && !r.target.AllowBusy); note != "" {
		rep.Run.Notes = append(slices.Clip(rep.Run.Notes), note)
	}
	rep.Run.Complete = rep.Run.Incomplete == "" && len(r.cells) > 0 && len(rep.Results) == len(r.cells) &&
		!slices.ContainsFunc(rep.Results, func(x engine.Result) bool { return !x.Status.Final() })
	return rep
}

// emit sends an informational event unless the run is being torn down.
func (r *runner) emit(ev engine.Event) { r.events <- ev }

func (r *runner) logf(format string, args ...any) {
	r.emit(engine.Event{Kind: engine.EventLog, Time: time.Now(), Log: fmt.Sprintf(format, args...)})
}

// alive asks RunOptions.Alive (a launched server's process) and declares the
// server stopped when it has exited.
func (r *runner) alive() error {
	if r.live.stopped() {
		return r.live.deathErr()
	}
	if r.target.Alive == nil {
		return nil
	}
	if err := r.target.Alive(); err != nil {
		r.live.declare(err)
		return r.live.deathErr()
	}
	return nil
}

// quietLimit is how long a stream open at the window's end may have been
// silent: the stall timeout, or half the window when that is shorter (but
// at least a second), so that a stall is caught even in a window shorter
// than the stall timeout.
func (r *runner) quietLimit() time.Duration {
	return min(r.client.StallTimeout, max(time.Second, r.plan.Duration/2))
}

// probe asks the server for its models, with the probe's own timeout: any
// answer, even an error status, means it is there.
func (r *runner) probe(ctx context.Context) error {
	_, err := r.probeClient().Models(ctx)
	return err
}

// probeClient is the run's client with the probe's timeout.
func (r *runner) probeClient() *openai.Client {
	c := *r.client
	c.RequestTimeout = r.opts.probeTimeout
	return &c
}

// stopAfter settles the server's liveness after a cell or a rate of this
// status and says why the run must end now: it was interrupted, or the
// server stopped; nil to go on.
func (r *runner) stopAfter(status engine.Status) error {
	r.live.settle()
	switch {
	case status == engine.StatusCancelled:
		return fmt.Errorf("%w: %w", ErrInterrupted, context.Canceled)
	case r.live.stopped():
		return r.live.deathErr()
	}
	return nil
}
