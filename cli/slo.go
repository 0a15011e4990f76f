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
}

// register adds --slo-ttft, --slo-itl and --slo-percentile to fs.
func (s *sloFlags) register(fs *flag.FlagSet, what string) {
	fs.DurationVar(&s.ttft, "slo-ttft", 0, what+" against a time-to-first-token objective, e.g. 2s (0: no bound)")
	fs.DurationVar(&s.itl, "slo-itl", 0, what+" against a time-between-tokens objective, e.g. 50ms (0: no bound)")
	fs.IntVar(&s.percentile, "slo-percentile", engine.DefaultSLOPercentile, "the percentile the SLO bounds: 50, 90 or 99")
}

// sloFlagNames are the flags register adds.
var sloFlagNames = []string{"slo-ttft", "slo-itl", "slo-percentile"}

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
	out := engine.SLO{TTFT: s.ttft, ITL: s.itl, Percentile: s.percentile}
	var plan *engine.PlanError
	if err := out.Check(); errors.As(err, &plan) {
		return out, errors.New(cmd + ": " + inFlags(plan.Problems))
	}
	if set["slo-percentile"] && !out.On() {
		return out, fmt.Errorf("%s: --slo-percentile goes with --slo-ttft or --slo-itl: give the bound it applies to, e.g. --slo-ttft 2s", cmd)
	}
	if !out.On() {
		return engine.SLO{}, nil
	}
	return out, nil
}
