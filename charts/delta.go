package charts

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// buildDelta compares the decode cells of two runs: each cell holds the
// change of total tok/s from a to b, on a diverging scale centred on 0.
// A cell without a valid figure in either run shows that run's status
// (b's first).
func buildDelta(a, b engine.Report) HeatmapModel {
	h := HeatmapModel{
		Title:     "Sustained decode: B vs A",
		Subtitle:  "change in total tok/s per cell · blue is faster in B, red is slower",
		RowHeader: "Context",
	}
	ctxs, concs := unionGrid(a, b)
	ia, ib := indexDecode(a.Results), indexDecode(b.Results)
	for _, c := range concs {
		h.Cols = append(h.Cols, strconv.Itoa(c))
	}
	present := map[engine.Status]bool{}
	maxAbs := 0.1
	for _, ctx := range ctxs {
		h.Rows = append(h.Rows, ctx.label)
		var row []HeatCell
		for _, conc := range concs {
			cell := deltaCell(ia, ib, ctx.tokens, conc)
			if cell.Status == engine.StatusValid {
				maxAbs = math.Max(maxAbs, math.Abs(cell.Value))
			} else {
				present[cell.Status] = true
			}
			row = append(row, cell)
		}
		h.Cells = append(h.Cells, row)
	}
	h.Scale = changeScale("change", maxAbs)
	h.place()
	for _, s := range statusOrder {
		if !present[s] {
			continue
		}
		note := statusNote(s)
		if s == engine.StatusPending {
			note = "Not in A, Not in B: only one of the runs has this cell."
		}
		h.Legend = append(h.Legend, StatusNote{Status: s, Note: note})
	}
	h.Notes = []string{"Each cell: % change of B over A, then A → B in total tok/s; ≈ and neutral: within the sum of " + engine.WindowsNoise + ". Cells without a valid figure in either run show that run's status.", engine.RerunCaveat}
	if line := deltaCounts(h); line != "" {
		h.Notes = append([]string{line}, h.Notes...)
	}
	return h
}

// changeScale is the diverging key of a relative change in total tok/s,
// blue for faster and red for slower, from −maxAbs to +maxAbs rounded out
// (the comparison of two runs, and a sweep's best configuration).
func changeScale(label string, maxAbs float64) ColorScale {
	maxAbs = niceCeil(maxAbs)
	// A run can lose at most all of its throughput: the key stops at
	// −100 % however far it runs up.
	s := ColorScale{Label: label, Min: math.Max(-maxAbs, -1), Max: maxAbs, Diverging: true}
	for _, v := range []float64{s.Min, s.Min / 2, 0, maxAbs / 2, maxAbs} {
		s.Ticks = append(s.Ticks, Tick{Value: v, Label: report.Percent(v)})
	}
	return s
}

// deltaCell is the cell ctx × conc of run B against run A.
func deltaCell(a, b decodeIndex, ctx, conc int) HeatCell {
	ra, okA := a.find(ctx, conc)
	rb, okB := b.find(ctx, conc)
	switch {
	case !okB && !okA:
		return HeatCell{Status: engine.StatusPending, Text: "Not measured"}
	case !okB:
		return HeatCell{Status: engine.StatusPending, Text: "Not in B"}
	case !okA:
		return HeatCell{Status: engine.StatusPending, Text: "Not in A"}
	}
	if !rb.Measured() || !ra.Measured() || ra.TotalTokPerSec <= 0 {
		s := rb.Status
		if rb.Measured() {
			s = ra.Status
		}
		return HeatCell{Status: s, Text: string(s)}
	}
	change := rb.TotalTokPerSec/ra.TotalTokPerSec - 1
	cell := HeatCell{
		Status: engine.StatusValid,
		Value:  change,
		Text:   report.Percent(change),
		Detail: report.TokPerSec(ra.TotalTokPerSec) + " → " + report.TokPerSec(rb.TotalTokPerSec),
	}
	if engine.WithinNoise(change, engine.NoisePct(ra), engine.NoisePct(rb)) {
		// No difference the runs can tell: drawn neutral, the change kept
		// in its words, marked ≈ (the notes say what it means).
		cell.Value, cell.Text = 0, "≈ "+report.Percent(change)
	}
	return cell
}

// deltaCounts is the comparison's headline: "B is faster in 12 cells,
// slower in 3, no different in 24 (within the sum of both windows' ±, the
// rule a sweep's margins use)"; "" when no
// cell has a figure in both.
func deltaCounts(h HeatmapModel) string {
	faster, slower, same := 0, 0, 0
	for _, row := range h.Cells {
		for _, c := range row {
			switch {
			case c.Status != engine.StatusValid:
			case strings.HasPrefix(c.Text, "≈ "):
				same++
			case c.Value > 0:
				faster++
			default:
				slower++
			}
		}
	}
	if faster+slower+same == 0 {
		return ""
	}
	return fmt.Sprintf("B is faster in %s, slower in %d, no different in %d (within the sum of %s, the rule a sweep's margins use).",
		engine.Count(faster, "cell", "cells"), slower, same, engine.WindowsNoise)
}

// deltaSides is how a comparison names its two runs, A and B.
type deltaSides struct {
	a, b string // "A", or "A (baseline)"
	// simulated labels the picture simulated whatever the runs' reports
	// say: a sweep's runs of stand-in servers.
	simulated bool
}

// drawDelta lays out the comparison heatmap of two runs.
func drawDelta(a, b engine.Report, opts Options) (*Drawing, error) {
	return drawDeltaOf(a, b, deltaSides{a: "A", b: "B"}, opts)
}

// drawDeltaOf is drawDelta with the runs named by sides.
func drawDeltaOf(a, b engine.Report, sides deltaSides, opts Options) (*Drawing, error) {
	opts, err := opts.check()
	if err != nil {
		return nil, err
	}
	p := paletteFor(opts.Theme)
	ma, mb := BuildModel(a), BuildModel(b)
	h := buildDelta(a, b)
	f := frameFor(opts, figureWidth, heatFigureMinWidth(h))
	d := &Drawing{width: f.width, bg: p.bg}
	x := f.margin(figureMargin)
	w := f.width - 2*x
	hdr := mb.Header
	if ma.Header.Simulated && !hdr.Simulated {
		hdr = ma.Header
	}
	if sides.simulated && !hdr.Simulated {
		hdr.Simulated, hdr.Badge = true, simulatedBadge
	}
	y := x - 8
	y += drawTitle(d, p, hdr, h.Title, x, y, w)
	d.text(x, y+48, h.Subtitle, textStyle{size: 13, color: p.muted})
	y += 70
	for _, run := range []struct {
		name string
		m    Model
	}{{sides.a, ma}, {sides.b, mb}} {
		line := run.name + ": " + run.m.Header.Model + " · " + run.m.Header.ServerLine
		if run.m.Header.Simulated {
			line += " · " + run.m.Header.Badge
		} else if sides.simulated {
			line += " · " + simulatedBadge
		}
		for _, l := range wrapText(line, fontRegular, 12, w) {
			d.text(x, y, l, textStyle{size: 12, color: p.faint})
			y += 16
		}
	}
	g := exportHeat
	if f.screen {
		g = screenHeat(p, h, w, f.height-(y+6)-figureBottomM)
	}
	y = drawHeatmap(d, p, h, x, y+6, w, g)
	d.height = math.Ceil(y + figureBottomM)
	d.cut(p)
	return d, nil
}

// unionGrid is the rows and columns of both runs' decode grids, each run's
// planned contexts fitted to its own server (decodeGrid): a 4K planned
// and measured as 3,840 tokens is one row, not two.
func unionGrid(a, b engine.Report) ([]gridContext, []int) {
	ca, na := decodeGrid(a)
	cb, nb := decodeGrid(b)
	seen := map[int]bool{}
	var ctxs []gridContext
	for _, c := range append(ca, cb...) {
		if !seen[c.tokens] {
			seen[c.tokens] = true
			ctxs = append(ctxs, c)
		}
	}
	sortBy(ctxs, func(c gridContext) int { return c.tokens })
	concs := append(na, nb...)
	slices.Sort(concs)
	return ctxs, slices.Compact(concs)
}
