package charts

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
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
		if r.Load != nil {
			c.Empty = "No valid load-test rate with a time per output token in this run."
		}
		return c
	}
	maxX, maxY := 0.0, 0.0
	hollow := false
	for i, ps := range points {
		s := Series{Name: ps[0].Line + " context", Color: rampColor(i, len(points))}
		if ps[0].ContextTokens < 0 {
			s.Name = ps[0].Line
		}
		var front []Point
		for _, p := range ps {
			pt := Point{X: p.PerRequest, Y: p.TotalPerGPU, Label: p.Level, Hollow: p.Flagged}
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
	paretoFrame(&c, report.ParetoGPUs(r), maxX, maxY, r.Plan, report.ParetoLines(r))
	if hollow {
		c.Notes = append(c.Notes, "Hollow points are flagged cells: measured, with a caveat (report.md lists it).")
	}
	if r.Load != nil {
		c.Notes = append(c.Notes, report.ParetoLoadNote)
	}
	if r.Server.Simulated {
		c.Notes = append(c.Notes, noteParetoSimulated)
	}
	return c
}

// noteParetoSimulated is a simulated Pareto chart's last note.
const noteParetoSimulated = "Simulated: every point comes from Speed Matrix's simulator."

// paretoFrame gives a Pareto chart its axes, from 0 to past its largest
// point (y per GPU where there are several), and its first notes: where
// each user's speed came from and the answers, or what would give them.
func paretoFrame(c *LineChart, gpus int, maxX, maxY float64, plan engine.Plan, answers []string) {
	yLabel := "total tok/s"
	if gpus > 1 {
		yLabel = fmt.Sprintf("total tok/s per GPU (÷ %d)", gpus)
	}
	x := linearAxis("", maxX, 5, formatCompact)
	c.XMin, c.XMax, c.XTicks = 0, x.Max, x.Ticks
	c.Axes = []Axis{linearAxis(yLabel, maxY, 5, formatCompact)}
	c.Notes = append([]string{report.ParetoThreshold(plan)}, answers...)
	if report.ParetoUserTokS(plan) <= 0 {
		c.Notes = []string{report.ParetoNoBound}
	}
}

// Words of the sweep's Pareto chart.
const (
	sweepParetoSubtitle = "each request's tok/s against the total · a colour per configuration, a line per context · dashed: each context's frontier over every configuration, its points named"
	// sweepParetoLegendW is the width a configuration's name may take in
	// the legend's one row; many configurations share it.
	sweepParetoLegendW = 1080.0
)

// buildSweepPareto puts every configuration's cells on one Pareto chart: a
// colour per configuration (its label as the best-configuration picture
// fits it), a line per context through its concurrency levels; each
// context's frontier over every configuration dashed, and each frontier
// point labelled with its configuration and concurrency ("fp8 ×32", after
// its context where there are several: "8K: fp8 ×32"). Its notes answer in words
// (report.ParetoLinesAcross) and spell out the labels.
func buildSweepPareto(s sweep.Sweep, runs map[string]engine.Report) LineChart {
	c := LineChart{
		Title:       "Throughput against interactivity, every configuration",
		Subtitle:    sweepParetoSubtitle,
		XLabel:      "tok/s per request (median)",
		XLinear:     true,
		LabelPoints: true,
	}
	pruns := sweep.ParetoRuns(s, runs)
	points := report.ParetoAcross(pruns)
	if len(points) == 0 {
		c.Empty = "No configuration has a valid decode measurement yet."
		return c
	}
	n := len(pruns)
	labels := sweepLabels(s.Configs, max(1, min(140, sweepParetoLegendW/float64(n)-52))) // 0 would mean full names
	named := map[int]bool{}
	maxX, maxY := 0.0, 0.0
	hollow := false
	for _, ps := range points {
		var front []Point
		for i := 0; i < len(ps); {
			run := ps[i].Run
			line := Series{Color: rampColor(run, n)}
			if !named[run] {
				line.Name, named[run] = labels[ps[i].Config], true
			}
			for ; i < len(ps) && ps[i].Run == run; i++ {
				p := ps[i]
				pt := Point{X: p.PerRequest, Y: p.TotalPerGPU, Hollow: p.Flagged}
				if p.OnFrontier {
					pt.Label = labels[p.Config] + " " + p.Level
					if len(points) > 1 {
						pt.Label = p.Line + ": " + pt.Label
					}
					front = append(front, Point{X: p.PerRequest, Y: p.TotalPerGPU})
				}
				line.Points = append(line.Points, pt)
				hollow = hollow || p.Flagged
				maxX, maxY = math.Max(maxX, p.PerRequest), math.Max(maxY, p.TotalPerGPU)
			}
			c.Series = append(c.Series, line)
		}
		slices.SortFunc(front, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
		if len(front) > 1 {
			c.Series = append(c.Series, Series{Color: colorMuted, Guide: true, Points: front})
		}
	}
	paretoFrame(&c, report.ParetoGPUs(pruns[0].Report), maxX, maxY, s.Plan, report.ParetoLinesAcross(pruns, s.Plan))
	for _, cf := range s.Configs {
		if l, ok := labels[cf.Name]; ok && l != cf.Name {
			c.Notes = append(c.Notes, l+": "+engine.BoundName(cf.Name))
		}
	}
	if hollow {
		c.Notes = append(c.Notes, "Hollow points are flagged cells: measured, with a caveat (each run's report.md lists it).")
	}
	if s.Simulated {
		c.Notes = append(c.Notes, noteParetoSimulated)
	}
	return c
}

// drawSweepPareto lays out the sweep's Pareto chart with the sweep's badge.
func drawSweepPareto(s sweep.Sweep, runs map[string]engine.Report, opts Options) (*Drawing, error) {
	opts, err := opts.check()
	if err != nil {
		return nil, err
	}
	p := paletteFor(opts.Theme)
	m := Model{Header: Header{Title: "Sweep", Badge: "Measured", Model: sweepCaptionModel(s, runs)}}
	if s.Simulated {
		m.Header.Simulated, m.Header.Badge = true, simulatedBadge
	}
	return finished(layoutLineFigure(m, buildSweepPareto(s, runs), p, frameFor(opts, figureWidth, lineMinWidth)), p), nil
}

// sweepCaptionModel is the caption under the sweep's Pareto title: the
// model on its GPU, from the baseline's run where it has one.
func sweepCaptionModel(s sweep.Sweep, runs map[string]engine.Report) string {
	if r, ok := runs[sweep.BaselineName]; ok {
		return report.ModelOnGPU(r)
	}
	return s.Server
}
