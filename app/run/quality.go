package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// runFunc starts a run of target and sends its events (engineRunner.Run
// with its plan).
type runFunc func(ctx context.Context, target measure.Subject) <-chan engine.Event

// qualityPhase is what a matrix run does after its cells, as the Matrix
// screen's Quality field asks: record a reference into record, or compare
// the server with q (runs.Quality, the one phase every front end runs),
// going on from prior when a resumed run had begun it.
type qualityPhase struct {
	record  string
	q       runs.Quality
	prior   *quality.Report
	timeout time.Duration // each request's (the Settings screen's first-token timeout)
}

// qualityPhaseOf is the phase the field asks for, nil when it is off. The
// reference is read again (it may have changed since it was chosen), and
// a resumed run whose phase began against another file is refused; the
// error is in the field's words.
func qualityPhaseOf(info app.QualityInfo, prev *engine.Report, timeout time.Duration) (*qualityPhase, error) {
	pending := prev != nil && runs.Pending(*prev)
	if pending && info.Mode != app.QualityCompare {
		return nil, &app.FieldError{Field: app.QualityField, Problem: "this run's quality phase is unfinished", Fix: "set it to Compare with a reference, with the file it began with, then Resume"}
	}
	if !info.On() {
		return nil, nil
	}
	if info.Mode == app.QualityRecord || info.Path == "" {
		_, err := app.CheckQuality(info) // what a new file is checked for, or that none is chosen
		return &qualityPhase{record: info.Path, timeout: timeout}, err
	}
	ref, sum, err := app.ReadReferenceFile(info.Path)
	if err != nil {
		return nil, err
	}
	p := &qualityPhase{q: runs.Quality{Reference: ref, File: info.Path, SHA256: sum, NeedleTrials: probe.DefaultNeedleTrials, Budget: quality.DefaultBudget()}, timeout: timeout}
	if p.prior, err = p.q.Prior(prev); err != nil {
		return nil, &app.FieldError{Field: app.QualityField, Problem: err.Error(), Fix: "choose the file the phase began with"}
	}
	return p, nil
}

// estimate is how long a comparison takes after the cells, at the rates
// prev measured where it resumes one (runs.Quality.Estimate), else the
// priors'; 0 for none, or a recording (whose reference is not known yet).
func (p *qualityPhase) estimate(prev *engine.Report) time.Duration {
	if p == nil || p.record != "" {
		return 0
	}
	var rates runs.Rates
	if prev != nil {
		rates = runs.RatesOf(*prev)
	}
	return p.q.Estimate(p.prior, rates)
}

// wrap is run with the phase after its cells: a comparison first checks
// the server's tokenizer against the reference's (before any cell), and
// runs only after a matrix that completed.
func (p *qualityPhase) wrap(run runFunc) runFunc {
	return func(ctx context.Context, t measure.Subject) <-chan engine.Event {
		out := make(chan engine.Event)
		go func() {
			defer close(out)
			p.follow(ctx, t, run, out)
		}()
		return out
	}
}

// follow runs the matrix, then the phase, sending every event on out;
// the phase's saves go as results without a cell (so the Run screen saves
// after every context), its progress as log lines.
func (p *qualityPhase) follow(ctx context.Context, t measure.Subject, run runFunc, out chan<- engine.Event) {
	client := openai.New(t.BaseURL, t.APIKey)
	client.RequestTimeout = p.timeout
	var s probe.Server
	var err error
	if p.record == "" {
		if s, err = p.q.Connect(ctx, client, t.Model); err != nil {
			out <- engine.Event{Kind: engine.EventDone, Time: time.Now(), Err: err}
			return
		}
	}
	var done engine.Event
	var last engine.Report // the cells' latest report: the rates the phase's estimate assumes
	for ev := range run(ctx, t) {
		if ev.Kind == engine.EventDone {
			done = ev
			continue
		}
		if p.record == "" {
			p.follows(&ev, &last)
		}
		out <- ev
	}
	if done.Err != nil || done.Report == nil || !done.Report.Run.Complete {
		out <- done
		return
	}
	log := func(line string) { out <- engine.Event{Kind: engine.EventLog, Time: time.Now(), Log: line} }
	began, left := time.Now(), p.estimate(&last)
	events := func(e probe.Event) {
		if line := qualityEventLine(e); line != "" {
			log(line)
		}
		if pr := PhaseProgress(e, last, time.Since(began), left); pr != nil {
			out <- engine.Event{Kind: engine.EventProgress, Time: time.Now(), Progress: pr}
		}
	}
	rep := *done.Report
	if p.record != "" {
		err = p.recordAfter(ctx, client, t.Model, rep.Server, rep.Plan, events, log)
	} else {
		log(fmt.Sprintf("quality: comparing with the reference of %s (%s)", p.q.Reference.Model, filepath.Base(p.q.File)))
		rep, err = p.q.Run(ctx, s, rep, p.prior, events, func(r engine.Report) error {
			out <- engine.Event{Kind: engine.EventResult, Time: time.Now(), Report: &r}
			return nil
		})
	}
	out <- engine.Event{Kind: engine.EventDone, Time: time.Now(), Report: &rep, Err: err}
}

// follows makes a cell's event say that a comparison follows the cells:
// its report is not complete (runs.Unfinished: the last cell completes no
// run whose phase is to follow), and its ETA includes the phase's.
func (p *qualityPhase) follows(ev *engine.Event, last *engine.Report) {
	if ev.Report != nil {
		runs.Unfinished(ev.Report)
		*last = *ev.Report
	}
	if ev.Progress != nil && ev.Progress.Load == nil {
		pr := *ev.Progress
		pr.ETA += p.q.Estimate(p.prior, runs.RatesOf(*last))
		ev.Progress = &pr
	}
}

// recordAfter records a reference of the server at the plan's decode
// contexts into p.record, saved after every context, with the needle task
// (probe.RecordReference, what `quality --save-reference` records), so
// that later comparisons pair their trials with it.
func (p *qualityPhase) recordAfter(ctx context.Context, client *openai.Client, model string, eng engine.ServerInfo, plan engine.Plan, events func(probe.Event), log func(string)) error {
	s, err := probe.Connect(ctx, client, model)
	if err != nil {
		return err
	}
	save := func(r quality.Reference) error {
		data, err := json.Marshal(r)
		if err == nil {
			err = report.WriteFileAtomic(p.record, data)
		}
		return err
	}
	log("quality: recording a reference into " + filepath.Base(p.record))
	o := probe.Options{Contexts: plan.DecodeContexts, Events: events}
	ref, err := probe.RecordReference(ctx, s, quality.Header{Server: s.Describe(ctx, eng)}, o, probe.RunOptions{NeedleTrials: probe.DefaultNeedleTrials, Text: quality.CleanText(quality.Text())}, save)
	if err == nil {
		log(fmt.Sprintf("quality: reference saved: %d probes at %s, top %d logprobs%s", len(ref.Probes), engine.ContextLabels(ref.Contexts), ref.K, simulatedSuffix(eng)))
	}
	return err
}

// simulatedSuffix is " (simulated)" for the simulator's figures.
func simulatedSuffix(e engine.ServerInfo) string {
	if e.Simulated {
		return " (simulated)"
	}
	return ""
}

// PhaseProgress is the Run screen's progress during the phase: the cells
// done, the phase's step, the time since the cells' last progress plus
// the phase's, and what is left of its estimate (left, at its start); nil
// for events that are no step.
func PhaseProgress(e probe.Event, cells engine.Report, since, left time.Duration) *engine.Progress {
	switch e.Phase {
	case probe.PhaseRecord, probe.PhaseCompare, probe.PhaseNeedle, probe.PhaseTasks:
	default:
		return nil
	}
	n := len(cells.Results)
	elapsed := since
	if !cells.Run.StartedAt.IsZero() {
		elapsed = time.Since(cells.Run.StartedAt)
	}
	return &engine.Progress{CellIndex: n, CellCount: n, Elapsed: elapsed, ETA: max(0, left-since),
		Quality: &engine.QualityProgress{Step: string(e.Phase), ContextTokens: e.ContextTokens, Done: e.Done, Of: e.Of}}
}

// qualityEventLine is the Events log's line of a quality phase's
// progress: one per context and step, and what changes how it measures
// (probe.Event.Line); "" for the rest.
func qualityEventLine(e probe.Event) string {
	if line := e.Line(); line != "" {
		return "quality: " + line
	}
	return ""
}

// qualityNotice is the banner of a run that stopped on its quality phase,
// in the Quality field's words; ok is false for any other stop.
func qualityNotice(err error, show func(string)) (app.Notice, bool) {
	var te *quality.TokenizerError
	var nl *probe.NoLogprobsError
	switch {
	case errors.As(err, &te):
		return app.Notice{Message: "Quality: the reference's model and the server's use different tokenizers, so nothing compares.",
			Action: "Choose a reference recorded with this model (or a quantization of it), or set Quality to Record a reference.",
			Button: "Open Matrix screen", OnPress: func() { show(app.TabMatrix) }, Detail: err.Error()}, true
	case errors.As(err, &nl):
		return app.Notice{Message: "Quality: the server gives no logprobs, so its drift can't be measured or a reference recorded; the matrix's cells are kept.",
			Action: "Serve logprobs (vLLM: --max-logprobs 20), then run again.", Detail: err.Error()}, true
	}
	return app.Notice{}, false
}
