package runner

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
)

// PriorStartupS is the start-up a sweep's estimate assumes until one has
// been measured: vLLM loads weights, profiles memory and captures CUDA
// graphs in one to a few minutes for the models our users sweep.
const PriorStartupS = 120

// PriorFor is the prior of a sweep whose baseline is cfg: a stand-in
// starts in seconds; the max model length is cfg's, when it sets one. A
// front end that has timed cfg's server start (the app's Launch form) puts
// that in its place (StartupMeasured).
func PriorFor(cfg launch.ServerConfig) sweep.Prior {
	p := sweep.Prior{MaxModelLen: cfg.MaxModelLen}
	if launch.StandIn(cfg) {
		p.StartupS, p.Startup = launch.StandInStartup.Seconds(), sweep.StartupStandIn
	}
	return p
}

// Estimate is how long the configurations of s not yet done take: each one's
// start-up (the mean of those measured, else the Prior's, else
// PriorStartupS) and its plan (the mean time of the runs done, else
// measure.Estimate of the plan fitted to its max model length when known),
// its quality phase included once one has been timed.
func Estimate(s sweep.Sweep) time.Duration {
	startup, starts, measured, runs := 0.0, 0, 0.0, 0
	for _, c := range s.Configs {
		if c.StartupS > 0 {
			startup, starts = startup+c.StartupS, starts+1
		}
		if c.Status == sweep.StatusDone && c.MeasureS > 0 {
			// A run's quality phase, where the sweep has one, is part of
			// what each configuration takes.
			measured, runs = measured+c.MeasureS+c.QualityS, runs+1
		}
	}
	per := priorStartupS(s)
	if starts > 0 {
		per = startup / float64(starts)
	}
	var total float64
	for _, c := range s.Configs {
		if c.Settled() {
			continue
		}
		plan := planEstimate(s, c).Seconds()
		if runs > 0 {
			plan = measured / float64(runs)
		}
		total += per + plan
	}
	return time.Duration(math.Min(total, sweep.MaxEstimateS) * float64(time.Second))
}

// priorStartupS is the start-up s's Prior assumes.
func priorStartupS(s sweep.Sweep) float64 {
	if s.Prior.StartupS > 0 {
		return s.Prior.StartupS
	}
	return PriorStartupS
}

// planEstimate is how long c's run of the plan takes before any run has
// been measured: measure.Estimate fitted to c's max model length (its own
// max_model_len setting, else the Prior's), or as planned when unknown.
func planEstimate(s sweep.Sweep, c sweep.Config) time.Duration {
	return measure.Estimate(s.Plan, engine.Limits{MaxModelLen: maxModelLen(s, c)})
}

// maxModelLen is c's max model length, when its settings or the Prior say.
func maxModelLen(s sweep.Sweep, c sweep.Config) int {
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

// EstimateBasis says what the estimate made before s began (EstimateS)
// assumed: "start-ups of 2.0 s each, the stand-in's (Speed
// Matrix's simulator), and the plan fitted to max model length 8,192:
// 33 s per configuration".
func EstimateBasis(s sweep.Sweep) string {
	var startup string
	switch s.Prior.Startup {
	case sweep.StartupStandIn:
		startup = "the stand-in's (Speed Matrix's simulator)"
	case sweep.StartupMeasured:
		startup = "as the baseline's server took to start before the sweep"
	default:
		startup = "vLLM's usual, assumed until one is measured"
	}
	base := sweep.Config{Name: sweep.BaselineName, Baseline: true}
	if len(s.Configs) > 0 {
		base = s.Configs[0]
	}
	plan := "the plan as planned, the servers' max model length unknown before they start"
	if n := maxModelLen(s, base); n > 0 {
		plan = "the plan fitted to max model length " + report.Int(n)
	}
	basis := fmt.Sprintf("start-ups of %s each, %s, and %s: %s per configuration", sweep.Words(priorStartupS(s)), startup, plan, sweep.Words(planEstimate(s, base).Seconds()))
	if s.Quality != nil {
		basis += ", its quality phase counted once the baseline's is timed"
	}
	return basis
}
