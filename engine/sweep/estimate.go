package sweep

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
)

// PriorStartupS is the start-up a sweep's estimate assumes until one has
// been measured: vLLM loads weights, profiles memory and captures CUDA
// graphs in one to a few minutes for the models our users sweep.
const PriorStartupS = 120

// maxEstimateS bounds an estimate, whatever a sweep.json says its
// configurations took: a year.
const maxEstimateS = 365 * 24 * 3600

// StartupBasis is where a Prior's start-up comes from.
type StartupBasis string

// The bases of a Prior's start-up.
const (
	// StartupAssumed is PriorStartupS, vLLM's usual: nothing better is known.
	StartupAssumed StartupBasis = ""
	// StartupStandIn is Speed Matrix's stand-in for vllm serve
	// (launch.StandIn), which starts in seconds: launch.StandInStartup.
	StartupStandIn StartupBasis = "stand-in"
	// StartupMeasured is the baseline's own server, timed as it last
	// started before the sweep (the app's Launch form).
	StartupMeasured StartupBasis = "measured"
)

// Prior is what a sweep's estimate assumes before its configurations have
// measured anything: how long one server takes to start, and why, and the
// servers' max model length when the baseline gives it, to which every
// run fits the plan's contexts. The zero Prior assumes vLLM's usual
// start-up and the plan as planned.
type Prior struct {
	StartupS    float64      `json:"startup_s,omitempty"`
	Startup     StartupBasis `json:"startup,omitempty"`
	MaxModelLen int          `json:"max_model_len,omitempty"`
}

// PriorFor is the prior of a sweep whose baseline is cfg: a stand-in
// starts in seconds; the max model length is cfg's, when it sets one. A
// front end that has timed cfg's server start (the app's Launch form) puts
// that in its place (StartupMeasured).
func PriorFor(cfg launch.ServerConfig) Prior {
	p := Prior{MaxModelLen: cfg.MaxModelLen}
	if launch.StandIn(cfg) {
		p.StartupS, p.Startup = launch.StandInStartup.Seconds(), StartupStandIn
	}
	return p
}

// problem says why p is not a prior a sweep writes ("" when it is): a
// sweep.json is data, and its figures are bounded where they enter. It
// names no string of the file's.
func (p Prior) problem() string {
	switch {
	case p.Startup != StartupAssumed && p.Startup != StartupStandIn && p.Startup != StartupMeasured:
		return "its estimate's prior has an unknown start-up basis"
	case !(p.StartupS >= 0 && p.StartupS <= 24*3600):
		return fmt.Sprintf("its estimate's prior has a start-up of %g s, outside 0–86400", p.StartupS)
	case p.MaxModelLen < 0 || p.MaxModelLen > engine.MaxContextTokens:
		return fmt.Sprintf("its estimate's prior has max model length %d, outside 0–%d", p.MaxModelLen, engine.MaxContextTokens)
	}
	return ""
}

// Estimate is how long the configurations not yet done take: each one's
// start-up (the mean of those measured, else the Prior's, else
// PriorStartupS) and its plan (the mean time of the runs done, else
// measure.Estimate of the plan fitted to its max model length when known),
// its quality phase included once one has been timed.
func (s Sweep) Estimate() time.Duration {
	startup, starts, measured, runs := 0.0, 0, 0.0, 0
	for _, c := range s.Configs {
		if c.StartupS > 0 {
			startup, starts = startup+c.StartupS, starts+1
		}
		if c.Status == StatusDone && c.MeasureS > 0 {
			// A run's quality phase, where the sweep has one, is part of
			// what each configuration takes.
			measured, runs = measured+c.MeasureS+c.QualityS, runs+1
		}
	}
	per := s.priorStartupS()
	if starts > 0 {
		per = startup / float64(starts)
	}
	var total float64
	for _, c := range s.Configs {
		if c.Settled() {
			continue
		}
		plan := s.planEstimate(c).Seconds()
		if runs > 0 {
			plan = measured / float64(runs)
		}
		total += per + plan
	}
	return time.Duration(math.Min(total, maxEstimateS) * float64(time.Second))
}

// priorStartupS is the start-up the Prior assumes.
func (s Sweep) priorStartupS() float64 {
	if s.Prior.StartupS > 0 {
		return s.Prior.StartupS
	}
	return PriorStartupS
}

// planEstimate is how long c's run of the plan takes before any run has
// been measured: measure.Estimate fitted to c's max model length (its own
// max_model_len setting, else the Prior's), or as planned when unknown.
func (s Sweep) planEstimate(c Config) time.Duration {
	return measure.Estimate(s.Plan, engine.Limits{MaxModelLen: s.maxModelLen(c)})
}

// maxModelLen is c's max model length, when its settings or the Prior say.
func (s Sweep) maxModelLen(c Config) int {
	for _, st := range c.Settings {
		if st.Key == "max_model_len" {
			if n, err := strconv.Atoi(st.Value); err == nil && n > 0 {
				return n
			}
			return 0
		}
	}
	return s.Prior.MaxModelLen
}

// EstimateBasis says what the estimate made before the sweep began
// (EstimateS) assumed: "start-ups of 2.0 s each, the stand-in's (Speed
// Matrix's simulator), and the plan fitted to max model length 8,192:
// 33 s per configuration".
func (s Sweep) EstimateBasis() string {
	var startup string
	switch s.Prior.Startup {
	case StartupStandIn:
		startup = "the stand-in's (Speed Matrix's simulator)"
	case StartupMeasured:
		startup = "as the baseline's server took to start before the sweep"
	default:
		startup = "vLLM's usual, assumed until one is measured"
	}
	base := Config{Name: BaselineName, Baseline: true}
	if len(s.Configs) > 0 {
		base = s.Configs[0]
	}
	plan := "the plan as planned, the servers' max model length unknown before they start"
	if n := s.maxModelLen(base); n > 0 {
		plan = "the plan fitted to max model length " + report.Int(n)
	}
	basis := fmt.Sprintf("start-ups of %s each, %s, and %s: %s per configuration", words(s.priorStartupS()), startup, plan, words(s.planEstimate(base).Seconds()))
	if s.Quality != nil {
		basis += ", its quality phase counted once the baseline's is timed"
	}
	return basis
}
