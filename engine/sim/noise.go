package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Noise is how a profile's step times vary around its performance model, as
// a real server's do: no two seconds of a GPU serve exactly the same number
// of tokens, and a benchmark that says how precise its figure is needs a
// simulator whose figures are not exact either. Each step's modelled time is
// multiplied by a factor whose log is a slow drift plus a per-step jitter,
// and rare hiccups add time to a step. The noise is mean-preserving: the
// factor has mean 1 and the step's work is shortened by the hiccups' share
// of time (1 + HiccupsPerS·HiccupS), so over a long window the rates of the
// performance model, fitted to the reference reports, still hold.
//
// The zero value is no noise: every step takes exactly its modelled time,
// as tests that assert exact figures need. The draws come from the server's
// seed (Options.Seed): the same profile and seed give the same run in
// virtual time. METHODOLOGY.md ("The simulator's noise") gives the reasons
// for the built-in profiles' magnitudes.
type Noise struct {
	// StepJitter is the standard deviation of the log of each step's own
	// time factor, drawn afresh every step: kernel launch timing and the
	// CPU side of the engine's scheduler loop (0.03: about ±3 % a step).
	StepJitter float64
	// Drift is the standard deviation of the log of a time factor that
	// consecutive steps share and that wanders slowly: GPU clocks following
	// temperature and the power limit.
	Drift float64
	// DriftTimeS is Drift's correlation time in model seconds of step
	// time (idle time does not count): steps this far apart are
	// correlated by 1/e. Needed when Drift is set.
	DriftTimeS float64
	// HiccupsPerS is the mean rate of hiccups per model second of step time
	// (a Poisson process): a stall of the engine's CPU thread when the OS
	// deschedules it or the API server's Python collects garbage.
	HiccupsPerS float64
	// HiccupS is a hiccup's mean extra time in model seconds (exponentially
	// distributed). Needed when HiccupsPerS is set.
	HiccupS float64
}

// On reports whether n makes step times vary at all.
func (n Noise) On() bool { return n != Noise{} }

// validate reports the first noise setting that makes no sense.
func (n Noise) validate() error {
	for _, v := range []float64{n.StepJitter, n.Drift, n.DriftTimeS, n.HiccupsPerS, n.HiccupS} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("noise %+v: every setting must be a finite number ≥ 0", n)
		}
	}
	switch {
	case n.Drift > 0 && n.DriftTimeS == 0:
		return fmt.Errorf("noise drift %g needs a correlation time (DriftTimeS)", n.Drift)
	case n.HiccupsPerS > 0 && n.HiccupS == 0:
		return fmt.Errorf("noise hiccups at %g/s need a duration (HiccupS)", n.HiccupsPerS)
	}
	return nil
}

// noiseState draws a profile's noise step by step; nil is no noise.
type noiseState struct {
	n     Noise
	rng   *rand.Rand
	drift float64 // the drift's current log factor
	lastS float64 // modelled work since the drift's last draw
	// toHiccupS is how much step time remains before the next hiccup.
	toHiccupS float64
}

// noiseStream keeps the noise's draws apart from the other seeded draws
// (faultState's) of the same seed.
const noiseStream = 0x9015e

// newNoiseState returns the noise of n drawn from seed, or nil when n is off.
func newNoiseState(n Noise, seed uint64) *noiseState {
	if !n.On() {
		return nil
	}
	ns := &noiseState{n: n, rng: rand.New(rand.NewPCG(seed, noiseStream))}
	ns.drift = n.Drift * ns.rng.NormFloat64() // start in the stationary regime
	if n.HiccupsPerS > 0 {
		ns.toHiccupS = ns.rng.ExpFloat64() / n.HiccupsPerS
	}
	return ns
}

// stretch returns the noisy duration of a step of modelled duration dS
// model seconds.
func (ns *noiseState) stretch(dS float64) float64 {
	if ns == nil || dS <= 0 {
		return dS
	}
	n := ns.n
	if n.Drift > 0 {
		// An Ornstein–Uhlenbeck process over the modelled work, sampled at
		// each step: its variance stays Drift² however uneven the steps.
		// Its clock is the work's, not the noisy time's, so that a slow
		// stretch is not sampled less often than a fast one (which would
		// bias the factor's mean below 1).
		rho := math.Exp(-ns.lastS / n.DriftTimeS)
		ns.drift = rho*ns.drift + math.Sqrt(1-rho*rho)*n.Drift*ns.rng.NormFloat64()
		ns.lastS = dS
	}
	logF := ns.drift - (n.Drift*n.Drift+n.StepJitter*n.StepJitter)/2
	if n.StepJitter > 0 {
		logF += n.StepJitter * ns.rng.NormFloat64()
	}
	outS := dS * math.Exp(logF) / (1 + n.HiccupsPerS*n.HiccupS)
	if n.HiccupsPerS > 0 {
		ns.toHiccupS -= outS
		for ns.toHiccupS <= 0 {
			outS += ns.rng.ExpFloat64() * n.HiccupS
			ns.toHiccupS += ns.rng.ExpFloat64() / n.HiccupsPerS
		}
	}
	return outS
}
