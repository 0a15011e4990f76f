package cli

import (
	"flag"
	"time"

	"speedmatrix/engine"
)

// sloFlags are the latency objective's options: one home for them, for
// every command that judges against an SLO.
type sloFlags struct {
	ttft, itl  time.Duration
	percentile int
}

// add defines the SLO flags on fs.
func (s *sloFlags) add(fs *flag.FlagSet) {
	fs.DurationVar(&s.ttft, "slo-ttft", 0, "SLO: time to first token at most this, e.g. 2s (0: no bound)")
	fs.DurationVar(&s.itl, "slo-itl", 0, "SLO: time between tokens at most this, e.g. 50ms (0: no bound)")
	fs.IntVar(&s.percentile, "slo-percentile", engine.DefaultSLOPercentile, "SLO: the percentile that must meet the bounds: 50, 90 or 99")
}

// slo is the SLO the flags set; none (the zero SLO) without a bound.
func (s sloFlags) slo() engine.SLO {
	if s.ttft == 0 && s.itl == 0 && s.percentile == engine.DefaultSLOPercentile {
		return engine.SLO{}
	}
	return engine.SLO{TTFT: s.ttft, ITL: s.itl, Percentile: s.percentile}
}
