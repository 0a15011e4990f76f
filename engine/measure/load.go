package measure

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"speedmatrix/engine"
	"speedmatrix/engine/trace"
	"sync/atomic"
	"time"
)

// loadRunner is one load test against a target: the matrix runner's
// machinery (client, server detection, liveness, /metrics watch, idle
// check, drain barrier) with rates in place of cells.
type loadRunner struct {
	*runner
	load    engine.LoadPlan
	prompts *loadPrompts
	trace   *trace.Trace // the plan's trace, once read; nil without one
	// traceHitRate is the trace's implied prefix-cache hit rate.
	traceHitRate float64
	// convs are the plan's conversations, once read; nil without them.
	convs     *conversationSet
	convTally conversationTally
	// noChatCount: the server's /tokenize did not count chat messages, and
	// a replay's histories are sized by estimate.
	noChatCount atomic.Bool
	maxOpen     int // the most requests open at once (engine.MaxOpenFor), once prepared
	// saidShortest: the warning that prompts were asked for below the
	// shortest the test sends was given.
	saidShortest bool

	// Guarded by runner.mu.
	section  engine.LoadSection
	rates    []float64 // the rates to measure, once known (a sweep's after its limit)
	rateAt   int       // index into rates of the rate being measured
	progress *rateProgress
}

func runLoadWith(ctx context.Context, plan engine.LoadPlan, target Subject, opts runOptions) <-chan engine.Event {
	// The matrix plan carries what the shared machinery reads: the API,
	// and a window for quietLimit.
	mp := engine.Plan{API: plan.API, MaxOutputTokens: plan.OutputTokens.Max, Duration: time.Minute}
	r := newRunner(mp, target, opts)
	r.checksLine = CheckServerMetricsLoad
	l := &loadRunner{runner: r, load: plan, section: engine.LoadSection{Plan: plan}}
	r.serve(ctx, l.run, func(err error) engine.Report {
		if err != nil {
			r.report.Run.Incomplete = err.Error()
		}
		return l.snapshot()
	})
	return r.events
}

func (l *loadRunner) run(ctx context.Context) error {
	r := l.runner
	r.started = time.Now()
	r.report = l.header()
	if err := engine.ValidateLoadPlan(l.load, engine.Limits{}); err != nil {
		return err
	}
	return r.lifecycle(ctx, l.prepare, l.monitor, func(ctx context.Context) error {
		if l.load.Sweep {
			if err := l.measureLimit(ctx); err != nil {
				return err
			}
		}
		return l.measureRates(ctx)
	})
}

// header is the report's start: the caller's sections and the run's
// settings, with none of the matrix's.
func (l *loadRunner) header() engine.Report {
	rep := l.runner.header()
	rep.Plan = engine.Plan{}
	rep.Run.DecodeTest, rep.Run.PrefillMode, rep.Run.DurationS, rep.Run.MaxOutputTokens = "", "", 0, 0
	return rep
}

// prepare asks the server what it is and holds, checks the plan against
// it and sizes the prompts.
func (l *loadRunner) prepare(ctx context.Context) error {
	r := l.runner
	if err := r.detect(ctx); err != nil {
		return err
	}
	s, note, err := resolveServer(ctx, r.client, r.target, r.kind, 0)
	if err != nil {
		return err
	}
	r.setup = s
	if note != "" {
		r.addNote(note)
	}
	if err := engine.ValidateLoadPlan(l.load, engine.Limits{MaxModelLen: s.MaxModelLen}); err != nil {
		return err
	}
	for _, w := range engine.LoadWarnings(l.load, engine.Limits{MaxNumSeqs: s.MaxNumSeqs}) {
		r.logf("warning: %s", w.Problem)
	}
	r.fillServer()
	var dataset []string
	switch {
	case l.load.Conversations != nil:
		if err := l.prepareConversations(s.MaxModelLen); err != nil {
			return err
		}
	case l.load.Dataset != "":
		if dataset, err = ReadDataset(l.load.Dataset); err != nil {
			return &engine.PlanError{Problems: []engine.PlanProblem{{Field: engine.FieldDataset, Problem: err.Error()}}}
		}
	}
	longest := l.load.InputTokens.Max
	if l.load.Trace != nil {
		if l.trace, err = readTrace(l.load.Trace, s.MaxModelLen); err != nil {
			return err
		}
		l.sayTrace()
		// The prompts' tokens are drawn from the filler's: a few thousand
		// of them are tokens enough, whatever the prompts' lengths.
		longest = min(l.trace.LongestInput(), 8*engine.K)
	}
	r.prompts = newPrompter(r.client, s.Model, l.load.API, newRunID())
	r.prompts.maxModelLen = s.MaxModelLen
	if err := r.prompts.setup(ctx, max(longest, 1)); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
		}
		return fmt.Errorf("prepare prompts: %w", err)
	}
	r.mu.Lock()
	r.report.Run.ChatTemplateTokens = r.prompts.chatTemplateTokens()
	r.mu.Unlock()
	l.prompts = newLoadPrompts(r.prompts, dataset)
	l.prompts.trace = l.trace
	if err := l.prompts.checkDataset(ctx, l.load, s.MaxModelLen); err != nil {
		return err
	}
	if l.convs == nil {
		if err := l.sizeOpen(dataset); err != nil {
			return err
		}
	}
	r.mu.Lock()
	l.rates = slices.Clone(l.load.Rates())
	r.mu.Unlock()
	return nil
}

// sizeOpen sets how many requests the test holds open at once: as many as
// fit in the client's memory with its longest prompt. A dataset's prompts
// are known only now, so a burst or a cap past what they allow is refused
// here, as ValidateLoadPlan refuses sized prompts'.
func (l *loadRunner) sizeOpen(dataset []string) error {
	tokens := l.load.InputTokens.Max
	if l.trace != nil {
		tokens = l.trace.LongestInput()
	}
	if dataset != nil {
		longest := 0
		for _, p := range dataset {
			longest = max(longest, len(p))
		}
		tokens = engine.DatasetPromptTokens(longest)
	}
	l.maxOpen = cmp.Or(l.opts.maxOpen, engine.MaxOpenFor(tokens))
	var bad []engine.PlanProblem
	for _, c := range []struct {
		field engine.PlanField
		n     int
	}{{engine.FieldBurst, l.load.Burst}, {engine.FieldMaxConcurrency, l.load.MaxConcurrency}} {
		if s := engine.OpenProblem(c.n, tokens); (dataset != nil || l.trace != nil) && s != "" {
			bad = append(bad, engine.PlanProblem{Field: c.field, Problem: s})
		}
	}
	if len(bad) > 0 {
		return &engine.PlanError{Problems: bad}
	}
	return nil
}

// measureLimit is a sweep's first step: Requests requests, all due at
// once, at most SweepConcurrency (or MaxConcurrency) open: the requests
// per second the server completes when it is never idle.
func (l *loadRunner) measureLimit(ctx context.Context) error {
	r := l.runner
	capN := cmp.Or(l.load.MaxConcurrency, engine.SweepConcurrency)
	r.logf("sweep: measuring the throughput limit with %d requests, %d at a time", l.load.Requests, capN)
	res := l.measureRate(ctx, -1, 0, engine.ArrivalsBurst, l.load.Requests, capN)
	switch {
	case res.Status == engine.StatusCancelled:
		return fmt.Errorf("%w: %w", ErrInterrupted, context.Canceled)
	case r.live.stopped():
		return r.live.deathErr()
	case res.RequestThroughputRPS <= 0:
		return fmt.Errorf("sweep: the throughput limit could not be measured: %s", cmp.Or(res.Error, "no request completed"))
	}
	r.mu.Lock()
	l.section.LimitRPS = res.RequestThroughputRPS
	l.rates = l.load.SweepRatesFor(res.RequestThroughputRPS)
	r.mu.Unlock()
	r.logf("sweep: the server completes %.2f requests per second at most; measuring %d rates up to it", res.RequestThroughputRPS, len(l.rates))
	return nil
}

// measureRates measures every rate in turn, sending each result with a
// snapshot of the report.
func (l *loadRunner) measureRates(ctx context.Context) error {
	r := l.runner
	r.mu.Lock()
	rates := slices.Clone(l.rates)
	r.mu.Unlock()
	for i, rate := range rates {
		r.live.settle()
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: %w", ErrInterrupted, err)
		}
		if err := r.alive(); err != nil {
			return err
		}
		arr, n, capN := l.load.Arrivals, l.load.Requests, l.load.MaxConcurrency
		switch {
		case l.trace != nil:
			arr, n, rate = engine.ArrivalsTrace, len(l.trace.Requests), traceRate(l.trace)
		case l.convs != nil:
			arr, n, rate = engine.ArrivalsConversations, l.convs.turns, 0
		case l.load.Burst > 0:
			arr, n = engine.ArrivalsBurst, l.load.Burst
		}
		res := l.measureRate(ctx, i, rate, arr, n, capN)
		l.finishRate(res)
		if err := r.stopAfter(res.Status); err != nil {
			return err
		}
	}
	return nil
}

// finishRate records a rate and sends it with a snapshot of the report,
// so that the consumer can save after every rate.
func (l *loadRunner) finishRate(res engine.LoadResult) {
	r := l.runner
	r.mu.Lock()
	l.section.Results = append(l.section.Results, res)
	rep := l.snapshot()
	r.mu.Unlock()
	r.events <- engine.Event{Kind: engine.EventLoad, Time: time.Now(), Load: &res, Report: &rep}
}

// snapshot copies the report with the load test so far; r.mu is held.
func (l *loadRunner) snapshot() engine.Report {
	r := l.runner
	rep := r.report
	sec := l.section
	sec.Results = slices.Clone(l.section.Results)
	rep.Load = &sec
	rep.Run.FinishedAt = time.Now()
	if n, ok := r.target.Telemetry.(engine.TelemetryNoter); ok {
		rep.Run.Notes = append(slices.Clip(rep.Run.Notes), n.TelemetryNotes()...)
	}
	rep.Run.Complete = rep.Run.Incomplete == "" && len(l.rates) > 0 && len(sec.Results) == len(l.rates)
	return rep
}

// RunLoad measures a load test against target and streams what happens, as
// Run does: progress a few times a second (Progress.Load), an EventLoad
// per rate with a snapshot of the report (Report.Load), then EventDone,
// whose Report has no matrix cells and whose Err says why the test stopped
// early (ErrServerStopped, ErrInterrupted: the rates measured are kept).
// The caller must read until the channel is closed.
func RunLoad(ctx context.Context, plan engine.LoadPlan, target Subject) <-chan engine.Event {
	return runLoadWith(ctx, plan, target, defaultOptions())
}
