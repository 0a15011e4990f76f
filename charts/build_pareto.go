package charts

import (
	"fmt"
	"math"
	"strconv"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// KindPareto is the Pareto chart: what each request gets against what the
// server delivers per GPU, a line per context, a point per concurrency.
const KindPareto Kind = "pareto"

// buildPareto is the serving world's standard picture (InferenceMAX,
// vllm bench sweep's plot_pareto): x is the median tok/s each request
// gets, y the total tok/s per GPU; each context a line through its
// concurrency levels, each point labelled with its level; the frontier of
// each context (the cells no other beats on both) dashed over it. Only
// Valid cells are drawn; flagged ones hollow. Its notes answer in words
// (report.ParetoLines).
func buildPareto(r engine.Report) LineChart {
	gpus := report.ParetoGPUs(r)
	yLabel := "total tok/s"
	if gpus > 1 {
		yLabel = fmt.Sprintf("total tok/s per GPU (÷ %d)", gpus)
	}
	c := LineChart{
		Title:       "Throughput against interactivity",
		Subtitle:    "each request's tok/s against the total · one line per context, a point per number of simultaneous requests · dashed: the frontier",
		XLabel:      "tok/s per request (median)",
		XLinear:     true,
		LabelPoints: true,
	}
	points := report.ParetoPoints(r)
	if len(points) == 0 {
		c.Empty = "No valid decode measurements in this run."
		return c
	}
	maxX, maxY := 0.0, 0.0
	hollow := false
	for i, ps := range points {
		s := Series{Name: ps[0].Cell.ContextName() + " context", Color: rampColor(i, len(points))}
		var front []Point
		for _, p := range ps {
			pt := Point{X: p.PerRequest, Y: p.TotalPerGPU, Label: "×" + strconv.Itoa(p.Concurrency), Hollow: p.Flagged}
			s.Points = append(s.Points, pt)
			hollow = hollow || p.Flagged
			if p.OnFrontier {
				front = append(front, Point{X: p.PerRequest, Y: p.TotalPerGPU})
			}
			maxX, maxY = math.Max(maxX, p.PerRequest), math.Max(maxY, p.TotalPerGPU)
		}
		c.Series = append(c.Series, s)
		if len(front) > 1 {
			c.Series = append(c.Series, Series{Color: s.Color, Guide: true, Points: front}) // unnamed: the subtitle says what dashes are
		}
	}
	x := linearAxis("", maxX, 5, formatCompact)
	c.XMin, c.XMax, c.XTicks = 0, x.Max, x.Ticks
	c.Axes = []Axis{linearAxis(yLabel, maxY, 5, formatCompact)}
	c.Notes = report.ParetoLines(r)
	if report.ParetoUserTokS(r.Plan) <= 0 {
		c.Notes = []string{report.ParetoNoBound}
	}
	if hollow {
		c.Notes = append(c.Notes, "Hollow points are flagged cells: measured, with a caveat (report.md lists it).")
	}
	if r.Server.Simulated {
		c.Notes = append(c.Notes, "Simulated: every point comes from Speed Matrix's simulator.")
	}
	return c
}
