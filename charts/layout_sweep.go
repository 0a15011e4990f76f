package charts

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
)

// WriteSweep writes the pictures of a sweep into its folder dir:
// sweep-best.png/.svg, the best configuration per cell;
// sweep-pareto.png/.svg, every configuration's cells on one Pareto chart;
// and for each
// configuration other than the baseline that has a run, its delta heatmap
// against the baseline's run, sweep-delta-FOLDER.png/.svg (none when the
// baseline has no run). runs holds each configuration's report by
// Config.Name; one that failed to start has none. Each file is written to
// a temporary name and renamed; once ctx is done it stops, between files or
// inside one, and returns ctx's error: the files already written are whole.
func WriteSweep(ctx context.Context, dir string, s sweep.Sweep, runs map[string]engine.Report, opts Options) error {
	opts, err := opts.check()
	if err != nil {
		return err
	}
	for _, c := range s.Configs {
		if _, hasRun := runs[c.Name]; hasRun && !c.Baseline && !oneName(c.Folder) {
			return fmt.Errorf("sweep.json gives configuration %q the folder %q: a configuration's folder is one name inside the sweep's folder", c.Name, c.Folder)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	d, err := drawSweepBest(s, opts)
	if err != nil {
		return err
	}
	if err := writePicture(ctx, dir, sweep.BestName, d, opts.Scale); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, err = drawSweepPareto(s, runs, opts); err != nil {
		return err
	}
	if err := writePicture(ctx, dir, sweep.ParetoName, d, opts.Scale); err != nil {
		return err
	}
	base, ok := baselineOf(s.Configs)
	a, hasA := runs[base.Name]
	if !ok || !hasA {
		return nil
	}
	for _, c := range s.Configs {
		b, hasB := runs[c.Name]
		if c.Name == base.Name || !hasB {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		sides := deltaSides{a: "A (" + engine.BoundName(base.Name) + ")", b: "B (" + engine.BoundName(c.Name) + ")", simulated: s.Simulated}
		d, err := drawDeltaOf(a, b, sides, opts)
		if err != nil {
			return err
		}
		if err := writePicture(ctx, dir, sweep.DeltaPrefix+c.Folder, d, opts.Scale); err != nil {
			return err
		}
	}
	return nil
}

// oneName reports whether folder names one folder inside another: a
// hostile sweep.json's "../x" must not make a picture land outside.
func oneName(folder string) bool {
	return filepath.IsLocal(folder) && !strings.ContainsAny(folder, `/\`)
}

// baselineOf is the sweep's baseline: the configuration marked so, or else
// the first.
func baselineOf(cs []sweep.Config) (sweep.Config, bool) {
	for _, c := range cs {
		if c.Baseline {
			return c, true
		}
	}
	if len(cs) == 0 {
		return sweep.Config{}, false
	}
	return cs[0], true
}

// drawSweepBest lays out the best-configuration heatmap of a sweep: its
// header, the grid with the winners' labels fitted to its cells, the key
// to the labels (every configuration, with its marks and failures), then
// the legend and notes.
func drawSweepBest(s sweep.Sweep, opts Options) (*Drawing, error) {
	opts, err := opts.check()
	if err != nil {
		return nil, err
	}
	p := paletteFor(opts.Theme)
	probe := buildSweepBest(s, 0)
	f := frameFor(opts, figureWidth, heatFigureMinWidth(probe.heat))
	d := &Drawing{width: f.width, bg: p.bg}
	x := f.margin(figureMargin)
	w := f.width - 2*x
	y := drawSweepHeader(d, p, probe, x, x-8, w)
	g := exportHeat
	if f.screen {
		keysH := drawConfigKeys(&Drawing{}, p, probe.configs, 0, 0, w)
		g = screenHeat(p, probe.heat, w, f.height-(y+6)-figureBottomM-keysH)
	}
	cw := g.cellWidth(probe.heat, w)
	// An export's cells fit their labels too, unless they are too narrow
	// for any text (then they are bare tiles, as a wide decode heatmap's).
	g.fitText = g.fitText || cw >= heatMinCellW
	b := buildSweepBest(s, cw)
	if !f.screen && wrapsDetail(b.heat, cw) {
		g.cellH = heatCellH + 6 // the label and two lines of detail
	}
	grid := b.heat
	grid.Legend, grid.Notes = nil, nil
	y = drawHeatmap(d, p, grid, x, y+6, w, g)
	y = drawConfigKeys(d, p, b.configs, x, y, w)
	y = drawHeatLegend(d, p, HeatmapModel{Legend: b.heat.Legend, Notes: b.heat.Notes}, x, y, w)
	d.height = y + figureBottomM
	return finished(d, p), nil
}

// drawSweepHeader draws the title with the Measured / simulated badge, the
// subtitle and the caption lines, wrapped to w; it returns the y below.
func drawSweepHeader(d *Drawing, p palette, b sweepBest, x, y, w float64) float64 {
	y += drawTitle(d, p, b.header, b.heat.Title, x, y, w) + 48
	for i, l := range wrapText(b.heat.Subtitle, fontRegular, 13, w) {
		if i > 0 {
			y += 18
		}
		d.text(x, y, l, textStyle{size: 13, color: p.muted})
	}
	y += 6
	for i, line := range b.caption {
		st := textStyle{size: 12, color: p.faint}
		if i > 0 { // the notice of an unfinished sweep
			st = textStyle{size: 12, font: fontBold, color: p.loopedText}
		}
		for _, l := range wrapText(line, st.font, st.size, w) {
			y += 16
			d.text(x, y, l, st)
		}
	}
	return y + 16
}

// drawConfigKeys draws the key to the cells' labels: a line per
// configuration, its label then its full name and what else it says (a
// failure in the Failed colour); it returns the y below.
func drawConfigKeys(d *Drawing, p palette, keys []configKey, x, y, w float64) float64 {
	if len(keys) == 0 {
		return y
	}
	const size, lh = 12.5, 17.0
	d.text(x, y+13, "Configurations", textStyle{size: size, font: fontBold, color: p.muted})
	y += 22
	col := 0.0
	for _, k := range keys {
		col = math.Max(col, textWidth(k.label, fontBold, size)+14)
	}
	col = math.Min(col, math.Max(60, w/3))
	for _, k := range keys {
		d.text(x, y+13, k.label, textStyle{size: fitSize(k.label, fontBold, size, heatDetailMinSize, col-10), font: fontBold, color: p.text})
		fg := p.text
		if k.failed {
			fg = p.failedText
		}
		lines := wrapText(k.text, fontRegular, size, w-col)
		for i, l := range lines {
			d.text(x+col, y+13+float64(i)*lh, l, textStyle{size: size, color: fg})
		}
		y += float64(max(1, len(lines)))*lh + 4
	}
	return y + 10
}

// wrapsDetail reports whether a cell of h, cw wide, draws its detail on
// two lines (detailLines).
func wrapsDetail(h HeatmapModel, cw float64) bool {
	for _, row := range h.Cells {
		for _, c := range row {
			if len(detailLines(c.Detail, cw-10)) > 1 {
				return true
			}
		}
	}
	return false
}
