package measure

import (
	"math"
	"speedmatrix/engine"
	"time"
)

// etaModel estimates how long the rest of a run takes from what the cells
// measured so far: decode cells take their window plus their observed
// warm-up, prefill cells scale with context as the last one measured, per
// request (Plan.PrefillRepeatsAt). An adaptive window's length is learnt
// from the windows measured (window).
type etaModel struct {
	plan      engine.Plan // its duration, precision, output and prefill repeats
	setup     setup
	overheadS float64 // mean warm-up and teardown of decode cells
	overheadN int
	// windowsS are the windows measured so far by concurrency: an adaptive
	// window's length depends on how noisy the figures are, which depends
	// most on how many streams share the server.
	windowsS   map[int][]float64
	prefillCtx int     // context of the last prefill measured
	prefillS   float64 // its duration per repeat
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
	// PriorPrefillTokPerS is also the quality phase's estimate's prior
	// (runs.Quality.Estimate): one home for the guess.
	PriorPrefillTokPerS = 20000
	// priorAdaptiveShare: an adaptive window is expected to take a third
	// of the plan's duration until one is measured (the Standard plan's
	// cells on the simulator's reference profile took 5–30 s, about 8 s on
	// average, of 30 s).
	priorAdaptiveShare = 3
)

func newETAModel(plan engine.Plan, s setup) etaModel {
	return etaModel{plan: plan, setup: s, windowsS: map[int][]float64{}}
}

// observe learns from a finished cell.
func (e *etaModel) observe(r engine.Result) {
	took := r.FinishedAt.Sub(r.StartedAt).Seconds()
	switch {
	case r.Phase == engine.PhasePrefill && r.Status == engine.StatusValid:
		e.prefillCtx, e.prefillS = r.ContextTokens, took/float64(max(1, r.PrefillRepeats))
	case r.Phase == engine.PhaseDecode && r.Status == engine.StatusValid:
		e.overheadS = (e.overheadS*float64(e.overheadN) + max(0, took-r.MeasuredS)) / float64(e.overheadN+1)
		e.overheadN++
		e.windowsS[r.Concurrency] = append(e.windowsS[r.Concurrency], r.MeasuredS)
	}
}

func (e *etaModel) estimate(c engine.Cell) time.Duration {
	if c.Phase == engine.PhaseDecode {
		if e.setup.overCapacity(c.ContextTokens, c.Concurrency, e.plan.MaxOutputTokens) {
			return 0
		}
		over := e.overheadS
		if e.overheadN == 0 {
			over = priorDecodeOverheadS + priorDecodeOverheadShare*e.plan.Duration.Seconds()
		}
		return e.window(c.Concurrency) + seconds(over)
	}
	repeats := float64(e.plan.PrefillRepeatsAt(c.ContextTokens))
	if e.prefillCtx == 0 {
		return seconds(repeats * (priorPrefillS + float64(c.ContextTokens)/PriorPrefillTokPerS))
	}
	// Attention makes long prompts cost more than linearly.
	return seconds(repeats * e.prefillS * math.Pow(float64(c.ContextTokens)/float64(e.prefillCtx), 1.5))
}

// window is the window a decode cell at concurrency n is expected to take:
// the plan's duration for a fixed window; for an adaptive one, the mean of
// the windows measured at n, else of all measured, else the prior (a third
// of the duration, at least the minimum window).
func (e *etaModel) window(n int) time.Duration {
	if !e.plan.Adaptive() {
		return e.plan.Duration
	}
	w := e.windowsS[n]
	if len(w) == 0 {
		for _, ws := range e.windowsS {
			w = append(w, ws...)
		}
	}
	if len(w) == 0 {
		return min(e.plan.Duration, max(engine.MinAdaptiveWindow, e.plan.Duration/priorAdaptiveShare))
	}
	var sum float64
	for _, s := range w {
		sum += s
	}
	return min(e.plan.Duration, seconds(sum/float64(len(w))))
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

// seconds is s seconds as a Duration, saturated (engine.DurationOf).
func seconds(s float64) time.Duration { return engine.DurationOf(s) }

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
