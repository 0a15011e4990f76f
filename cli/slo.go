package cli

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"speedmatrix/engine"
)

// sloFlags are the SLO options that `run` and `report` share.
type sloFlags struct {
	ttft, itl  time.Duration
	percentile int
	userTokS   float64
}

// register adds --slo-ttft, --slo-itl and --slo-percentile to fs.
func (s *sloFlags) register(fs *flag.FlagSet, what string) {
	fs.DurationVar(&s.ttft, "slo-ttft", 0, what+" against a time-to-first-token objective, e.g. 2s (0: no bound)")
	fs.DurationVar(&s.itl, "slo-itl", 0, what+" against a time-between-tokens objective, e.g. 50ms (0: no bound)")
	fs.IntVar(&s.percentile, "slo-percentile", engine.DefaultSLOPercentile, "the percentile the SLO bounds: 50, 90 or 99")
	fs.Float64Var(&s.userTokS, "slo-user-tok-s", 0, "the tok/s each request must still get, e.g. 50: the Pareto chart's answer names the most throughput at that speed (0: 1,000 ÷ --slo-itl in ms)")
}

// sloFlagNames are the flags register adds.
var sloFlagNames = []string{"slo-ttft", "slo-itl", "slo-percentile", "slo-user-tok-s"}

// anySet reports whether any SLO flag was given.
func (s sloFlags) anySet(set map[string]bool) bool {
	for _, n := range sloFlagNames {
		if set[n] {
			return true
		}
	}
	return false
}

// slo is the SLO the flags set, checked (engine.SLO.Check) and said in
// flags; cmd prefixes the error ("run", "report").
func (s sloFlags) slo(cmd string, set map[string]bool) (engine.SLO, error) {
	out := engine.SLO{TTFT: s.ttft, ITL: s.itl, Percentile: s.percentile, UserTokS: s.userTokS}
	var plan *engine.PlanError
	if err := out.Check(); errors.As(err, &plan) {
		return out, errors.New(cmd + ": " + inFlags(plan.Problems))
	}
	if set["slo-percentile"] && !out.On() {
		return out, fmt.Errorf("%s: --slo-percentile goes with --slo-ttft or --slo-itl: give the bound it applies to, e.g. --slo-ttft 2s", cmd)
	}
	if !out.On() {
		return engine.SLO{UserTokS: out.UserTokS}, nil
	}
	return out, nil
}
