package report

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"speedmatrix/engine"
)

// Title is the heading of every report, as in the reference reports.
const Title = "Speed test matrix"

// Markdown renders the report as the reference reports lay it out: title, model on GPU,
// a subtitle line, Hardware, Engine, Run, Launch command, the Prefill and
// Sustained decode tables with their notes and flags, the SLO (when the
// plan sets one), Quality (when the run had a quality phase), Checks (when the cells carry the server's or the GPUs'
// figures), All measurements with p90 and p99, and the start-up
// Diagnostics when the run recorded them. A load test's report has its
// load sections (writeLoad) in place of the matrix's.
func Markdown(r engine.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n**%s**\n\n%s\n\n", TitleOf(r), MDText(ModelOnGPU(r)), MDText(Subtitle(r)))
	for _, sec := range Sections(r) {
		writeSection(&b, sec)
	}
	if r.LaunchCommand != "" {
		cmd := strings.TrimRight(r.LaunchCommand, "\n")
		fence := codeFence(cmd)
		fmt.Fprintf(&b, "## Launch command\n\n%ssh\n%s\n%s\n\n", fence, cmd, fence)
	}
	if r.Load != nil { // a load test has no matrix cells
		writeLoad(&b, r)
		writeDiagnostics(&b, r.Diagnostics)
		return b.String()
	}
	writePrefill(&b, r)
	writeDecode(&b, r)
	writeSLO(&b, r)
	writeEnergy(&b, r)
	writeQuality(&b, r)
	writeChecks(&b, r)
	writeCacheReasoning(&b, CacheReasoningRows(r))
	writeGPUs(&b, r)
	writeMeasurements(&b, r.Results)
	writeErrors(&b, r.Results)
	writeDiagnostics(&b, r.Diagnostics)
	return b.String()
}

// ModelOnGPU is the line under the title: "gemma-4-E2B-it on RTX 3090 24GB",
// the model on what served it (servedOn), or "tiny · remote server,
// hardware unknown".
func ModelOnGPU(r engine.Report) string {
	model := modelName(r.Run)
	on := servedOn(r)
	if on == "" && r.Hardware.Whose == "" {
		on = r.Hardware.CPU // as titles read before Whose was recorded
	}
	switch {
	case on == "":
		return model
	case on == remoteUnknown:
		return model + " · " + on
	default:
		return model + " on " + on
	}
}

// remoteUnknown is what served a remote server's model, as far as a run
// without its DCGM exporters knows.
const remoteUnknown = "remote server, hardware unknown"

// servedOn names what served the model, as far as the report knows it,
// for a title or a list of runs: deviceTitle (the GPUs, or the CPU of a
// server on the CPU); without either, by whose hardware the report
// describes (HardwareInfo.Whose): a remote server's is unknown, the
// simulator's is its profile, and a server on the measuring machine ran
// on that machine, which has no GPU. Never the measuring machine's CPU
// as if it served a model it did not; "" for a report from before Whose
// without a GPU.
func servedOn(r engine.Report) string {
	h := r.Hardware
	if on := deviceTitle(h); on != "" {
		return on
	}
	switch h.Whose {
	case engine.HardwareOfRemote:
		return remoteUnknown
	case engine.HardwareOfSimulator:
		return "the simulator (profile " + r.Server.SimProfile + ")"
	case engine.HardwareOfServer:
		if h.CPU == "" {
			return "this machine (no GPU)"
		}
		return "this machine (" + h.CPU + ", no GPU)"
	}
	return ""
}

// modelName is the model as the reference report titles name it: the last element of
// the model's id or path ("gemma-4-E2B-it"), else the served name.
func modelName(run engine.RunInfo) string {
	if m := strings.TrimRight(run.Model, "/"); m != "" {
		return path.Base(m)
	}
	if run.ServedModel != "" {
		return run.ServedModel
	}
	return "unknown model"
}

// Subtitle is the reference reports' summary line: engine · version ·
// quantization · the MatrixLine.
func Subtitle(r engine.Report) string {
	var parts []string
	for _, s := range []string{r.Server.Name, r.Server.Version, r.Server.Quantization, r.Server.SimulatedLabel()} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if m := MatrixLine(r); m != "" {
		parts = append(parts, m)
	}
	return strings.Join(parts, " · ")
}

// MatrixLine says what the matrix measured: "3 contexts (8K–32K) × 1
// concurrency level (8) · prefill at 8K, 32K", prefill contexts in order;
// for a load test, what it measured (LoadLine).
func MatrixLine(r engine.Report) string {
	if r.Load != nil {
		return LoadLine(*r.Load)
	}
	var parts []string
	decode, conc := decodeAxes(r.Results)
	if len(decode) > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s) × %s (%s)",
			engine.Count(len(decode), "context", "contexts"), contextRange(decode),
			engine.Count(len(conc), "concurrency level", "concurrency levels"), intRange(conc)))
	}
	var prefill []engine.Result
	for _, res := range r.Results {
		if res.Phase == engine.PhasePrefill {
			prefill = append(prefill, res)
		}
	}
	slices.SortStableFunc(prefill, func(a, b engine.Result) int { return a.ContextTokens - b.ContextTokens })
	if len(prefill) > 0 {
		labels := make([]string, len(prefill))
		for i, res := range prefill {
			labels[i] = res.ContextName()
		}
		parts = append(parts, "prefill at "+strings.Join(labels, ", "))
	}
	return strings.Join(parts, " · ")
}

func intRange(v []int) string {
	if len(v) == 1 {
		return fmt.Sprint(v[0])
	}
	return fmt.Sprintf("%d–%d", v[0], v[len(v)-1])
}

// decodeAxes returns the decode contexts and concurrency levels, sorted.
func decodeAxes(rs []engine.Result) (contexts, concurrency []int) {
	for _, r := range rs {
		if r.Phase == engine.PhaseDecode {
			contexts = append(contexts, r.ContextTokens)
			concurrency = append(concurrency, r.Concurrency)
		}
	}
	slices.Sort(contexts)
	slices.Sort(concurrency)
	return slices.Compact(contexts), slices.Compact(concurrency)
}

func writeSection(b *strings.Builder, sec Section) {
	fmt.Fprintf(b, "## %s\n\n", sec.Title)
	table := make([][]string, 0, len(sec.Rows))
	for _, r := range sec.Rows {
		table = append(table, []string{r.Key, r.Value})
	}
	writeTable(b, []string{"", ""}, table)
}

func writeTable(b *strings.Builder, head []string, rows [][]string) {
	line := func(cells []string) {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = MDCell(c)
		}
		b.WriteString("| " + strings.Join(esc, " | ") + " |\n")
	}
	line(head)
	b.WriteString(strings.Repeat("|---", len(head)) + "|\n")
	for _, r := range rows {
		line(r)
	}
	b.WriteString("\n")
}

// writePrefill writes the Prefill table: the reference reports' context,
// prompt tok/s and TTFT, and, when a cell is the median of repeats, what
// each is measured as ("median of 3, spread 1.2 %") with its note.
func writePrefill(b *strings.Builder, r engine.Report) {
	prefill := ofPhase(r.Results, engine.PhasePrefill)
	repeats := anyPrefillRepeats(prefill)
	var rows [][]string
	for _, res := range prefill {
		row := []string{res.ContextName(), string(res.Status), Dash}
		if res.Measured() {
			row = []string{res.ContextName(), Mark(TokPerSec(res.TotalTokPerSec), res), Millis(res.TTFTMs)}
		}
		if repeats {
			row = append(row, measuredAs(res))
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Prefill\n\nprompt tok/s by context length\n\n")
	head := []string{"Context", "Prompt tok/s", "TTFT"}
	if repeats {
		head = append(head, "Measured as")
	}
	writeTable(b, head, rows)
	if repeats {
		b.WriteString(NotePrefillRepeats + "\n\n")
	}
	if AnyMarked(prefill) {
		b.WriteString(NoteFlagged + "\n\n")
	}
	writeFlags(b, prefill)
	writeRoofline(b, r, engine.PhasePrefill)
}

func writeDecode(b *strings.Builder, r engine.Report) {
	contexts, conc := decodeAxes(r.Results)
	if len(contexts) == 0 {
		return
	}
	cells := map[[2]int]engine.Result{}
	labels := map[int]string{}
	for _, res := range r.Results {
		if res.Phase == engine.PhaseDecode {
			cells[[2]int{res.ContextTokens, res.Concurrency}] = res
			labels[res.ContextTokens] = res.ContextName()
		}
	}
	head := []string{"Context"}
	for _, c := range conc {
		head = append(head, fmt.Sprint(c))
	}
	var rows [][]string
	for _, ctx := range contexts {
		row := []string{labels[ctx]}
		for _, c := range conc {
			res, ok := cells[[2]int{ctx, c}]
			cell := Dash
			if ok {
				cell = decodeCell(res)
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	b.WriteString("## Sustained decode\n\ntotal tok/s · rows are context length, columns are simultaneous requests\n\n")
	writeTable(b, head, rows)
	writeNotes(b, r.Results, true)
	writeFlags(b, ofPhase(r.Results, engine.PhaseDecode))
	writeRoofline(b, r, engine.PhaseDecode)
	if lines := ParetoLines(r); len(lines) > 0 {
		b.WriteString("### Throughput against interactivity (pareto.png)\n\n" + MDText(ParetoThreshold(r.Plan)) + ".\n\n")
		for _, l := range lines {
			b.WriteString("- " + MDText(l) + ".\n")
		}
		b.WriteString("\n")
	}
}

// writeRoofline writes the phase's RooflineLine, when there is one.
func writeRoofline(b *strings.Builder, r engine.Report, phase engine.Phase) {
	if line := RooflineLine(r, phase); line != "" {
		b.WriteString(MDText(line) + "\n\n")
	}
}

// writeFlags lists the flags of the cells of a table, one line per cell.
func writeFlags(b *strings.Builder, rs []engine.Result) {
	lines := FlagLines(rs)
	for _, l := range lines {
		b.WriteString("- " + MDText(l) + "\n")
	}
	if len(lines) > 0 {
		b.WriteString("\n")
	}
}

// notes returns the notes the reference reports print under a table: one per status
// that appears, NoteFlagged when a cell is marked, and, for the decode
// table, the TTFT note.
func notes(rs []engine.Result, withTTFT bool) []string {
	has := func(s engine.Status) bool {
		return slices.ContainsFunc(rs, func(r engine.Result) bool { return r.Status == s })
	}
	var notes []string
	for _, n := range []struct {
		status engine.Status
		text   string
	}{{engine.StatusLooped, engine.NoteLooped}, {engine.StatusOverCapacity, engine.NoteOverCapacity}, {engine.StatusFailed, engine.NoteFailed},
		{engine.StatusNotRun, engine.NoteNotRun}} {
		if has(n.status) {
			notes = append(notes, n.text)
		}
	}
	if AnyMarked(rs) {
		notes = append(notes, NoteFlagged)
	}
	if withTTFT {
		notes = append(notes, engine.NoteTTFT)
	}
	return notes
}

func writeNotes(b *strings.Builder, rs []engine.Result, withTTFT bool) {
	notes := notes(rs, withTTFT)
	if len(notes) == 0 {
		return
	}
	b.WriteString(strings.Join(notes, " ") + "\n\n")
}

// writeErrors lists the server's message for every cell that failed.
func writeErrors(b *strings.Builder, rs []engine.Result) {
	first := true
	for _, r := range rs {
		if r.Status != engine.StatusFailed || r.Error == "" {
			continue
		}
		if first {
			b.WriteString("### Errors\n\n")
			first = false
		}
		fmt.Fprintf(b, "- %s: %s\n", CellName(r), MDText(r.Error))
	}
	if !first {
		b.WriteString("\n")
	}
}

// writeMeasurements writes All measurements: the reference reports' columns,
// a decode cell's total tok/s with its ± (PlusMinus), then the p90 and p99
// of TTFT and time between tokens, a p99 of few samples marked, with the
// notes that explain them.
func writeMeasurements(b *strings.Builder, rs []engine.Result) {
	b.WriteString("## All measurements\n\n" + engine.NoteLatencies + " " + NotePercentiles + "\n\n")
	rows := make([][]string, 0, len(rs))
	for _, res := range rs {
		row := MeasurementRow(res)
		row[4] = WithWindow(row[4], res)
		rows = append(rows, append(row, PercentileCells(res)...))
	}
	writeTable(b, append(slices.Clip(MeasurementColumns), PercentileColumns...), rows)
	if anyPrecision(rs) {
		b.WriteString(NotePlusMinus + "\n\n")
	}
	for _, line := range []string{AdaptiveLine(rs), DriftLine(rs)} {
		if line != "" {
			b.WriteString(line + ".\n\n")
		}
	}
	if AnyFewForP99(rs) {
		b.WriteString(NoteFewSamples + "\n\n")
	}
	writeNotes(b, rs, false)
}
