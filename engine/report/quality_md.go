package report

import (
	"fmt"
	"strings"

	"speedmatrix/engine"
)

// writeQuality writes the run's quality phase, when it had one: the drift
// per context against the reference with its 95 % intervals, the noise
// floor and the verdict, then the needle task and the task file paired
// with the reference's. A simulated server's section says so in its
// heading.
func writeQuality(b *strings.Builder, r engine.Report) {
	q := r.Quality
	if q == nil {
		return
	}
	title := "Quality"
	if r.Server.Simulated || q.Server.Server.Simulated {
		title += " (simulated)"
	}
	fmt.Fprintf(b, "## %s\n\n", title)
	ref := q.Reference
	recorded := ""
	if !ref.RecordedAt.IsZero() {
		recorded = ", recorded " + ref.RecordedAt.Format("2006-01-02 15:04")
	}
	fmt.Fprintf(b, "Compared with the reference %s (%s%s) after the matrix's cells, budget %s. "+
		"KL divergence in nats over the reference's top %d with one bucket for the rest (a bound); first divergence in positions; "+
		"(lo–hi): 95 %% bootstrap intervals over probes. Real: above the noise floor (the reference server against itself under load) beyond both intervals.\n\n",
		MDText(q.ReferenceFile), MDText(ref.Model), recorded, MDText(q.Budget), ref.K)
	if len(q.Contexts) == 0 && len(q.Needle) == 0 && q.Tasks == nil {
		b.WriteString("The quality phase has not compared anything yet: finish the run with --resume.\n\n")
		return
	}
	if len(q.Contexts) > 0 {
		writeTable(b, []string{"Context", "Positions", "Top-1 %", "KLD mean", "KLD p99", "KLD max", "Δp mean", "First divergence", "Floor: KLD mean · top-1 %", "Verdict"}, driftRows(*q))
	}
	writeNeedle(b, q.Needle)
	writeTaskRun(b, q.Tasks)
}

// driftRows are the drift table's rows, one per context compared.
func driftRows(q engine.QualityReport) [][]string {
	rows := make([][]string, 0, len(q.Contexts))
	for _, c := range q.Contexts {
		floor := "—"
		if f, ok := q.NoiseFloor.At(c.ContextTokens); ok {
			floor = fmt.Sprintf("%.5f · %.2f", f.KLDMean, f.Top1Pct)
		}
		rows = append(rows, []string{engine.ContextLabel(c.ContextTokens), Int(c.Positions),
			withCI("%.2f", c.Top1Pct, c.CI.Top1Pct), withCI("%.5f", c.KLDMean, c.CI.KLDMean), withCI("%.4f", c.KLDP99, c.CI.KLDP99),
			withCI("%.4f", c.KLDMax, c.CI.KLDMax), withCI("%.4f", c.DPMean, c.CI.DPMean), withCI("%.0f", c.FirstDivergenceMedian, c.CI.FirstDivergenceMedian),
			floor, verdict(q, c.ContextTokens)})
	}
	return rows
}

// withCI is v and its interval, each in format: "93.75 (91.20–95.31)".
func withCI(format string, v float64, ci engine.QualityInterval) string {
	return fmt.Sprintf(format+" ("+format+"–"+format+")", v, ci.Lo, ci.Hi)
}

// verdict is a context's judgement in words (QualityJudged.Words), and
// "within the budget" where it is.
func verdict(q engine.QualityReport, contextTokens int) string {
	v, ok := q.VerdictAt(contextTokens)
	if !ok {
		return "not judged"
	}
	w := v.Words(q.Budget)
	if v.OverBudget {
		return w
	}
	return w + ", within the budget"
}

// writeNeedle writes the needle task per context: accuracy with its
// Wilson interval, and against the reference's same trials (McNemar).
func writeNeedle(b *strings.Builder, n []engine.NeedleContext) {
	if len(n) == 0 {
		return
	}
	b.WriteString("Needle retrieval: a seeded 6-digit key in natural text, asked back by chat, exact match; Wilson 95 % interval; against the reference: its run of the same trials, exact McNemar test.\n\n")
	rows := make([][]string, 0, len(n))
	for _, c := range n {
		rows = append(rows, []string{engine.ContextLabel(c.ContextTokens), fmt.Sprintf("%d/%d", engine.Right(c.Correct), len(c.Correct)),
			fmt.Sprintf("%.0f %% (%.0f–%.0f)", c.AccuracyPct, c.CI.Lo, c.CI.Hi), engine.PairedLine(c.Reference, "trials")})
	}
	writeTable(b, []string{"Context", "Right", "Accuracy", "Against the reference"}, rows)
}

// writeTaskRun writes the task file's run and the items that flipped.
func writeTaskRun(b *strings.Builder, t *engine.TaskRun) {
	if t == nil {
		return
	}
	fmt.Fprintf(b, "Tasks %s: %d/%d asked right, %.0f %% (%.0f–%.0f); against the reference: %s.\n\n",
		MDText(t.File), engine.Right(t.Correct), len(t.Correct), t.AccuracyPct, t.CI.Lo, t.CI.Hi, engine.PairedLine(t.Reference, "items"))
	for _, f := range t.Flipped {
		fmt.Fprintf(b, "- line %d, %s: %s\n", f.Line, f.Words(), MDText(f.Prompt))
	}
	if len(t.Flipped) > 0 {
		b.WriteString("\n")
	}
}
