package charts

import (
	"fmt"
	"math"
	"strconv"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// Chart colour names used by Series.Color.
const (
	colorPrimary   = "primary"
	colorSecondary = "secondary"
	colorMuted     = "muted"   // a reference, not the data: a noise floor
	colorWarning   = "warning" // a bound not to cross: a budget
)

func buildPrefill(r engine.Report) LineChart {
	c := LineChart{
		Title:       "Prefill",
		Subtitle:    "prompt tok/s by context length · TTFT on the right axis",
		XLabel:      "context length (log scale)",
		LabelPoints: true,
	}
	tps := Series{Name: "prompt tok/s", Color: colorPrimary}
	ttft := Series{Name: "TTFT", Axis: 1, Dashed: true, Color: colorSecondary}
	var lo, hi, maxTPS, maxTTFT float64
	for _, res := range sortedResults(r.Results, engine.PhasePrefill) {
		if !res.Measured() || res.ContextTokens <= 0 {
			continue
		}
		x := float64(res.ContextTokens)
		if lo == 0 || x < lo {
			lo = x
		}
		hi = math.Max(hi, x)
		maxTPS = math.Max(maxTPS, res.TotalTokPerSec)
		maxTTFT = math.Max(maxTTFT, res.TTFTMs)
		tps.Points = append(tps.Points, Point{X: x, Y: res.TotalTokPerSec, Label: formatPrefillLabel(res.TotalTokPerSec)})
		ttft.Points = append(ttft.Points, Point{X: x, Y: res.TTFTMs, Label: report.Millis(res.TTFTMs)})
	}
	prefill := sortedResults(r.Results, engine.PhasePrefill)
	if report.AnyMarked(prefill) {
		c.Notes = []string{report.NoteFlagged}
	}
	c.Flags = listed(report.FlagLines(prefill), "flagged cells")
	if len(tps.Points) == 0 {
		c.Empty = "No prefill measurements in this run."
		return c
	}
	c.XMin, c.XMax, c.XTicks = log2Range(lo, hi, func(v float64) string { return engine.ContextLabel(int(v)) })
	ceiling, maxCeiling, hasCeiling := prefillCeiling(r)
	left := linearAxis("prompt tok/s", max(maxTPS, maxCeiling), 5, formatCompact)
	c.Axes = []Axis{left, alignedAxis("TTFT", maxTTFT, len(left.Ticks), formatMsTick(maxTTFT))}
	c.Series = []Series{tps, ttft}
	if hasCeiling {
		c.Series = append(c.Series, ceiling)
		c.Notes = append(c.Notes, report.RooflineLine(r, engine.PhasePrefill))
	}
	return c
}

func buildPrefillRows(r engine.Report) []PrefillRow {
	var rows []PrefillRow
	for _, res := range sortedResults(r.Results, engine.PhasePrefill) {
		row := PrefillRow{Context: res.ContextName() + " context", TokPerSec: string(res.Status)}
		if res.Measured() {
			row.TokPerSec = report.Mark(formatPrefillLabel(res.TotalTokPerSec), res)
			row.TTFT = report.Millis(res.TTFTMs) + " TTFT"
		}
		rows = append(rows, row)
	}
	if len(rows) > maxListed {
		more := len(rows) - (maxListed - 1)
		rows = append(rows[:maxListed-1], PrefillRow{Context: fmt.Sprintf("… and %s more in report.md", report.Int(more))})
	}
	return rows
}

func buildPerRequest(r engine.Report) LineChart {
	c := LineChart{
		Title:    "Per-request speed",
		Subtitle: "tok/s each request gets as more run at once · one line per context length",
		XLabel:   "simultaneous requests (log scale)",
	}
	ctxs, concs := decodeGrid(r)
	cells := indexDecode(r.Results)
	var maxY, lo, hi float64
	minY := math.Inf(1)
	for i, ctx := range ctxs {
		s := Series{Name: ctx.label + " context", Color: rampColor(i, len(ctxs))}
		gap := false
		for _, conc := range concs {
			res, ok := cells.find(ctx.tokens, conc)
			if !ok || !res.Measured() || conc <= 0 {
				gap = len(s.Points) > 0
				continue
			}
			x := float64(conc)
			if lo == 0 || x < lo {
				lo = x
			}
			hi = math.Max(hi, x)
			maxY = math.Max(maxY, res.PerRequestTokPerSec)
			minY = math.Min(minY, res.PerRequestTokPerSec)
			s.Points = append(s.Points, Point{X: x, Y: res.PerRequestTokPerSec, Label: report.PerRequest(res.PerRequestTokPerSec), Gap: gap})
			gap = false
		}
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	if len(c.Series) == 0 {
		c.Empty = "No valid decode measurements in this run."
		return c
	}
	c.XMin, c.XMax, c.XTicks = log2Range(lo, hi, func(v float64) string { return strconv.Itoa(int(v)) })
	c.Axes = []Axis{linearAxis("tok/s per request", maxY, 5, formatCompact)}
	if minY > 0 && maxY/minY >= 10 {
		c.Axes[0] = logAxis("tok/s per request (log scale)", minY, maxY, formatCompact)
	}
	points := 0
	for _, s := range c.Series {
		points += len(s.Points)
	}
	// A sparse chart gets every value; a full one only names each line.
	c.LabelPoints = points <= 12
	return c
}

func rampColor(i, n int) string {
	f := 0.0
	if n > 1 {
		f = float64(i) / float64(n-1)
	}
	return fmt.Sprintf("ramp:%.3f", f)
}

type gridContext struct {
	tokens int
	label  string
}

// decodeGrid returns the decode contexts and concurrency levels of the
// results and the plan together, in ascending order. A planned context
// without results is fitted to the server's max_model_len as the run fits
// it, so a requested 128K measured as 123K is one row, not two (a report
// of another tool may have measured the requested size itself).
func decodeGrid(r engine.Report) ([]gridContext, []int) {
	labels := map[int]string{}
	concSet := map[int]bool{}
	measured := map[int]bool{}
	for _, res := range r.Results {
		if res.Phase == engine.PhaseDecode {
			measured[res.ContextTokens] = true
		}
	}
	for _, ctx := range r.Plan.DecodeContexts {
		fitted := engine.FitContexts([]int{ctx}, r.Server.MaxModelLen, r.Plan.MaxOutputTokens)[0]
		if !measured[ctx] && !measured[fitted] {
			labels[fitted] = engine.ContextLabel(fitted)
		}
	}
	for _, c := range r.Plan.Concurrency {
		concSet[c] = true
	}
	for _, res := range r.Results {
		if res.Phase != engine.PhaseDecode {
			continue
		}
		labels[res.ContextTokens] = res.ContextName()
		concSet[res.Concurrency] = true
	}
	var ctxs []gridContext
	for tokens, label := range labels {
		ctxs = append(ctxs, gridContext{tokens: tokens, label: label})
	}
	sortBy(ctxs, func(c gridContext) int { return c.tokens })
	var concs []int
	for c := range concSet {
		concs = append(concs, c)
	}
	sortBy(concs, func(c int) int { return c })
	return ctxs, concs
}

// decodeIndex finds a report's decode cells by context and concurrency.
type decodeIndex map[[2]int]engine.Result

// indexDecode indexes the decode cells of rs; of two results for one cell,
// the first counts.
func indexDecode(rs []engine.Result) decodeIndex {
	ix := decodeIndex{}
	for _, res := range rs {
		k := [2]int{res.ContextTokens, res.Concurrency}
		if _, dup := ix[k]; res.Phase == engine.PhaseDecode && !dup {
			ix[k] = res
		}
	}
	return ix
}

// find returns the decode cell ctx × conc.
func (ix decodeIndex) find(ctx, conc int) (engine.Result, bool) {
	res, ok := ix[[2]int{ctx, conc}]
	return res, ok
}
