package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/sweep"
)

// qualityTimeout bounds one request of the quality phase where the
// target sets no first-token timeout: a greedy continuation after a long
// prompt is one non-streaming request, its prefill included.
const qualityTimeout = 5 * time.Minute

// qualityDue reports whether configuration i's quality phase is still to
// run: the sweep has one and i's is not begun or was interrupted.
func qualityDue(s *sweep.Sweep, i int) bool {
	if s.Quality == nil {
		return false
	}
	q := s.Configs[i].Quality
	return q == nil || q.State == sweep.QualityPending || q.State == sweep.QualityPartial || (q.AwaitsReference && s.Quality.ReferenceSHA256 != "")
}

// SaveError is a quality phase whose results could not be saved: the sweep
// stops, since going on would measure what it can't keep.
type SaveError struct{ Err error }

func (e *SaveError) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *SaveError) Unwrap() error { return e.Err }

// qualityPhase runs configuration i's quality phase against target, after
// its complete run rep saved in dir: the baseline is recorded as the
// reference (ReferenceFile), every other configuration compared with it
// (probe.Run, the one quality phase). Its report.json gains the quality
// section, saved after every context. A server that gives no logprobs, a
// reference that was not recorded or another tokenizer leave its quality
// "not measured" with the reason, and nil is returned: the sweep goes on.
// It returns ctx's error when interrupted (resumable), a *SaveError when
// nothing could be saved, or why the phase failed otherwise.
func (r *Runner) qualityPhase(ctx context.Context, s *sweep.Sweep, i int, target measure.Subject, rep engine.Report, dir string) error {
	c := &s.Configs[i]
	notMeasured := func(reason string) error {
		c.Quality = &sweep.ConfigQuality{State: sweep.QualityNotMeasured, Reason: reason}
		r.note(s, i, "quality not measured: "+reason)
		return nil
	}
	if !c.Baseline && s.Quality.ReferenceSHA256 == "" {
		notMeasured("no reference: the baseline's was not recorded (a resume that records it measures this one)")
		c.Quality.AwaitsReference = true
		return nil
	}
	client := openai.New(target.BaseURL, target.APIKey)
	client.RequestTimeout = max(target.RequestTimeout, cmp.Or(target.FirstTokenTimeout, qualityTimeout))
	events := func(e probe.Event) { r.qualityEvent(s, i, e) }
	if c.Baseline {
		srv, err := probe.Connect(ctx, client, target.Model)
		if err != nil {
			return err
		}
		return r.recordReference(ctx, s, i, srv, srv.Describe(ctx, rep.Server), rep, dir, events, notMeasured)
	}
	ref, sum, err := LoadReference(r.Dir, *s)
	if err != nil {
		return err
	}
	budget, _ := quality.ParseBudget(s.Quality.Budget) // checked where the sweep began or was read
	phase := runs.Quality{Reference: ref, File: sweep.ReferenceFile, SHA256: sum, NeedleTrials: s.Quality.NeedleTrials, Budget: budget}
	srv, err := phase.Connect(ctx, client, target.Model)
	var te *quality.TokenizerError
	switch {
	case errors.As(err, &te):
		return notMeasured(oneLine(err))
	case err != nil:
		return err
	}
	rep.Server = srv.Describe(ctx, rep.Server)
	return r.compare(ctx, s, i, phase, srv, rep, dir, events, notMeasured)
}

// compare runs configuration i's quality phase against the baseline's
// reference (runs.Quality, the one phase a run adds after its cells),
// going on from its report's quality section when its phase was
// interrupted, and saves its report after every context.
func (r *Runner) compare(ctx context.Context, s *sweep.Sweep, i int, phase runs.Quality, srv probe.Server, rep engine.Report, dir string,
	events func(probe.Event), notMeasured func(string) error) error {
	c := &s.Configs[i]
	prior, err := phase.Prior(&rep)
	if err != nil {
		prior = nil // another reference's phase: begun anew
	}
	r.note(s, i, "quality: comparing with the baseline's reference")
	var saveErr error
	keep := func(rep engine.Report) error {
		if rep.Quality != nil {
			c.Quality = &sweep.ConfigQuality{State: sweep.QualityPartial, Contexts: sweep.DriftsOf(*rep.Quality, phase.Budget)}
		}
		if saveErr = r.saveReport(ctx, dir, rep, false); saveErr == nil {
			saveErr = sweep.Save(r.Dir, *s)
		}
		return saveErr
	}
	out, err := phase.Run(ctx, srv, rep, prior, events, keep)
	if errors.Is(err, probe.ErrPriorReference) {
		out, err = phase.Run(ctx, srv, rep, nil, events, keep)
	}
	var nl *probe.NoLogprobsError
	switch {
	case saveErr != nil:
		return &SaveError{saveErr}
	case err != nil && !errors.As(err, &nl):
		return err
	}
	// The phase ended (without logprobs, its needle task ran): its
	// report, complete again, keeps it.
	if serr := r.saveReport(ctx, dir, out, true); serr != nil {
		return &SaveError{serr}
	}
	if nl != nil {
		return notMeasured(oneLine(err))
	}
	c.Quality = &sweep.ConfigQuality{State: sweep.QualityMeasured, Contexts: sweep.DriftsOf(*out.Quality, phase.Budget)}
	return nil
}

// recordReference records the baseline's quality reference into
// ReferenceFile, saved after every context, then the needle task into it,
// and records its digest in s once whole. The baseline's report.json gains
// the reference's noise floor and needle runs as its quality section.
func (r *Runner) recordReference(ctx context.Context, s *sweep.Sweep, i int, srv probe.Server, eng engine.ServerInfo, rep engine.Report, dir string,
	events func(probe.Event), notMeasured func(string) error) error {
	path := filepath.Join(r.Dir, sweep.ReferenceFile)
	var data []byte
	var saveErr error
	save := func(ref quality.Reference) error {
		if data, saveErr = json.Marshal(ref); saveErr == nil {
			saveErr = report.WriteFileAtomic(path, data)
		}
		return saveErr
	}
	s.Quality.ReferenceSHA256 = ""
	s.Configs[i].Quality = &sweep.ConfigQuality{State: sweep.QualityPartial, Reference: true}
	r.note(s, i, "quality: recording the baseline as the reference")
	head := quality.Header{Server: eng}
	if cfg, err := Apply(r.Server, r.Base, s.Configs[i]); err == nil { // it launched: it applies
		head.Settings = cfg.OutputSettings()
	}
	o := probe.Options{Contexts: decodeContexts(s.Plan, rep), Probes: s.Quality.Probes, ContinuationTokens: s.Quality.ContinuationTokens, Events: events}
	ref, err := probe.RecordReference(ctx, srv, head, o, probe.RunOptions{NeedleTrials: s.Quality.NeedleTrials}, save)
	var nl *probe.NoLogprobsError
	switch {
	case saveErr != nil:
		return &SaveError{fmt.Errorf("write %s: %w", path, saveErr)}
	case errors.As(err, &nl):
		return notMeasured(oneLine(err) + "; no configuration's drift can be measured")
	case err != nil:
		return err
	}
	if err := save(ref); err != nil {
		return &SaveError{fmt.Errorf("write %s: %w", path, err)}
	}
	s.Quality.ReferenceSHA256 = sweep.Digest(data)
	floor, err := quality.Floor(ref, ref.K, quality.Bootstrap{Seed: ref.Seed})
	if err != nil {
		return err
	}
	rep.Quality = &quality.Report{Reference: ref.Header, Server: quality.ServerInfo{Model: srv.Model, Tokenizer: ref.Tokenizer, Server: eng},
		NoiseFloor: floor, Needle: ref.Needle, Budget: s.Quality.Budget, ReferenceFile: sweep.ReferenceFile, ReferenceSHA256: s.Quality.ReferenceSHA256}
	if err := r.saveReport(ctx, dir, rep, true); err != nil {
		return &SaveError{err}
	}
	s.Configs[i].Quality = &sweep.ConfigQuality{State: sweep.QualityMeasured, Reference: true}
	return nil
}

// decodeContexts is where the reference is probed: the decode contexts
// the baseline's run measured (fitted to its server), else the plan's.
func decodeContexts(plan engine.Plan, rep engine.Report) []int {
	var ctxs []int
	for _, res := range rep.Results {
		if res.Phase == engine.PhaseDecode {
			ctxs = append(ctxs, res.ContextTokens)
		}
	}
	if len(ctxs) == 0 {
		ctxs = slices.Clone(plan.DecodeContexts)
	}
	slices.Sort(ctxs)
	return slices.Compact(ctxs)
}

// saveReport writes a configuration's report with its quality section
// (SaveReport, or report.Save); final is its last save, at the phase's
// end.
func (r *Runner) saveReport(ctx context.Context, dir string, rep engine.Report, final bool) error {
	if r.SaveReport != nil {
		return r.SaveReport(ctx, dir, rep, final)
	}
	return report.Save(dir, rep)
}

// qualityEvent tells Progress of a quality phase's steps (a context
// recorded or compared, a needle context) and of what changes its
// figures: a cap below K, a context skipped.
func (r *Runner) qualityEvent(s *sweep.Sweep, i int, e probe.Event) {
	switch e.Phase {
	case probe.PhaseRecord, probe.PhaseContext, probe.PhaseCap, probe.PhaseSkip, probe.PhaseNeedle:
		if line := e.Line(); line != "" {
			r.note(s, i, "quality: "+line)
		}
	}
}

// note tells Progress a line about configuration i.
func (r *Runner) note(s *sweep.Sweep, i int, line string) {
	if r.Progress != nil {
		r.Progress(*s, i, line)
	}
}
