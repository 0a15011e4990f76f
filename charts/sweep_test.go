package charts

import (
	"image/color"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
)

// oneCellSweep is the example's configurations with a single cell, c.
func oneCellSweep(c sweep.CellAnswer) sweep.Sweep {
	s := makeSweep(exampleConfigs(), false)
	c.ContextTokens, c.Concurrency, c.Label = 8*engine.K, 16, "8K × 16"
	s.Answer.Cells = []sweep.CellAnswer{c}
	return s
}

// TestSweepCells: each cell names its winner and its gain, the baseline
// its margin over the runner-up; a margin within the noise reads "no
// difference" and is not coloured; a cell no configuration measured shows
// the status they got; a winner that changes the output is marked.
func TestSweepCells(t *testing.T) {
	const seqs, fp8 = "max_num_seqs=64", "max_num_seqs=64 enforce_eager=true kv_cache_dtype=fp8"
	light, keyMiddle := paletteFor(Light), colorAt(divergingStops, 0.5)
	over := func(s engine.Status, names ...string) []sweep.Entry {
		var es []sweep.Entry
		for _, n := range names {
			es = append(es, sweep.Entry{Config: n, Status: s})
		}
		return es
	}
	for _, c := range []struct {
		name         string
		cell         sweep.CellAnswer
		status       engine.Status
		text, detail string
		side         int         // +1 coloured as a gain, −1 as the baseline's win, 0 not coloured
		fill         color.NRGBA // the tile of a cell not coloured
	}{
		{"a setting wins", sweep.CellAnswer{Best: seqs, OverBaseline: &sweep.Margin{Of: "baseline", Gain: 0.12, NoisePct: 6}},
			engine.StatusValid, seqs, "+12.0% over baseline", +1, color.NRGBA{}},
		{"the baseline wins", sweep.CellAnswer{Best: "baseline", OverRunnerUp: &sweep.Margin{Of: seqs, Gain: 0.08, NoisePct: 6}},
			engine.StatusValid, "baseline", "+8.0% over max_num_seqs=64", -1, color.NRGBA{}},
		{"a gain within the noise", sweep.CellAnswer{Best: seqs, OverBaseline: &sweep.Margin{Of: "baseline", Gain: 0.3, NoisePct: 40, NoDifference: true}},
			statusNoDifference, "no difference", "", 0, keyMiddle},
		{"the baseline's margin within the noise", sweep.CellAnswer{Best: "baseline", OverRunnerUp: &sweep.Margin{Of: seqs, Gain: 0.02, NoisePct: 6, NoDifference: true}},
			statusNoDifference, "no difference", "", 0, keyMiddle},
		{"every configuration over capacity", sweep.CellAnswer{Entries: over(engine.StatusOverCapacity, "baseline", seqs, fp8)},
			engine.StatusOverCapacity, "Over capacity", "", 0, light.over},
		{"most configurations looped", sweep.CellAnswer{Entries: append(over(engine.StatusLooped, "baseline", seqs), over(engine.StatusOverCapacity, fp8)...)},
			engine.StatusLooped, "Looped", "", 0, light.looped},
		{"only a setting fits", sweep.CellAnswer{Best: fp8, OverBaseline: &sweep.Margin{Of: "baseline", Status: engine.StatusOverCapacity}},
			engine.StatusValid, "#3†", "baseline: Over capacity", +1, color.NRGBA{}},
		{"only the baseline is valid", sweep.CellAnswer{Best: "baseline", Entries: append(over(engine.StatusValid, "baseline"), over(engine.StatusLooped, seqs, fp8)...)},
			engine.StatusValid, "baseline", "others: Looped", -1, color.NRGBA{}},
		{"no configuration ran it", sweep.CellAnswer{Entries: over("", "baseline", seqs)},
			engine.StatusPending, "Not measured", "", 0, light.bg},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := oneCellSweep(c.cell)
			d, err := drawSweepBest(s, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			b := buildSweepBest(s, 0)
			cell := b.heat.Cells[0][0]
			if cell.Status != c.status {
				t.Errorf("status %q, want %q", cell.Status, c.status)
			}
			texts := d.Texts()
			for _, want := range []string{c.text, c.detail} {
				if want != "" && !slices.Contains(texts, want) {
					t.Errorf("%q is not drawn; texts %q", want, texts)
				}
			}
			fill, ok := tileUnder(d, "8K", c.text)
			if !ok {
				t.Fatalf("no tile under %q", c.text)
			}
			if side := colourSide(fill); c.side != 0 && side != c.side {
				t.Errorf("tile %v is on side %+d of the key, want %+d", fill, side, c.side)
			}
			if want := [3]uint8{c.fill.R, c.fill.G, c.fill.B}; c.side == 0 && fill != want {
				t.Errorf("tile %v, want %v: a cell without a win is not coloured", fill, want)
			}
		})
	}
}

// colourSide says which side of the diverging key a fill lies on: +1
// blue (a gain), −1 red (the baseline's win), 0 neither: the key's middle,
// or a colour not on it (a status's).
func colourSide(c [3]uint8) int {
	const steps = 2000
	dist := func(f [3]uint8) int {
		d := 0
		for i := range f {
			d += int(max(f[i], c[i]) - min(f[i], c[i]))
		}
		return d
	}
	best, bestD := 0, 1<<30
	for k := range steps + 1 {
		f := colorAt(divergingStops, float64(k)/steps)
		if d := dist([3]uint8{f.R, f.G, f.B}); d < bestD {
			best, bestD = k, d
		}
	}
	switch {
	case bestD > 6: // not on the key
		return 0
	case best > steps/2+10:
		return +1
	case best < steps/2-10:
		return -1
	}
	return 0
}

// tileUnder is the fill of the rounded tile drawn under the text first
// drawn after the row label row that reads text: the cell's tile.
func tileUnder(d *Drawing, row, text string) ([3]uint8, bool) {
	inRow := false
	var tile item
	for _, it := range d.items {
		if it.kind == itemText && it.text == row {
			inRow = true
		}
		if !inRow {
			continue
		}
		if it.kind == itemRect && it.r == 5 {
			tile = it
		}
		if it.kind == itemText && it.text == text && tile.w > 0 && it.x > tile.x && it.x < tile.x+tile.w {
			return [3]uint8{tile.fill.R, tile.fill.G, tile.fill.B}, true
		}
	}
	return [3]uint8{}, false
}

// TestSweepSimulatedBadge: every picture of a simulated sweep says so,
// the deltas too when the runs' own reports don't; a measured one says
// Measured.
func TestSweepSimulatedBadge(t *testing.T) {
	for _, c := range []struct {
		simulated bool
		want      string
	}{{true, simulatedBadge}, {false, "Measured"}} {
		s := makeSweep(exampleConfigs(), c.simulated)
		d, err := drawSweepBest(s, Options{Theme: Dark})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(d.Texts(), c.want) {
			t.Errorf("simulated=%v: no %q badge", c.simulated, c.want)
		}
		run := loadSeed(t, "seed000")
		delta, err := drawDeltaOf(run, run, deltaSides{a: "A (baseline)", b: "B (max_num_seqs=64)", simulated: c.simulated}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		texts := delta.Texts()
		if got := slices.Contains(texts, simulatedBadge); got != c.simulated {
			t.Errorf("simulated=%v: delta's badge says simulated: %v", c.simulated, got)
		}
		joined := strings.Join(texts, "\n")
		for _, want := range []string{"A (baseline): ", "B (max_num_seqs=64): "} {
			if !strings.Contains(joined, want) {
				t.Errorf("the delta's lines do not name %q", want)
			}
		}
	}
}

// TestSweepKey: the key under the grid lists every configuration, the
// baseline first, with the full name of each shortened one (its keys
// shortened, or its number), the mark of a configuration that changes the
// output and the reason of one that failed.
func TestSweepKey(t *testing.T) {
	s := makeSweep(exampleConfigs(), false)
	d, err := drawSweepBest(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	texts := d.Texts()
	joined := strings.Join(texts, " ")
	start := slices.Index(texts, "Configurations")
	if start < 0 {
		t.Fatal("no key of the configurations")
	}
	at := start
	for _, want := range []string{"baseline", "seqs=64", "max_num_seqs=64", "#3†", "utilization=0.98"} {
		i := slices.Index(texts[at+1:], want)
		if i < 0 {
			t.Fatalf("the key has no %q after %q: %q", want, texts[at], texts[start:])
		}
		at += 1 + i
	}
	for _, want := range []string{
		"max_num_seqs=64 enforce_eager=true kv_cache_dtype=fp8 · † changes the model's output (kv_cache_dtype)",
		"gpu_memory_utilization=0.98 · Failed to start: CUDA out of memory: tried to allocate 2.00 GiB",
		"the baseline: server.toml unchanged", noteChangesOutput, noteNoDifference,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("%q is not drawn", want)
		}
	}
	if !slices.Contains(texts, "#3†") || slices.Contains(texts, "#4") && strings.Count(joined, "#4") > 1 {
		t.Errorf("the fp8 variant's cells are not labelled #3*, or the failed one labels a cell")
	}

	s.Configs[1].Status = sweep.StatusMeasuring
	s.Answer.Looped = []string{"kv_cache_dtype=fp8: 64K × 1"}
	d, err = drawSweepBest(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	joined = strings.Join(d.Texts(), " ")
	for _, want := range []string{"Unfinished sweep: 3 of 4 configurations measured or failed so far.",
		"Went Looped under settings that change the output: kv_cache_dtype=fp8: 64K × 1.", "not measured yet (Measuring)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("%q is not drawn", want)
		}
	}
}

// TestSweepOfAHostileFile: a sweep.json of 500 configurations, a winner it
// does not list and a gain of 1e300 draws a bounded picture: 40 lines of
// key that say where the rest is, and a finite key of gains.
func TestSweepOfAHostileFile(t *testing.T) {
	s := makeSweep(manyConfigs(500), false)
	s.Answer.Cells[0].Best = "not a configuration"
	s.Answer.Cells[1].OverBaseline = &sweep.Margin{Of: "baseline", Gain: 1e300}
	d, err := drawSweepBest(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	texts := d.Texts()
	if !slices.Contains(texts, "and 461 more configurations: sweep.md lists every one.") {
		t.Error("the key does not stop at 40 lines and say how many more")
	}
	if _, h := d.Size(); h > 3000 {
		t.Errorf("picture %d px tall", h)
	}
	if !slices.Contains(texts, "+10000.0%") {
		t.Error("the key of gains does not stop at +10,000 %")
	}
	if slices.Contains(texts, "not a configuration") || !slices.Contains(texts, "?") {
		t.Error("a winner sweep.json does not list is not labelled ?")
	}
	checkCellTexts(t, d, "500 configurations")
}

// TestSweepOfALongName: a configuration named by 1 MB of text (a hand-made
// sweep.json) is drawn, its name in the key cut to a name's length
// (engine.MaxNameRunes) and wrapped.
func TestSweepOfALongName(t *testing.T) {
	cs := exampleConfigs()
	cs[1].cfg.Name = strings.Repeat("n", 1<<20)
	d, err := drawSweepBest(makeSweep(cs, false), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Texts() {
		if n := utf8.RuneCountInString(s); n > engine.MaxNameRunes {
			t.Fatalf("a text of %d runes is drawn: %.40q", n, s)
		}
	}
	if key := strings.Join(d.Texts(), ""); !strings.Contains(key, strings.Repeat("n", 100)) || !strings.Contains(key, "n…") {
		t.Error("the key does not name the configuration, ellipsized")
	}
}

// TestSweepQualityFigures: where a sweep measured the drift of a
// configuration that changes the output, its figure stands in the † mark's
// place, and a cell whose fastest configuration is over the budget is
// noted with it.
func TestSweepQualityFigures(t *testing.T) {
	s := makeSweep(exampleConfigs(), false)
	s.Quality = &sweep.QualitySetup{Budget: "kld=0.01,top1=98%", ReferenceSHA256: "x"}
	s.Configs[0].Quality = &sweep.ConfigQuality{State: sweep.QualityMeasured, Reference: true}
	over := sweep.Drift{ContextTokens: 8 * engine.K, Top1Pct: 93.1, KLDMean: 0.02, Real: true, Top1Over: true, KLDOver: true}
	s.Configs[2].Quality = &sweep.ConfigQuality{State: sweep.QualityMeasured, Contexts: []sweep.Drift{over}}
	s.Answer.Budget = s.Quality.Budget
	s.Answer.Cells[0].Best, s.Answer.Cells[0].WithinBudget, s.Answer.Cells[0].BudgetMissed = s.Configs[2].Name, sweep.BaselineName, true
	s.Answer.Cells[0].BestDrift = &over
	d, err := drawSweepBest(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(d.Texts(), " ")
	for _, want := range []string{"quality over budget: top-1 93.1 %, KLD 0.02 at 8K", "Quality budget kld=0.01,top1=98%",
		"is fastest here", "but drifts: top-1 93.1 %, KLD 0.02 at 8K, over the budget; best within budget: baseline"} {
		if !strings.Contains(joined, want) {
			t.Errorf("%q is not drawn: %s", want, joined)
		}
	}
	if strings.Contains(joined, "†") {
		t.Errorf("the † stays where the drift was measured: %s", joined)
	}
}
