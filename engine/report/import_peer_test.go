package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// The peers' results files and consoles, recorded by the rig's peers step
// (scripts/rig/peers.sh, then record-peers.sh) against Speed Matrix's
// simulator: a load test at 4 requests/s ("rate") and a side-by-side at 4
// requests at once ("concurrency").
const peersDir = "testdata/peers"

// peerFixture is one recorded file and what its import must be.
type peerFixture struct {
	file     string
	format   Format
	tool     string
	version  string
	arrivals engine.Arrivals
	rate     float64
	conc     int
	// printed are the figures the tool printed to its console, each
	// beside ours: they must be equal to the tool's own rounding.
	printed func(t *testing.T, console string) []printedFigure
}

// printedFigure is one figure as a tool printed it, and ours.
type printedFigure struct {
	name, printed string
	ours          float64
}

var peerFixtures = []peerFixture{
	{"vllm-bench-0.32.0+cpu.rate.json", FormatVLLMBench, vllmBenchTool, engine.VersionUnknown, engine.ArrivalsPoisson, 4, 0, vllmBenchPrinted},
	{"vllm-bench-0.32.0+cpu.concurrency.json", FormatVLLMBench, vllmBenchTool, engine.VersionUnknown, engine.ArrivalsConcurrent, 0, 4, vllmBenchPrinted},
	{"guidellm-0.8.1.rate.json", FormatGuideLLM, guideLLMTool, "0.8.1", engine.ArrivalsPoisson, 4, 0, guideLLMPrinted},
	{"guidellm-0.8.1.concurrency.json", FormatGuideLLM, guideLLMTool, "0.8.1", engine.ArrivalsConcurrent, 0, 4, guideLLMPrinted},
	{"aiperf-0.13.0.rate.json", FormatAIPerf, aiperfTool, "0.13.0", engine.ArrivalsPoisson, 4, 0, aiperfPrinted},
	{"aiperf-0.13.0.concurrency.json", FormatAIPerf, aiperfTool, "0.13.0", engine.ArrivalsConcurrent, 0, 4, aiperfPrinted},
	{"inference-perf-0.7.0.rate.json", FormatInferencePerf, inferencePerfTool, engine.VersionUnknown, "", 4, 0, inferencePerfPrinted},
	{"inference-perf-0.7.0.concurrency.json", FormatInferencePerf, inferencePerfTool, engine.VersionUnknown, engine.ArrivalsConcurrent, 0, 4, inferencePerfPrinted},
}

// TestImportPeers: each tool's real file imports as an imported load test
// of one row, labelled with its tool and version, whose figures are the
// ones the tool printed.
func TestImportPeers(t *testing.T) {
	for _, fx := range peerFixtures {
		t.Run(fx.file, func(t *testing.T) {
			path := filepath.Join(peersDir, fx.file)
			r, format, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			want := engine.Import{Tool: fx.tool, Version: fx.version, File: fx.file}
			if format != fx.format || r.Run.Imported == nil || *r.Run.Imported != want || r.Load == nil || r.Load.Imported == nil || *r.Load.Imported != want {
				t.Fatalf("format %q, run %+v, load %+v", format, r.Run.Imported, r.Load)
			}
			if len(r.Load.Results) != 1 {
				t.Fatalf("%d rows, want 1", len(r.Load.Results))
			}
			row := r.Load.Results[0]
			if row.Status != engine.StatusValid || row.Arrivals != fx.arrivals || row.RateRPS != fx.rate || row.Concurrency != fx.conc || row.Failed != 0 {
				t.Errorf("row: %s, %q at %v req/s, %d at once, %d failed", row.Status, row.Arrivals, row.RateRPS, row.Concurrency, row.Failed)
			}
			model := "tiny"
			if fx.tool == inferencePerfTool {
				model = "" // its stage report does not name the model
			}
			if r.Run.ServedModel != model || len(r.Run.Notes) < 3 {
				t.Errorf("model %q, notes %q", r.Run.ServedModel, r.Run.Notes)
			}
			console, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".stdout.txt")
			if err != nil {
				t.Fatal(err)
			}
			figures := fx.printed(t, string(console))
			if len(figures) < 8 {
				t.Fatalf("only %d printed figures found", len(figures))
			}
			for _, f := range figures {
				if got := roundedAs(f.printed, f.ours); got != f.printed {
					t.Errorf("%s: %s printed %s, imported %s (%v)", f.name, fx.tool, f.printed, got, f.ours)
				}
			}
		})
	}
}

// roundedAs writes ours with as many decimals as printed has.
func roundedAs(printed string, ours float64) string {
	decimals := 0
	if _, frac, ok := strings.Cut(printed, "."); ok {
		decimals = len(frac)
	}
	return fmt.Sprintf("%.*f", decimals, ours)
}

// vllmBenchPrinted reads vllm bench serve's "Label: value" result lines.
func vllmBenchPrinted(t *testing.T, console string) []printedFigure {
	t.Helper()
	r := readPeer(t, FormatVLLMBench, console)
	row := r.Load.Results[0]
	lines := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Za-z0-9 ()/.-]+):\s+([\d.]+)\s*$`).FindAllStringSubmatch(console, -1) {
		lines[m[1]] = m[2]
	}
	figs := []printedFigure{
		{"Successful requests", lines["Successful requests"], float64(row.Completed)},
		{"Failed requests", lines["Failed requests"], float64(row.Failed)},
		{"Benchmark duration (s)", lines["Benchmark duration (s)"], row.DurationS},
		{"Total input tokens", lines["Total input tokens"], float64(row.InputTokens)},
		{"Total generated tokens", lines["Total generated tokens"], float64(row.OutputTokens)},
		{"Request throughput (req/s)", lines["Request throughput (req/s)"], row.RequestThroughputRPS},
		{"Output token throughput (tok/s)", lines["Output token throughput (tok/s)"], row.OutputTokPerSec},
		{"Peak concurrent requests", lines["Peak concurrent requests"], float64(row.MaxInFlight)},
	}
	for _, m := range []struct {
		name string
		pct  engine.Percentiles
	}{{"TTFT", row.TTFTMs}, {"TPOT", row.TPOTMs}, {"ITL", row.ITLMs}, {"E2EL", row.E2EMs}} {
		figs = append(figs, printedFigure{"Mean " + m.name, lines["Mean "+m.name+" (ms)"], m.pct.Mean},
			printedFigure{"Median " + m.name, lines["Median "+m.name+" (ms)"], m.pct.P50},
			printedFigure{"P99 " + m.name, lines["P99 "+m.name+" (ms)"], m.pct.P99})
	}
	if row.Arrivals == engine.ArrivalsPoisson {
		figs = append(figs, printedFigure{"Request rate configured (RPS)", lines["Request rate configured (RPS)"], row.RateRPS})
	}
	return figs
}

// guideLLMPrinted reads GuideLLM's console tables: a row per benchmark
// under each table's title.
func guideLLMPrinted(t *testing.T, console string) []printedFigure {
	t.Helper()
	r := readPeer(t, FormatGuideLLM, console)
	row := r.Load.Results[0]
	strategy := "poisson@4.00"
	if row.Arrivals == engine.ArrivalsConcurrent {
		strategy = "concurrent@4"
	}
	summary := tableRow(t, console, "Run Summary Info", strategy)
	latency := tableRow(t, console, "Request Latency Statistics", strategy)
	server := tableRow(t, console, "Server Throughput Statistics", strategy)
	return []printedFigure{
		{"Dur Sec", summary[3], row.DurationS},
		{"Requests Comp", summary[6], float64(row.Completed)},
		{"Requests Err", summary[8], float64(row.Failed)},
		{"Request Latency Mdn (s)", latency[2], row.E2EMs.P50 / 1000},
		{"TTFT Mean", strings.Fields(latency[4])[0], row.TTFTMs.Mean},
		{"TTFT Mdn", latency[5], row.TTFTMs.P50},
		{"ITL Mean (our TPOT)", latency[10], row.TPOTMs.Mean},
		{"ITL Mdn (our TPOT)", latency[11], row.TPOTMs.P50},
		{"Requests Per Sec Mean", server[3], row.RequestThroughputRPS},
		{"Output Tokens Per Sec", server[5], row.OutputTokPerSec},
	}
}

// aiperfPrinted reads AIPerf's LLM Metrics table: metric, avg, min, max,
// p99, p90, p50, std.
func aiperfPrinted(t *testing.T, console string) []printedFigure {
	t.Helper()
	r := readPeer(t, FormatAIPerf, console)
	row := r.Load.Results[0]
	var figs []printedFigure
	for _, m := range []struct {
		metric string
		pct    engine.Percentiles
	}{{"Time to First Token (ms)", row.TTFTMs}, {"Request Latency (ms)", row.E2EMs}, {"Inter Token Latency (ms)", row.TPOTMs}} {
		c := tableRow(t, console, "LLM Metrics", m.metric)
		figs = append(figs, printedFigure{m.metric + " avg", c[1], m.pct.Mean}, printedFigure{m.metric + " p99", c[4], m.pct.P99},
			printedFigure{m.metric + " p90", c[5], m.pct.P90}, printedFigure{m.metric + " p50", c[6], m.pct.P50})
	}
	for _, m := range []struct {
		metric string
		ours   float64
	}{{"Output Token Throughput (tokens/sec)", row.OutputTokPerSec}, {"Request Throughput (requests/sec)", row.RequestThroughputRPS}, {"Request Count (requests)", float64(row.Completed)}} {
		figs = append(figs, printedFigure{m.metric, tableRow(t, console, "LLM Metrics", m.metric)[1], m.ours})
	}
	if m := regexp.MustCompile(`Benchmark Duration: ([\d.]+) sec`).FindStringSubmatch(console); m != nil {
		figs = append(figs, printedFigure{"Benchmark Duration", m[1], row.DurationS})
	}
	return figs
}

// inferencePerfPrinted reads inference-perf's per-stage tables (stage 0).
func inferencePerfPrinted(t *testing.T, console string) []printedFigure {
	t.Helper()
	r := readPeer(t, FormatInferencePerf, console)
	row := r.Load.Results[0]
	thr := tableRow(t, console, "Throughput and Goodput Summary", "0")
	lat := tableRow(t, console, "Request & Token Latency (ms)", "0")
	tpot := tableRow(t, console, "Token Generation Speed (ms)", "0")
	figs := []printedFigure{
		{"Req/s", thr[4], row.RequestThroughputRPS}, {"Out Tokens/s", thr[6], row.OutputTokPerSec},
		{"Req Lat Mean", lat[1], row.E2EMs.Mean}, {"Req Lat Med", lat[2], row.E2EMs.P50}, {"Req Lat P90", lat[3], row.E2EMs.P90},
		{"TTFT Mean", lat[4], row.TTFTMs.Mean}, {"TTFT Med", lat[5], row.TTFTMs.P50}, {"TTFT P90", lat[6], row.TTFTMs.P90},
		{"ITL Mean", lat[7], row.ITLMs.Mean}, {"ITL Med", lat[8], row.ITLMs.P50}, {"ITL P90", lat[9], row.ITLMs.P90},
		{"TPOT Mean", tpot[1], row.TPOTMs.Mean}, {"TPOT Med", tpot[2], row.TPOTMs.P50}, {"TPOT P90", tpot[3], row.TPOTMs.P90},
		{"Successes", tableRow(t, console, "Request Error Summary", "0")[1], float64(row.Completed)},
	}
	if row.Arrivals != engine.ArrivalsConcurrent {
		figs = append(figs, printedFigure{"Req Rate", thr[1], row.RateRPS})
	}
	return figs
}

// readPeer is the fixture the console belongs to, found by the test's name.
func readPeer(t *testing.T, format Format, _ string) engine.Report {
	t.Helper()
	r, got, err := Read(filepath.Join(peersDir, filepath.Base(t.Name())))
	if err != nil || got != format {
		t.Fatalf("read: %v (%s)", err, got)
	}
	return r
}

// tableRow is the cells of the first row, after the line holding title,
// whose first cell is first: a console table's row, its cells split on
// "|" or "│" and trimmed.
func tableRow(t *testing.T, console, title, first string) []string {
	t.Helper()
	_, after, ok := strings.Cut(console, title)
	if !ok {
		t.Fatalf("no %q in the console", title)
	}
	for _, line := range strings.Split(after, "\n") {
		cells := strings.Split(strings.ReplaceAll(line, "│", "|"), "|")
		if len(cells) < 3 {
			continue
		}
		cells = cells[1 : len(cells)-1]
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == first {
			return cells
		}
	}
	t.Fatalf("no row %q under %q", first, title)
	return nil
}
