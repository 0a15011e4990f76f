package charts

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
)

// statusNoDifference is the status of a cell of a sweep's best-configuration
// heatmap whose winner's margin lies within both windows' ±: it is drawn
// neutral, never coloured as a win, because the runs can't tell the two
// configurations apart there.
const statusNoDifference engine.Status = "No difference"

// simulatedBadge labels a picture whose runs were simulated when the runs'
// reports can't say by which profile (a sweep of stand-in servers).
const simulatedBadge = "simulated"

// markChangesOutput follows the name of a configuration whose settings
// change what the model answers, in the cells and in the legend, as
// sweep.md marks it.
const markChangesOutput = "†"

// Words of the best-configuration picture.
const (
	sweepBestTitle    = "Best configuration per cell"
	sweepBestSubtitle = "the fastest configuration in total tok/s and its gain · blue: a setting beats the baseline, red: the baseline beats every setting"
	noteNoDifference  = "No difference: the fastest configuration's margin is within the sum of " + engine.WindowsNoise + ", so the runs can't tell it from the other. " + engine.RerunCaveat
	noteSweepCells    = "Each cell names the configuration with the highest total tok/s and its gain over the baseline; where the baseline is fastest, its margin over the runner-up. Full names are under the grid; sweep.md has every figure."
	noteChangesOutput = markChangesOutput + " Not the same model output: these settings change what the model answers (quantization, KV cache dtype, another model): faster, perhaps, but not the same model quality."
	noteNoFigure      = "A cell whose comparison has no figure (\"baseline: Over capacity\", or \"—\") is drawn at the end of the key: the configuration compared did not measure it."
)

// sweepBest is what the best-configuration picture of a sweep shows.
type sweepBest struct {
	header  Header
	caption []string // the configurations and the plan, then a notice of an unfinished sweep
	heat    HeatmapModel
	configs []configKey // the key to the cells' labels, in the sweep's order
}

// configKey is one configuration in the key under the grid: its label in
// the cells and what else it says (its full name, its marks, its failure).
type configKey struct {
	label, text string
	failed      bool // it has no run: text says why
}

// buildSweepBest lays out what the picture of s says, with the
// configurations' labels fitted to cells cellW wide (0: full names).
func buildSweepBest(s sweep.Sweep, cellW float64) sweepBest {
	b := sweepBest{header: Header{Title: sweepBestTitle, Badge: "Measured"}}
	if s.Simulated {
		b.header.Simulated, b.header.Badge = true, simulatedBadge
	}
	labels := sweepLabels(s.Configs, cellW)
	b.configs = configKeys(s, labels)
	var cells []sweep.CellAnswer
	if s.Answer != nil {
		cells = s.Answer.Cells
	}
	b.heat = sweepHeatmap(cells, labels, cellW)
	b.caption = []string{sweepCaption(s, cells)}
	if n := s.Settled(); n < len(s.Configs) {
		b.caption = append(b.caption, "Unfinished sweep: "+strconv.Itoa(n)+" of "+
			engine.Count(len(s.Configs), "configuration", "configurations")+" measured or failed so far.")
	}
	if slices.ContainsFunc(s.Configs, sweep.UnmeasuredChange) {
		b.heat.Notes = append(b.heat.Notes, noteChangesOutput)
	}
	b.heat.Notes = append(b.heat.Notes, budgetNotes(s)...)
	if s.Answer != nil && len(s.Answer.Looped) > 0 {
		looped := s.Answer.Looped
		if len(looped) > maxListed {
			looped = append(looped[:maxListed:maxListed], "… and "+report.Int(len(s.Answer.Looped)-maxListed)+" more in sweep.md")
		}
		b.heat.Notes = append(b.heat.Notes, "Went Looped under settings that change the output: "+strings.Join(looped, "; ")+".")
	}
	return b
}

// sweepLabels names each configuration in the cells, with the mark of one
// that changes the output: its name where it fits a cell cellW wide at the
// smallest size a cell draws its name; or else its settings with their
// keys shortened ("seqs=64 eager=true"); or else its number in the sweep,
// "#3". The key under the grid spells each one out.
func sweepLabels(cs []sweep.Config, cellW float64) map[string]string {
	short := shortKeys(cs)
	fits := func(label string) bool {
		return cellW <= 0 || textWidth(label, fontBold, heatTextMinSize) <= cellW-12
	}
	labels := make(map[string]string, len(cs))
	for i, c := range cs {
		mark := ""
		if sweep.UnmeasuredChange(c) {
			mark = markChangesOutput
		}
		label := c.Name + mark
		if !fits(label) && len(c.Settings) > 0 {
			parts := make([]string, len(c.Settings))
			for k, st := range c.Settings {
				v := st.Value
				if u, err := strconv.Unquote(v); err == nil {
					v = u
				}
				parts[k] = short[st.Key] + "=" + v
			}
			label = strings.Join(parts, " ") + mark
		}
		if !fits(label) {
			label = "#" + strconv.Itoa(i+1) + mark
		}
		labels[c.Name] = label
	}
	return labels
}

// shortKeys shortens each server.toml key of a sweep to its last words
// that no other key of the sweep ends with: max_num_seqs is "seqs" unless
// another key ends in "_seqs".
func shortKeys(cs []sweep.Config) map[string]string {
	var keys []string
	for _, c := range cs {
		for _, st := range c.Settings {
			if !slices.Contains(keys, st.Key) {
				keys = append(keys, st.Key)
			}
		}
	}
	short := make(map[string]string, len(keys))
	for _, k := range keys {
		words := strings.Split(k, "_")
		short[k] = k
		for n := 1; n < len(words); n++ {
			tail := strings.Join(words[len(words)-n:], "_")
			if !slices.ContainsFunc(keys, func(o string) bool { return o != k && (o == tail || strings.HasSuffix(o, "_"+tail)) }) {
				short[k] = tail
				break
			}
		}
	}
	return short
}

// configKeys is the key under the grid: every configuration, the baseline
// first as the sweep lists it, at most maxListed lines.
func configKeys(s sweep.Sweep, labels map[string]string) []configKey {
	var keys []configKey
	for _, c := range s.Configs {
		if len(keys) == maxListed-1 && len(s.Configs) > maxListed {
			more := len(s.Configs) - len(keys)
			return append(keys, configKey{label: "…", text: "and " + report.Int(more) + " more configurations: sweep.md lists every one."})
		}
		var parts []string
		if strings.TrimSuffix(labels[c.Name], markChangesOutput) != c.Name {
			parts = append(parts, engine.BoundName(c.Name))
		}
		if c.Baseline {
			server := "server.toml"
			if s.Server != "" {
				server = s.Server
			}
			parts = append(parts, "the baseline: "+server+" unchanged")
		}
		switch q := sweep.QualityText(c); {
		case q != "" && !c.Baseline:
			parts = append(parts, "quality "+q)
		case sweep.UnmeasuredChange(c):
			parts = append(parts, markChangesOutput+" changes the model's output ("+strings.Join(c.ChangesOutput, ", ")+")")
		}
		k := configKey{label: labels[c.Name]}
		switch c.Status {
		case sweep.StatusDone:
		case sweep.StatusFailed, sweep.StatusPartial:
			k.failed = c.Status == sweep.StatusFailed
			parts = append(parts, string(c.Status)+": "+c.Reason)
		default:
			parts = append(parts, "not measured yet ("+string(c.Status)+")")
		}
		k.text = strings.Join(parts, " · ")
		keys = append(keys, k)
	}
	return keys
}

// sweepCaption says what was compared: "4 configurations of server.toml ·
// 5 contexts (8K–128K) × 8 concurrency levels (1–128)", in report.md's
// words of a matrix.
func sweepCaption(s sweep.Sweep, cells []sweep.CellAnswer) string {
	var rs []engine.Result
	for _, c := range cells {
		rs = append(rs, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: c.ContextTokens, Concurrency: c.Concurrency}})
	}
	if len(cells) == 0 {
		for _, ctx := range s.Plan.DecodeContexts {
			for _, n := range s.Plan.Concurrency {
				rs = append(rs, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: n}})
			}
		}
	}
	line := engine.Count(len(s.Configs), "configuration", "configurations")
	if s.Server != "" {
		line += " of " + s.Server
	}
	if m := report.MatrixLine(engine.Report{Results: rs}); m != "" {
		line += " · " + m
	}
	return line
}

// sweepHeatmap is the grid of cells, one row per decode context and one
// column per concurrency level, coloured by the winner's gain over the
// baseline on the comparison's diverging key; where the baseline wins,
// by how much slower the runner-up is.
func sweepHeatmap(cells []sweep.CellAnswer, labels map[string]string, cellW float64) HeatmapModel {
	h := HeatmapModel{Title: sweepBestTitle, Subtitle: sweepBestSubtitle, RowHeader: "Context"}
	var ctxs, concs []int
	rowLabel := map[int]string{}
	at := map[[2]int]sweep.CellAnswer{}
	for _, c := range cells {
		ctxs, concs = append(ctxs, c.ContextTokens), append(concs, c.Concurrency)
		if l, _, ok := strings.Cut(c.Label, " × "); ok && rowLabel[c.ContextTokens] == "" {
			rowLabel[c.ContextTokens] = l
		}
		at[[2]int{c.ContextTokens, c.Concurrency}] = c
	}
	slices.Sort(ctxs)
	slices.Sort(concs)
	ctxs, concs = slices.Compact(ctxs), slices.Compact(concs)
	for _, n := range concs {
		h.Cols = append(h.Cols, strconv.Itoa(n))
	}
	present := map[engine.Status]bool{}
	maxAbs, noFigure := 0.1, false
	for _, ctx := range ctxs {
		h.Rows = append(h.Rows, cmp.Or(rowLabel[ctx], engine.ContextLabel(ctx)))
		row := make([]HeatCell, 0, len(concs))
		for _, n := range concs {
			c, ok := at[[2]int{ctx, n}]
			cell := HeatCell{Status: engine.StatusPending, Text: "Not measured"}
			if ok {
				cell = sweepCell(c, labels, cellW)
			}
			if cell.Status != engine.StatusValid {
				present[cell.Status] = true
			} else if math.IsInf(cell.Value, 0) {
				noFigure = true
			} else {
				// A hostile sweep.json's gain of 1e300 must not make the key infinite.
				maxAbs = math.Min(maxGain, math.Max(maxAbs, math.Abs(cell.Value)))
			}
			row = append(row, cell)
		}
		h.Cells = append(h.Cells, row)
	}
	h.Scale = changeScale("gain", maxAbs)
	h.place()
	h.Legend = sweepLegend(present)
	h.Notes = []string{noteSweepCells}
	if noFigure {
		h.Notes = append(h.Notes, noteNoFigure)
	}
	return h
}

// sweepLegend explains the statuses drawn: No difference first, then the
// cells' statuses in the decode heatmap's order.
func sweepLegend(present map[engine.Status]bool) []StatusNote {
	var l []StatusNote
	if present[statusNoDifference] {
		l = append(l, StatusNote{Status: statusNoDifference, Note: noteNoDifference})
	}
	for _, s := range statusOrder {
		if present[s] {
			l = append(l, StatusNote{Status: s, Note: statusNote(s)})
		}
	}
	return l
}

// budgetNotes are the heatmap's notes of a sweep that measured quality:
// its budget, and each cell whose fastest configuration is over it
// (sweep.CellLine), at most maxListed.
func budgetNotes(s sweep.Sweep) []string {
	if s.Answer == nil || s.Answer.Budget == "" {
		return nil
	}
	notes := []string{"Quality budget " + s.Answer.Budget + ": each configuration's drift against the baseline's output, at the nearest context measured at or above the cell's."}
	var missed []string
	for _, ca := range s.Answer.Cells {
		if ca.BudgetMissed {
			missed = append(missed, sweep.CellLine(ca))
		}
	}
	if len(missed) > maxListed {
		missed = append(missed[:maxListed:maxListed], "… and "+report.Int(len(missed)-maxListed)+" more in sweep.md")
	}
	return append(notes, missed...)
}
