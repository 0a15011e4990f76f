package measure

import (
	"math"
	"speedmatrix/engine"
	"time"
)

// etaModel estimates how long the rest of a run takes from what the cells
// measured so far: decode cells take the duration plus their observed
// warm-up, prefill cells scale with context as the last one measured, per
// request (Plan.PrefillRepeatsAt).
type etaModel struct {
	duration   time.Duration
	maxOutput  int
	setup      setup
	overheadS  float64 // mean warm-up and teardown of decode cells
	overheadN  int
	prefillCtx int     // context of the last prefill measured
	prefillS   float64 // its duration per repeat

	// repeats is the plan, whose PrefillRepeatsAt is how many requests
	// each prefill cell takes.
	repeats engine.Plan
}

// The priors, before a run has measured a cell. A decode cell takes its
// window plus a warm-up and drain of about a tenth of it: a Standard run
// (30 s windows, 40 decode cells) took 22 min, a Quick one on the tiny
// simulator (2 s windows) 38 s. A prefill cell takes a fraction of a second
// plus the prompt at 20K tokens/s.
const (
	priorDecodeOverheadS     = 0.1
	priorDecodeOverheadShare = 0.1
	priorPrefillS            = 0.2
	priorPrefillTokPerS      = 20000
)

func newETAModel(plan engine.Plan, s setup) etaModel {
	return etaModel{duration: plan.Duration, maxOutput: plan.MaxOutputTokens, setup: s, repeats: plan}
}

// observe learns from a finished cell.
func (e *etaModel) observe(r engine.Result) {
	took := r.FinishedAt.Sub(r.StartedAt).Seconds()
	switch {
	case r.Phase == engine.PhasePrefill && r.Status == engine.StatusValid:
		e.prefillCtx, e.prefillS = r.ContextTokens, took/float64(max(1, r.PrefillRepeats))
	case r.Phase == engine.PhaseDecode && r.Status == engine.StatusValid:
		e.overheadS = (e.overheadS*float64(e.overheadN) + max(0, took-e.duration.Seconds())) / float64(e.overheadN+1)
		e.overheadN++
	}
}

func (e *etaModel) estimate(c engine.Cell) time.Duration {
	if c.Phase == engine.PhaseDecode {
		if e.setup.overCapacity(c.ContextTokens, c.Concurrency, e.maxOutput) {
			return 0
		}
		over := e.overheadS
		if e.overheadN == 0 {
			over = priorDecodeOverheadS + priorDecodeOverheadShare*e.duration.Seconds()
		}
		return e.duration + seconds(over)
	}
	repeats := float64(e.repeats.PrefillRepeatsAt(c.ContextTokens))
	if e.prefillCtx == 0 {
		return seconds(repeats * (priorPrefillS + float64(c.ContextTokens)/priorPrefillTokPerS))
	}
	// Attention makes long prompts cost more than linearly.
	return seconds(repeats * e.prefillS * math.Pow(float64(c.ContextTokens)/float64(e.prefillCtx), 1.5))
}

// remaining is the estimated time left: the cells from the current one on,
// minus what the current one has already taken.
func (e *etaModel) remaining(cells []engine.Cell, inCurrent time.Duration) time.Duration {
	var total time.Duration
	for i, c := range cells {
		est := e.estimate(c)
		if i == 0 {
			est = max(0, est-inCurrent)
		}
		total += est
	}
	return total
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Estimate is how long plan takes on a server with these limits before
// anything is measured. It is the run's own ETA at its start, so the
// estimate a screen shows before the run and the ETA during it are one
// model; the run's ETA then learns from the cells it measures.
func Estimate(plan engine.Plan, l engine.Limits) time.Duration {
	fitted := l.Fit(plan)
	s := setup{MaxModelLen: l.MaxModelLen, KVTokens: l.KVCacheTokens, MaxNumSeqs: l.MaxNumSeqs,
		Prefill: fitted.PrefillContexts, Decode: fitted.DecodeContexts}
	e := newETAModel(plan, s)
	return e.remaining(s.cells(plan), 0)
}
