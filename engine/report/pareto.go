package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

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
	// Config is the configuration of a sweep the cell was measured with
	// (ParetoAcross); "" on a run's own chart.
	Config string
	// Run is the index of that configuration among ParetoAcross's runs.
	Run int
	// Line names the line the point is on ("8K", or "load test" for a
	// load test's rows), Level its point ("×32", "4 req/s") and At the
	// words for it ("32 requests", "4 req/s").
	Line, Level, At string
	order           float64 // along its line: concurrency, or the rate
}

// ParetoGPUs is what the Pareto chart divides total tok/s by: the report's
// GPUs, 1 without any (a CPU server, or none detected).
func ParetoGPUs(r engine.Report) int { return max(1, len(r.Hardware.GPUs)) }

// ParetoPoints are the Valid decode cells by context (in context order),
// each context's cells by concurrency, with each context's frontier: the
// cells no other cell of the context beats on both axes.
func ParetoPoints(r engine.Report) [][]ParetoPoint {
	return paretoByContext(paretoCells(r, "", 0))
}

// ParetoRun is one run on a chart of several: a sweep's configuration.
type ParetoRun struct {
	Config string
	Report engine.Report
}

// ParetoAcross are the Valid decode cells of several runs by context, each
// context's cells by run and then concurrency, with the frontier of each
// context over every run: a sweep's configurations on one chart, where a
// frontier cell says which configuration gets the most at that speed.
func ParetoAcross(runs []ParetoRun) [][]ParetoPoint {
	var all []ParetoPoint
	for i, run := range runs {
		all = append(all, paretoCells(run.Report, run.Config, i)...)
	}
	return paretoByContext(all)
}

// paretoCells are r's points, in its results' order: its Valid decode
// cells, and a load test's Valid rows (paretoLoadRows).
func paretoCells(r engine.Report, config string, run int) []ParetoPoint {
	gpus := float64(ParetoGPUs(r))
	out := paretoLoadRows(r, config, run)
	for _, res := range r.Results {
		if res.Phase != engine.PhaseDecode || !res.Measured() || !(res.PerRequestTokPerSec > 0) || !(res.TotalTokPerSec > 0) {
			continue
		}
		out = append(out, ParetoPoint{Cell: res, PerRequest: res.PerRequestTokPerSec, TotalPerGPU: res.TotalTokPerSec / gpus,
			Flagged: Marked(res), Concurrency: res.Concurrency, ContextTokens: res.ContextTokens, Config: config, Run: run,
			Line: res.ContextName(), Level: "×" + strconv.Itoa(res.Concurrency), At: engine.Count(res.Concurrency, "request", "requests"),
			order: float64(res.Concurrency)})
	}
	return out
}

// ParetoLoadLine names the line of a load test's rows on the Pareto chart,
// and ParetoLoadNote says how its points are read.
const (
	ParetoLoadLine = "load test"
	ParetoLoadNote = "A load test's rows: each request's tok/s is 1,000 ÷ the median TPOT (the time per output token after the first, as its tool defines it), the total is its output tok/s."
)

// paretoLoadContext is the context a load test's rows are grouped by: one
// line of their own, before any matrix context.
const paretoLoadContext = -1

// paretoLoadRows are a load test's Valid rows as Pareto points, ours or
// another tool's (vllm bench sweep plot_pareto draws the same): x is
// 1,000 ÷ the median TPOT (each request's decode speed), y the output
// tok/s per GPU; each row labelled with the requests it held at once or
// its rate.
func paretoLoadRows(r engine.Report, config string, run int) []ParetoPoint {
	if r.Load == nil {
		return nil
	}
	gpus := float64(ParetoGPUs(r))
	var out []ParetoPoint
	for _, row := range r.Load.Results {
		if row.Status != engine.StatusValid || !(row.TPOTMs.P50 > 0) || !(row.OutputTokPerSec > 0) {
			continue
		}
		p := ParetoPoint{PerRequest: 1000 / row.TPOTMs.P50, TotalPerGPU: row.OutputTokPerSec / gpus, Flagged: len(row.Flags) > 0,
			Concurrency: row.Concurrency, ContextTokens: paretoLoadContext, Config: config, Run: run, Line: ParetoLoadLine}
		switch {
		case row.Concurrency > 0:
			p.Level, p.At, p.order = "×"+strconv.Itoa(row.Concurrency), engine.Count(row.Concurrency, "request", "requests")+" at once", float64(row.Concurrency)
		case row.RateRPS > 0:
			rate := strconv.FormatFloat(row.RateRPS, 'g', 4, 64) + " req/s"
			p.Level, p.At, p.order = rate, rate, row.RateRPS
		default:
			p.Level, p.At, p.order = "burst", "a burst of "+strconv.Itoa(row.Requests), float64(row.Requests)
		}
		out = append(out, p)
	}
	return out
}

// paretoByContext groups points by context, in context order, each by run
// and concurrency, and marks each context's frontier.
func paretoByContext(points []ParetoPoint) [][]ParetoPoint {
	byCtx := map[int][]ParetoPoint{}
	var ctxs []int
	for _, p := range points {
		if _, ok := byCtx[p.ContextTokens]; !ok {
			ctxs = append(ctxs, p.ContextTokens)
		}
		byCtx[p.ContextTokens] = append(byCtx[p.ContextTokens], p)
	}
	slices.Sort(ctxs)
	out := make([][]ParetoPoint, 0, len(ctxs))
	for _, c := range ctxs {
		ps := byCtx[c]
		slices.SortStableFunc(ps, func(a, b ParetoPoint) int {
			if a.Run != b.Run {
				return a.Run - b.Run
			}
			return cmpFloat(a.order, b.order)
		})
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
// user to: the SLO's own (--slo-user-tok-s), else 1,000 ÷ the plan's ITL
// bound in ms (a gap of 20 ms is 50 tok/s); 0 without either.
func ParetoUserTokS(p engine.Plan) float64 {
	if p.SLO.UserTokS > 0 {
		return p.SLO.UserTokS
	}
	if p.SLO.ITL <= 0 {
		return 0
	}
	return 1000 / (float64(p.SLO.ITL) / 1e6)
}

// ParetoThreshold says where ParetoUserTokS's speed came from, before the
// lines that hold each user to it: "Each user's speed: at least 50 tok/s,
// the run's objective for each request" or "…, 1,000 ÷ the ITL bound of
// 20 ms"; "" without either.
func ParetoThreshold(p engine.Plan) string {
	user := ParetoUserTokS(p)
	switch {
	case user <= 0:
		return ""
	case p.SLO.UserTokS > 0:
		return fmt.Sprintf("Each user's speed: at least %s tok/s, the run's objective for each request", speed(user))
	}
	return fmt.Sprintf("Each user's speed: at least %s tok/s, 1,000 ÷ the ITL bound of %s ms", speed(user), speed(float64(p.SLO.ITL)/1e6))
}

// ParetoLines answer the Pareto chart in words, one line per context: the
// most total throughput while each user still gets the SLO's speed
// ("8K: the most total throughput while each user still gets ≥ 50 tok/s
// is 3,842 tok/s at 32 requests"), or why there is none; none without a
// speed to hold users to (ParetoNoBound).
func ParetoLines(r engine.Report) []string {
	return paretoLines(ParetoPoints(r), ParetoUserTokS(r.Plan), ParetoGPUs(r))
}

// ParetoLinesAcross are ParetoLines over several runs measured by one plan
// (a sweep's configurations), each best cell named with its configuration:
// "… is 3,842 tok/s at 32 requests, with kv_cache_dtype=fp8".
func ParetoLinesAcross(runs []ParetoRun, plan engine.Plan) []string {
	if len(runs) == 0 {
		return nil
	}
	return paretoLines(ParetoAcross(runs), ParetoUserTokS(plan), ParetoGPUs(runs[0].Report))
}

func paretoLines(points [][]ParetoPoint, user float64, gpus int) []string {
	if len(points) == 0 || user <= 0 {
		return nil
	}
	perGPU := ""
	if gpus > 1 {
		perGPU = fmt.Sprintf(" per GPU (÷ %d)", gpus)
	}
	with := func(p ParetoPoint) string {
		if p.Config == "" {
			return ""
		}
		return ", with " + engine.BoundName(p.Config)
	}
	var lines []string
	for _, ps := range points {
		name := ps[0].Line
		best := -1
		for i, p := range ps {
			if p.PerRequest >= user && (best < 0 || p.TotalPerGPU > ps[best].TotalPerGPU) {
				best = i
			}
		}
		if best < 0 {
			f := slices.MaxFunc(ps, func(a, b ParetoPoint) int { return cmpFloat(a.PerRequest, b.PerRequest) })
			lines = append(lines, fmt.Sprintf("%s: no cell gives each user %s tok/s; the fastest per request is %s tok/s at %s%s",
				name, speed(user), fixed1(f.PerRequest), f.At, with(f)))
			continue
		}
		b := ps[best]
		line := fmt.Sprintf("%s: the most total throughput%s while each user still gets ≥ %s tok/s is %s tok/s at %s (%s tok/s each)%s",
			name, perGPU, speed(user), Int(int(math.Round(b.TotalPerGPU))), b.At, fixed1(b.PerRequest), with(b))
		if b.Flagged {
			line += ", a flagged cell: see its caveat"
		}
		lines = append(lines, line)
	}
	return lines
}

// speed writes a tok/s the user chose: whole where it is ("50"), else to
// a tenth ("33.3").
func speed(v float64) string {
	if v == math.Round(v) && v < 1e9 {
		return Int(int(v))
	}
	return fixed1(v)
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
const ParetoNoBound = "With an ITL SLO or a speed objective per user, each context's line here says the most throughput while each user still gets that speed."
