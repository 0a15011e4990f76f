package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/report"
)

// qualityCSVHeader is quality.csv's columns: one row per context.
var qualityCSVHeader = []string{"context_tokens", "probes", "positions", "top1_pct", "top1_pct_lo", "top1_pct_hi",
	"kld_mean", "kld_mean_lo", "kld_mean_hi", "kld_median", "kld_p99", "kld_p99_lo", "kld_p99_hi", "kld_max",
	"dp_mean", "dp_mean_lo", "dp_mean_hi", "first_divergence_median", "same_tokens_pct",
	"floor_top1_pct", "floor_kld_mean", "real", "over_budget", "needle_pct", "needle_lo", "needle_hi", "simulated"}

// writeQuality writes quality.json, quality.csv and the drift chart
// (quality.png and quality.svg, charts.WriteQuality) into dir, each
// atomically.
func writeQuality(dir string, r quality.Report) error {
	if err := writeJSON(filepath.Join(dir, qualityJSONFile), r, true); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, qualityJSONFile), err)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(qualityCSVHeader)
	for _, c := range qualityRows(r) {
		_ = w.Write(c)
	}
	w.Flush()
	if err := report.WriteFileAtomic(filepath.Join(dir, qualityCSVFile), b.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, qualityCSVFile), err)
	}
	// Not the run's ctx: the save after an interrupt draws the chart of
	// what was compared too, and a chart of at most engine.MaxLevels
	// contexts is quick.
	if err := charts.WriteQuality(context.Background(), dir, r, charts.DefaultOptions()); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, string(charts.KindQuality)+".png"), err)
	}
	return nil
}

// qualityRows is quality.csv's rows: every context compared or given the
// needle task, ascending.
func qualityRows(r quality.Report) [][]string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	byContext := map[int][]string{}
	var order []int
	row := func(c int) []string {
		if byContext[c] == nil {
			byContext[c] = make([]string, len(qualityCSVHeader))
			byContext[c][0] = strconv.Itoa(c)
			byContext[c][len(qualityCSVHeader)-1] = strconv.FormatBool(r.Server.Server.Simulated)
			order = append(order, c)
		}
		return byContext[c]
	}
	for i, c := range r.Contexts {
		x := row(c.ContextTokens)
		copy(x[1:], []string{strconv.Itoa(c.Probes), strconv.Itoa(c.Positions), f(c.Top1Pct), f(c.CI.Top1Pct.Lo), f(c.CI.Top1Pct.Hi),
			f(c.KLDMean), f(c.CI.KLDMean.Lo), f(c.CI.KLDMean.Hi), f(c.KLDMedian), f(c.KLDP99), f(c.CI.KLDP99.Lo), f(c.CI.KLDP99.Hi), f(c.KLDMax),
			f(c.DPMean), f(c.CI.DPMean.Lo), f(c.CI.DPMean.Hi), f(c.FirstDivergenceMedian), f(c.SameTokensPct)})
		if floor, ok := r.NoiseFloor.At(c.ContextTokens); ok {
			x[19], x[20] = f(floor.Top1Pct), f(floor.KLDMean)
		}
		if i < len(r.Verdicts) {
			x[21], x[22] = strconv.FormatBool(r.Verdicts[i].Real), strconv.FormatBool(r.Verdicts[i].OverBudget)
		}
	}
	for _, n := range r.Needle {
		x := row(n.ContextTokens)
		x[23], x[24], x[25] = f(n.AccuracyPct), f(n.CI.Lo), f(n.CI.Hi)
	}
	out := make([][]string, 0, len(order))
	slices.Sort(order)
	for _, c := range order {
		out = append(out, byContext[c])
	}
	return out
}

// printDrift prints the drift per context, judged.
func printDrift(w io.Writer, r quality.Report, simulated string) {
	for _, c := range r.Contexts {
		verdict := "no noise floor to judge it by"
		if v, ok := r.VerdictAt(c.ContextTokens); ok {
			verdict = v.Words(r.Budget)
		}
		fmt.Fprintf(w, "%s: top-1 %.2f %% (%.2f–%.2f), KLD mean %.5f (%.5f–%.5f), p99 %.4f, over %d positions: %s%s\n",
			engine.ContextLabel(c.ContextTokens), c.Top1Pct, c.CI.Top1Pct.Lo, c.CI.Top1Pct.Hi, c.KLDMean, c.CI.KLDMean.Lo, c.CI.KLDMean.Hi,
			c.KLDP99, c.Positions, verdict, simulated)
	}
}

// printNeedle prints the needle task per context, paired with the
// reference's where it can be: "8K: 19/20 → 12/20, p = 0.016".
func printNeedle(w io.Writer, n []quality.NeedleContext) {
	for _, c := range n {
		right, _, _ := quality.Accuracy(c.Correct)
		line := fmt.Sprintf("needle %s: %d/%d right (%.0f–%.0f %%)", engine.ContextLabel(c.ContextTokens), right, len(c.Correct), c.CI.Lo, c.CI.Hi)
		if c.Reference != nil {
			line += "; against the reference: " + c.Reference.String()
		}
		fmt.Fprintln(w, line)
	}
}

// printTasks prints a task run: accuracy, the pairing with the
// reference's, and the items that flipped, one a line.
func printTasks(w io.Writer, t *quality.TaskRun) {
	if t == nil {
		return
	}
	right, _, _ := quality.Accuracy(t.Correct)
	line := fmt.Sprintf("tasks %s: %d/%d right (%.0f–%.0f %%)", t.File, right, len(t.Correct), t.CI.Lo, t.CI.Hi)
	if t.Reference != nil {
		line += fmt.Sprintf("; against the reference: %s, %d flipped", t.Reference, len(t.Flipped))
	}
	fmt.Fprintln(w, line)
	for _, f := range t.Flipped {
		fmt.Fprintf(w, "  line %d, %s: %q\n", f.Line, f.Words(), f.Prompt)
	}
}
