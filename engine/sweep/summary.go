package sweep

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// WriteSummary writes sweep.md and sweep.csv of s into its folder dir,
// from the runs of its configurations (LoadRuns); basis is what the
// estimate assumed (Markdown).
func WriteSummary(dir string, s Sweep, runs map[string]engine.Report, basis string) error {
	if err := report.WriteFileAtomic(filepath.Join(dir, MDFile), []byte(Markdown(s, runs, basis))); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, s, runs); err != nil {
		return fmt.Errorf("write %s: %w", CSVFile, err)
	}
	return report.WriteFileAtomic(filepath.Join(dir, CSVFile), b.Bytes())
}

// WriteCSV writes sweep.csv: results.csv's columns (report.CSVHeader),
// simulated and target included, after a first column, config, for every
// cell of every configuration's run. A configuration that failed to start
// has one row per planned cell, Not run, with its reason as the error.
//
// With --quality, four columns follow: the drift that stands for the
// cell's context (ConfigQuality.DriftAt): the context it was measured at,
// top-1 agreement, KLD mean, and whether it is over the budget; empty
// where it was not measured, and for the baseline, the reference.
func WriteCSV(b *bytes.Buffer, s Sweep, runs map[string]engine.Report) error {
	w := csv.NewWriter(b)
	header := append([]string{"config"}, report.CSVHeader...)
	if s.Quality != nil {
		header = append(header, qualityCSVHeader...)
	}
	if err := w.Write(header); err != nil {
		return err
	}
	for _, c := range s.Configs {
		r, ok := runs[c.Name]
		if !ok {
			r = notRun(s, c)
		}
		var one bytes.Buffer
		if err := report.WriteCSV(&one, r); err != nil {
			return err
		}
		rows, err := csv.NewReader(&one).ReadAll()
		if err != nil {
			return err
		}
		ctxCol := slices.Index(report.CSVHeader, "context_tokens")
		for _, row := range rows[1:] {
			ctx, _ := strconv.Atoi(row[ctxCol])
			row = append([]string{c.Name}, row...)
			if s.Quality != nil {
				row = append(row, qualityCSVCells(c.Quality, ctx)...)
			}
			if err := w.Write(row); err != nil {
				return err
			}
		}
	}
	w.Flush()
	return w.Error()
}

// notRun is the run a configuration without one stands for in sweep.csv:
// every planned cell Not run, for the configuration's reason.
func notRun(s Sweep, c Config) engine.Report {
	r := engine.Report{Plan: s.Plan}
	r.Server.Simulated = s.Simulated
	reason := cmp.Or(c.Reason, string(c.Status))
	for _, ctx := range s.Plan.PrefillContexts {
		r.Results = append(r.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: ctx, Concurrency: 1},
			ContextLabel: engine.ContextLabel(ctx), Status: engine.StatusNotRun, Error: reason})
	}
	for _, ctx := range s.Plan.DecodeContexts {
		for _, conc := range s.Plan.Concurrency {
			r.Results = append(r.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: conc},
				ContextLabel: engine.ContextLabel(ctx), Status: engine.StatusNotRun, Error: reason})
		}
	}
	return r
}

// Markdown is sweep.md: what was varied, the configurations' headline
// figures, then per decode cell the best configuration and its margins.
// basis says what the estimate made before the sweep began assumed
// (runner.EstimateBasis): the estimate is the runner's model of a run, so
// its caller gives it.
func Markdown(s Sweep, runs map[string]engine.Report, basis string) string {
	var b strings.Builder
	a := Analyze(s, runs)
	if s.Answer != nil {
		a = *s.Answer
	}
	title := "Sweep: which settings are fastest"
	if s.Simulated {
		title += " (SIMULATED)"
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	if s.Simulated {
		b.WriteString("**Simulated:** every configuration was served by the Speed Matrix simulator standing in for vLLM; no figure below is a real server's.\n\n")
	}
	writeWhat(&b, s, runs, basis)
	writeHeadlines(&b, s, a)
	writeCells(&b, s, a)
	writeBudget(&b, s, a)
	writePareto(&b, s, runs)
	writeNotes(&b, s, a)
	return b.String()
}

// ParetoRuns are the configurations' runs in the sweep's order, for the
// Pareto chart of all of them (report.ParetoAcross); a configuration
// without a run has no points.
func ParetoRuns(s Sweep, runs map[string]engine.Report) []report.ParetoRun {
	var out []report.ParetoRun
	for _, c := range s.Configs {
		if r, ok := runs[c.Name]; ok {
			out = append(out, report.ParetoRun{Config: c.Name, Report: r})
		}
	}
	return out
}

// writePareto answers the sweep's Pareto chart in words: per context, the
// configuration and concurrency with the most throughput while each user
// still gets the plan's speed.
func writePareto(b *strings.Builder, s Sweep, runs map[string]engine.Report) {
	lines := report.ParetoLinesAcross(ParetoRuns(s, runs), s.Plan)
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "## Throughput against interactivity (%s.png)\n\n%s, over every configuration.\n\n", ParetoName, report.MDText(report.ParetoThreshold(s.Plan)))
	for _, l := range lines {
		b.WriteString("- " + report.MDText(l) + ".\n")
	}
	b.WriteString("\n")
}

func writeWhat(b *strings.Builder, s Sweep, runs map[string]engine.Report, basis string) {
	if r, ok := runs[BaselineName]; ok {
		fmt.Fprintf(b, "- **Model:** %s\n", report.MDText(report.ModelOnGPU(r)))
	}
	fmt.Fprintf(b, "- **Server:** %s, %s (the baseline first, then varying %s)\n", report.MDText(s.Server),
		engine.Count(len(s.Configs), "configuration", "configurations"), strings.Join(s.Varied(), ", "))
	fmt.Fprintf(b, "- **Plan, the same for every configuration:** decode contexts %s × concurrency %s; %s\n",
		MeasuredContexts(s, runs), engine.FormatCounts(s.Plan.Concurrency), engine.DecodeTest(s.Plan))
	est := fmt.Sprintf("estimated %s before it began (%s)", Words(s.EstimateS), basis)
	switch {
	case !s.Ended.IsZero():
		fmt.Fprintf(b, "- **Time:** took %s; %s\n\n", Words(s.ActualS), est)
	default:
		fmt.Fprintf(b, "- **Time:** not finished (%s so far); %s\n\n", Words(s.ActualS), est)
	}
}

// Varied lists the server.toml keys the sweep's configurations change, in
// the order they first appear.
func (s Sweep) Varied() []string {
	var keys []string
	for _, c := range s.Configs {
		for _, st := range c.Settings {
			if !slices.Contains(keys, st.Key) {
				keys = append(keys, st.Key)
			}
		}
	}
	return keys
}

// MeasuredContexts says which decode contexts the configurations measured
// (runs, by name): "6K (planned 8K, 32K, fitted to the servers' length)"
// when fitting to the servers' max model length changed the plan's, else
// the plan's own, "8K, 32K".
func MeasuredContexts(s Sweep, runs map[string]engine.Report) string {
	ctxs := engine.ContextLabels(s.Plan.DecodeContexts)
	if measured, _ := decodeGrid(s, runs); engine.ContextLabels(measured) != ctxs {
		return engine.ContextLabels(measured) + " (planned " + ctxs + ", fitted to the servers' length)"
	}
	return ctxs
}

// Words writes seconds as "7 min 12 s", as every sweep output does.
func Words(sec float64) string {
	d := engine.DurationOf(sec).Round(time.Second)
	if sec < 10 {
		return fmt.Sprintf("%.1f s", sec)
	}
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(d.Seconds()))
	}
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}

func writeHeadlines(b *strings.Builder, s Sweep, a Answer) {
	ttft := "TTFT p50"
	for _, h := range a.Headlines {
		if h.TTFTCell != "" {
			ttft = "TTFT p50 at " + h.TTFTCell
			break
		}
	}
	single := "1 request"
	for _, h := range a.Headlines {
		if h.SingleCell != "" {
			single = "tok/s, " + h.SingleCell
			break
		}
	}
	b.WriteString("## Configurations\n\n")
	qualityCol, qualityRule := "", ""
	if s.Quality != nil {
		qualityCol, qualityRule = " Quality ("+s.Quality.Budget+") |", "---|"
	}
	fmt.Fprintf(b, "| Configuration | Status | Peak total tok/s | %s | %s | KV cache tokens | Start-up |%s\n", single, ttft, qualityCol)
	b.WriteString("|---|---|---:|---:|---:|---:|---:|" + qualityRule + "\n")
	for i, h := range a.Headlines {
		name := h.Config
		if UnmeasuredChange(s.Configs[i]) {
			name += " †"
		}
		status := string(h.Status)
		if s.Configs[i].Reason != "" {
			status += ": " + report.MDCell(s.Configs[i].Reason)
		}
		peak := dash(h.PeakTokS, report.TokPerSec)
		if h.PeakCell != "" {
			peak += " (" + h.PeakCell + ")"
		}
		kv := "—"
		if h.KVCacheTokens > 0 {
			kv = report.Int(h.KVCacheTokens)
		}
		start := "—"
		if h.StartupS > 0 {
			start = Words(h.StartupS)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |", report.MDCell(name), status, peak,
			dash(h.SingleTokS, report.TokPerSec), dash(h.TTFTP50Ms, report.Millis), kv, start)
		if s.Quality != nil {
			fmt.Fprintf(b, " %s |", report.MDCell(cmp.Or(QualityText(s.Configs[i]), "—")))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func dash(v float64, f func(float64) string) string {
	if v <= 0 {
		return "—"
	}
	return f(v)
}

// MarginText words a margin: "+12.5 %", "no difference (+0.4 %, windows ±1.8 %)",
// or the other configuration's status ("Over capacity there").
func MarginText(m *Margin) string {
	switch {
	case m == nil:
		return "—"
	case m.Status != "":
		return string(m.Status) + " there"
	case m.NoDifference:
		return fmt.Sprintf("no difference (%s, windows ±%.1f %%)", report.Percent(m.Gain), m.NoisePct)
	}
	return report.Percent(m.Gain)
}

func writeCells(b *strings.Builder, s Sweep, a Answer) {
	b.WriteString("## Best configuration per cell\n\n")
	b.WriteString("Total tok/s of every configuration; the best in bold. A margin within the sum of " + engine.WindowsNoise + " reads \"no difference\". " + engine.RerunCaveat + "\n\n")
	b.WriteString("| Cell | Best | Over baseline | Over runner-up |")
	for _, c := range s.Configs {
		b.WriteString(" " + report.MDCell(c.Name) + " |")
	}
	b.WriteString("\n|---|---|---|---|" + strings.Repeat("---:|", len(s.Configs)) + "\n")
	for _, ca := range a.Cells {
		best := cmp.Or(ca.Best, "none Valid")
		if ca.BudgetMissed {
			best += " (over budget; within: " + cmp.Or(ca.WithinBudget, "none") + ")"
		}
		over := MarginText(ca.OverBaseline)
		if ca.Best == BaselineName {
			over = "(is the baseline)"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |", ca.Label, report.MDCell(best), over, MarginText(ca.OverRunnerUp))
		for _, e := range ca.Entries {
			v := string(e.Status)
			switch {
			case e.Status == "":
				v = "—"
			case e.Status == engine.StatusValid:
				v = report.TokPerSec(e.TokS)
				if e.Config == ca.Best {
					v = "**" + v + "**"
				}
			}
			fmt.Fprintf(b, " %s |", v)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func writeNotes(b *strings.Builder, s Sweep, a Answer) {
	var changes []string
	for _, c := range s.Configs {
		if UnmeasuredChange(c) {
			changes = append(changes, fmt.Sprintf("%s (%s)", report.MDText(c.Name), strings.Join(c.ChangesOutput, ", ")))
		}
	}
	if len(changes) > 0 {
		fmt.Fprintf(b, "† **Not the same model output:** %s change what the model answers: faster, perhaps, but not the same model quality. Check its answers before you adopt it.\n\n", strings.Join(changes, "; "))
	}
	if len(a.Looped) > 0 {
		fmt.Fprintf(b, "**Looped cells** (the output repeated itself): %s.\n\n", report.MDText(strings.Join(a.Looped, "; ")))
		for i, h := range a.Headlines {
			if i >= len(s.Configs) {
				break
			}
			if line := LoopedText(h, s.Configs[i]); line != "" {
				fmt.Fprintf(b, "- %s: %s\n", report.MDText(h.Config), report.MDText(line))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("## Pictures and runs\n\n")
	fmt.Fprintf(b, "- %s.png: the best configuration per cell\n", BestName)
	fmt.Fprintf(b, "- %s.png: each configuration's tok/s per request against total tok/s, one chart\n", ParetoName)
	for _, c := range s.Configs {
		if c.Baseline {
			fmt.Fprintf(b, "- %s/: the baseline's run (report.md, charts)\n", c.Folder)
			continue
		}
		if c.Status == StatusFailed || c.Status == StatusPending {
			fmt.Fprintf(b, "- %s: no run (%s)\n", report.MDText(c.Name), strings.ToLower(string(c.Status)))
			continue
		}
		fmt.Fprintf(b, "- %s/: the run of %s; %s%s.png: its change from the baseline per cell\n", c.Folder, report.MDText(c.Name), DeltaPrefix, c.Folder)
	}
}

// CellLine is one cell's answer in a line: "1K × 8: max_num_seqs=8,
// +85.2 % over baseline", "1K × 1: no difference (baseline best by +0.3 %,
// windows ±1.8 %)".
func CellLine(ca CellAnswer) string {
	switch {
	case ca.BudgetMissed:
		return budgetLine(ca)
	case ca.Best == "":
		statuses := map[engine.Status]bool{}
		var ss []string
		for _, e := range ca.Entries {
			if e.Status != "" && !statuses[e.Status] {
				statuses[e.Status] = true
				ss = append(ss, string(e.Status))
			}
		}
		return fmt.Sprintf("%s: no configuration Valid (%s)", ca.Label, cmp.Or(strings.Join(ss, ", "), "not measured"))
	case ca.Best == BaselineName && ca.OverRunnerUp == nil:
		return fmt.Sprintf("%s: baseline, the only one Valid", ca.Label)
	case ca.Best == BaselineName:
		return fmt.Sprintf("%s: baseline, %s over %s", ca.Label, MarginText(ca.OverRunnerUp), ca.OverRunnerUp.Of)
	}
	line := fmt.Sprintf("%s: %s, %s over baseline", ca.Label, ca.Best, MarginText(ca.OverBaseline))
	if ca.OverRunnerUp != nil && ca.OverRunnerUp.Of != BaselineName {
		line += fmt.Sprintf(", %s over %s", MarginText(ca.OverRunnerUp), ca.OverRunnerUp.Of)
	}
	return line
}

// qualityCSVHeader names sweep.csv's quality columns (WriteCSV).
var qualityCSVHeader = []string{"quality_context_tokens", "quality_top1_pct", "quality_kld_mean", "quality_over_budget"}

// qualityCSVCells are a cell's quality columns: the drift that stands for
// a cell of ctx tokens, or empty cells.
func qualityCSVCells(q *ConfigQuality, ctx int) []string {
	d, ok := q.DriftAt(ctx)
	if !ok || q.Reference {
		return make([]string, len(qualityCSVHeader))
	}
	return []string{strconv.Itoa(d.ContextTokens), strconv.FormatFloat(d.Top1Pct, 'f', 2, 64),
		strconv.FormatFloat(d.KLDMean, 'g', 4, 64), strconv.FormatBool(d.Over())}
}
