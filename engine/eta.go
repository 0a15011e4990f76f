package engine

import (
	"math"
	"time"
)

// etaModel estimates how long the rest of a run takes from what the cells
// measured so far: decode cells take the duration plus their observed
// warm-up, prefill cells scale with context as the last one measured.
type etaModel struct {
	duration   time.Duration
	maxOutput  int
	setup      setup
	overheadS  float64 // mean warm-up and teardown of decode cells
	overheadN  int
	prefillCtx int     // context of the last prefill measured
	prefillS   float64 // its duration
}

func newETAModel(plan Plan, s setup) etaModel {
	return etaModel{duration: plan.Duration, maxOutput: plan.MaxOutputTokens, setup: s}
}

// observe learns from a finished cell.
func (e *etaModel) observe(r Result) {
	took := r.FinishedAt.Sub(r.StartedAt).Seconds()
	switch {
	case r.Phase == PhasePrefill && r.Status == StatusValid:
		e.prefillCtx, e.prefillS = r.ContextTokens, took
	case r.Phase == PhaseDecode && r.Status == StatusValid:
		e.overheadS = (e.overheadS*float64(e.overheadN) + max(0, took-e.duration.Seconds())) / float64(e.overheadN+1)
		e.overheadN++
	}
}

func (e *etaModel) estimate(c Cell) time.Duration {
	if c.Phase == PhaseDecode {
		if e.setup.overCapacity(c.ContextTokens, c.Concurrency, e.maxOutput) {
			return 0
		}
		over := e.overheadS
		if e.overheadN == 0 {
			over = 1 + 0.1*e.duration.Seconds()
		}
		return e.duration + seconds(over)
	}
	if e.prefillCtx == 0 {
		return seconds(1 + float64(c.ContextTokens)/20000)
	}
	// Attention makes long prompts cost more than linearly.
	return seconds(e.prefillS * math.Pow(float64(c.ContextTokens)/float64(e.prefillCtx), 1.5))
}

// remaining is the estimated time left: the cells from the current one on,
// minus what the current one has already taken.
func (e *etaModel) remaining(cells []Cell, inCurrent time.Duration) time.Duration {
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
