package report

import (
	"fmt"
	"math"
	"slices"

	"speedmatrix/engine"
)

// ParetoPoint is one Valid decode cell on the Pareto chart: what each
// request gets (its median tok/s) against what the server delivers per
// GPU (total tok/s ÷ GPUs).
type ParetoPoint struct {
	Cell          engine.Result
	PerRequest    float64 // tok/s each request gets
	TotalPerGPU   float64 // total tok/s ÷ ParetoGPUs
	OnFrontier    bool    // no other cell of its context beats it on both
	Flagged       bool    // Valid with flags: drawn hollow
	Concurrency   int
	ContextTokens int
}

// ParetoGPUs is what the Pareto chart divides total tok/s by: the report's
// GPUs, 1 without any (a CPU server, or none detected).
func ParetoGPUs(r engine.Report) int { return max(1, len(r.Hardware.GPUs)) }

// ParetoPoints are the Valid decode cells by context (in context order),
// each context's cells by concurrency, with each context's frontier: the
// cells no other cell of the context beats on both axes.
func ParetoPoints(r engine.Report) [][]ParetoPoint {
	gpus := float64(ParetoGPUs(r))
	byCtx := map[int][]ParetoPoint{}
	var ctxs []int
	for _, res := range r.Results {
		if res.Phase != engine.PhaseDecode || !res.Measured() || !(res.PerRequestTokPerSec > 0) || !(res.TotalTokPerSec > 0) {
			continue
		}
		if _, ok := byCtx[res.ContextTokens]; !ok {
			ctxs = append(ctxs, res.ContextTokens)
		}
		byCtx[res.ContextTokens] = append(byCtx[res.ContextTokens], ParetoPoint{Cell: res, PerRequest: res.PerRequestTokPerSec,
			TotalPerGPU: res.TotalTokPerSec / gpus, Flagged: Marked(res), Concurrency: res.Concurrency, ContextTokens: res.ContextTokens})
	}
	slices.Sort(ctxs)
	out := make([][]ParetoPoint, 0, len(ctxs))
	for _, c := range ctxs {
		ps := byCtx[c]
		slices.SortFunc(ps, func(a, b ParetoPoint) int { return a.Concurrency - b.Concurrency })
		for i := range ps {
			ps[i].OnFrontier = !slices.ContainsFunc(ps, func(o ParetoPoint) bool {
				return o.PerRequest >= ps[i].PerRequest && o.TotalPerGPU >= ps[i].TotalPerGPU &&
					(o.PerRequest > ps[i].PerRequest || o.TotalPerGPU > ps[i].TotalPerGPU)
			})
		}
		out = append(out, ps)
	}
	return out
}

// ParetoUserTokS is the per-request speed the Pareto sentences hold each
// user to: 1,000 ÷ the plan's ITL bound in ms (a gap of 20 ms is 50 tok/s);
// 0 without an ITL bound.
func ParetoUserTokS(p engine.Plan) float64 {
	if p.SLO.ITL <= 0 {
		return 0
	}
	return 1000 / (float64(p.SLO.ITL) / 1e6)
}

// ParetoLines answer the Pareto chart in words, one line per context: the
// most total throughput while each user still gets the SLO's speed
// ("8K: the most total throughput while each user still gets ≥ 50 tok/s
// is 3,842 tok/s at 32 requests"), or why there is none; none without an
// ITL bound (ParetoNoBound).
func ParetoLines(r engine.Report) []string {
	points := ParetoPoints(r)
	if len(points) == 0 {
		return nil
	}
	user := ParetoUserTokS(r.Plan)
	if user <= 0 {
		return nil
	}
	perGPU := ""
	if n := ParetoGPUs(r); n > 1 {
		perGPU = fmt.Sprintf(" per GPU (÷ %d)", n)
	}
	var lines []string
	for _, ps := range points {
		name := ps[0].Cell.ContextName()
		best := -1
		for i, p := range ps {
			if p.PerRequest >= user && (best < 0 || p.TotalPerGPU > ps[best].TotalPerGPU) {
				best = i
			}
		}
		if best < 0 {
			f := slices.MaxFunc(ps, func(a, b ParetoPoint) int { return cmpFloat(a.PerRequest, b.PerRequest) })
			lines = append(lines, fmt.Sprintf("%s: no cell gives each user %s tok/s; the fastest per request is %s tok/s at %s",
				name, fixed1(user), fixed1(f.PerRequest), engine.Count(f.Concurrency, "request", "requests")))
			continue
		}
		b := ps[best]
		line := fmt.Sprintf("%s: the most total throughput%s while each user still gets ≥ %s tok/s is %s tok/s at %s (%s tok/s each)",
			name, perGPU, fixed1(user), Int(int(math.Round(b.TotalPerGPU))), engine.Count(b.Concurrency, "request", "requests"), fixed1(b.PerRequest))
		if b.Flagged {
			line += ", a flagged cell: see its caveat"
		}
		lines = append(lines, line)
	}
	return lines
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ParetoNoBound is the Pareto chart's note where the plan has no ITL bound.
const ParetoNoBound = "With an ITL SLO, each context's line here says the most throughput while each user still gets that speed."
