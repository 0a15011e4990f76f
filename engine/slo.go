package engine

import (
	"fmt"
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
	// UserTokS is the speed each request must still get, in tok/s (its
	// median), for the Pareto chart's answer (report.ParetoUserTokS); 0
	// leaves it to the ITL bound. It judges no cell: On, Judge and the
	// SLO's tables read TTFT and ITL only.
	UserTokS float64 `json:"user_tok_s,omitempty"`
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

// At is the percentile p (50, 90 or 99; anything else reads as 99) of a
// figure, as an SLO and the tables that show it read it.
func (pct Percentiles) At(p int) float64 {
	switch p {
	case 50:
		return pct.P50
	case 90:
		return pct.P90
	default:
		return pct.P99
	}
}

// Judge checks a cell against the SLO; ok is false when the SLO is off,
// the cell is not a Valid decode cell, or it kept no percentile of a
// figure the SLO bounds (a file made without them): nothing to judge, where
// a 0 would pass any bound.
func (s SLO) Judge(r Result) (c SLOCheck, ok bool) {
	if !s.On() || r.Phase != PhaseDecode || !r.Measured() {
		return SLOCheck{}, false
	}
	c.TTFTMs, c.ITLMs = r.TTFTPct.At(s.At()), r.ITLPct.At(s.At())
	if (s.TTFT > 0 && c.TTFTMs <= 0) || (s.ITL > 0 && c.ITLMs <= 0) {
		return SLOCheck{}, false
	}
	c.Pass = true
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

// The SLO's settings a PlanError can be about, so that each front end names
// its own: --slo-ttft in the CLI, a field of the app.
const (
	FieldSLOTTFT       PlanField = "slo_ttft"
	FieldSLOITL        PlanField = "slo_itl"
	FieldSLOPercentile PlanField = "slo_percentile"
	FieldSLOUserTokS   PlanField = "slo_user_tok_s"
)

// maxUserTokS is the most tok/s an SLO may ask each request for: no
// server streams one request a million tokens a second.
const maxUserTokS = 1e6

// SLOPercentiles are the percentiles an SLO can apply to: the ones every
// cell keeps (Percentiles).
var SLOPercentiles = []int{50, 90, 99}

// maxSLOBound is the loosest bound an SLO may set: no request waits an
// hour for a token, so a bound past it bounds nothing.
const maxSLOBound = time.Hour

// Check says what is wrong with s alone, as ValidatePlan would: a
// *PlanError about its fields, or nil. Judging a saved report again
// against another SLO checks it with this.
func (s SLO) Check() error {
	if bad := sloProblems(s); len(bad) > 0 {
		return &PlanError{Problems: bad}
	}
	return nil
}

// sloProblems is what is wrong with an SLO, for ValidatePlan and for
// report files (CheckPlanBounds): a negative bound, a bound past
// maxSLOBound, or a percentile the cells don't keep.
func sloProblems(s SLO) []PlanProblem {
	var bad []PlanProblem
	for _, b := range []struct {
		field PlanField
		bound time.Duration
	}{{FieldSLOTTFT, s.TTFT}, {FieldSLOITL, s.ITL}} {
		switch {
		case b.bound < 0:
			bad = append(bad, PlanProblem{b.field, fmt.Sprintf("%s is negative: use a positive time, e.g. 2s, or 0 for no bound", b.bound)})
		case b.bound > maxSLOBound:
			bad = append(bad, PlanProblem{b.field, fmt.Sprintf("%s is longer than any request waits for a token: use at most 1 hour", b.bound)})
		}
	}
	if !(s.UserTokS >= 0 && s.UserTokS <= maxUserTokS) {
		bad = append(bad, PlanProblem{FieldSLOUserTokS, fmt.Sprintf("%g is not a speed each request can get: give tok/s between 0 (no bound) and 1,000,000, e.g. 50", s.UserTokS)})
	}
	if s.Percentile != 0 && !slices.Contains(SLOPercentiles, s.Percentile) {
		bad = append(bad, PlanProblem{FieldSLOPercentile, fmt.Sprintf("%d is not a percentile reports keep: use 50, 90 or 99", s.Percentile)})
	}
	return bad
}
