package engine

import (
	"slices"
	"time"
)

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

// SLOCheck is how one Valid decode cell fares against an SLO: its TTFT and
// ITL at the SLO's percentile, and each one's margin, the share of its
// bound left over (0.25: 25 % under the bound; negative: over it). A bound
// the SLO does not set has margin 0 and never fails.
type SLOCheck struct {
	Pass       bool
	TTFTMs     float64
	ITLMs      float64
	TTFTMargin float64
	ITLMargin  float64
}

// at is the percentile p of a figure's percentiles.
func at(pct Percentiles, p int) float64 {
	switch p {
	case 50:
		return pct.P50
	case 90:
		return pct.P90
	default:
		return pct.P99
	}
}

// Judge checks a cell against the SLO; ok is false when the SLO is off or
// the cell is not a Valid decode cell (nothing to judge).
func (s SLO) Judge(r Result) (c SLOCheck, ok bool) {
	if !s.On() || r.Phase != PhaseDecode || !r.Measured() {
		return SLOCheck{}, false
	}
	c.Pass = true
	c.TTFTMs, c.ITLMs = at(r.TTFTPct, s.At()), at(r.ITLPct, s.At())
	if s.TTFT > 0 {
		bound := float64(s.TTFT) / float64(time.Millisecond)
		c.TTFTMargin = (bound - c.TTFTMs) / bound
		c.Pass = c.Pass && c.TTFTMs <= bound
	}
	if s.ITL > 0 {
		bound := float64(s.ITL) / float64(time.Millisecond)
		c.ITLMargin = (bound - c.ITLMs) / bound
		c.Pass = c.Pass && c.ITLMs <= bound
	}
	return c, true
}

// MostRequests is, at one decode context, the cell with the most
// simultaneous requests such that it and every judged cell with fewer meet
// the SLO: "up to 32 simultaneous requests meet it". ok is false when the
// SLO is off or no cell at that context meets it (the cell with the fewest
// requests misses, or none was judged).
func (s SLO) MostRequests(rs []Result, contextTokens int) (best Result, ok bool) {
	var cells []Result
	for _, r := range rs {
		if r.Phase == PhaseDecode && r.ContextTokens == contextTokens {
			if _, judged := s.Judge(r); judged {
				cells = append(cells, r)
			}
		}
	}
	slices.SortFunc(cells, func(a, b Result) int { return a.Concurrency - b.Concurrency })
	for _, r := range cells {
		if c, _ := s.Judge(r); !c.Pass {
			break
		}
		best, ok = r, true
	}
	return best, ok
}
