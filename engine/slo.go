package engine

import "time"

// SLO is a latency objective that users' requests must meet: TTFT and ITL
// at a percentile stay within their bounds. A zero bound is no bound; an SLO
// with neither bound is off.
type SLO struct {
	TTFT time.Duration `json:"ttft_ns,omitempty"`
	ITL  time.Duration `json:"itl_ns,omitempty"`
	// Percentile is which percentile must meet the bounds: 50, 90 or 99
	// (0: DefaultSLOPercentile).
	Percentile int `json:"percentile,omitempty"`
}

// DefaultSLOPercentile is the percentile an SLO applies to unless set.
const DefaultSLOPercentile = 99

// On reports whether the SLO bounds anything.
func (s SLO) On() bool { return s.TTFT > 0 || s.ITL > 0 }

// At is the percentile the SLO applies to.
func (s SLO) At() int {
	if s.Percentile == 0 {
		return DefaultSLOPercentile
	}
	return s.Percentile
}
